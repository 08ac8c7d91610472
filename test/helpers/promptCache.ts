/**
 * The providers' prompt caches as their documentation describes them, for the loopback model
 * services (providers.ts, batchProviders.ts). Tokens are whitespace-separated words.
 *
 * - Anthropic caches only what a request marks: the prompt up to and including the last content
 *   block with cache_control, when that is at least `minTokens` long. A request whose marked
 *   prefix is cached reads it (cache_read_input_tokens); otherwise it writes it
 *   (cache_creation_input_tokens). input_tokens counts the rest.
 * - OpenAI caches every prompt of 1,024 tokens or more by itself, no marker: a later prompt that
 *   begins the same way is served the longest cached beginning, counted from 1,024 tokens in steps
 *   of 128 (usage.prompt_tokens_details.cached_tokens, part of prompt_tokens).
 */

/** Tokens as a stand-in counts them: whitespace-separated words. */
export const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

export interface CacheUsage {
  anthropic: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
  openai: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
}

export type Content = string | { type: string; text?: string; cache_control?: unknown }[];

export class PromptCache {
  private readonly anthropicPrefixes = new Set<string>();
  /** Hashes of every cached beginning of an OpenAI prompt, at 1,024 words and every 128 after. */
  private readonly openaiPrefixes = new Set<string>();

  constructor(private readonly options: { enabled?: boolean; minTokens?: number } = {}) {}

  private get enabled(): boolean {
    return this.options.enabled ?? true;
  }

  private get minTokens(): number {
    return this.options.minTokens ?? 1024;
  }

  /** The text of a message's content, whatever its form. */
  static text(content: Content): string {
    return typeof content === "string" ? content : content.map((b) => b.text ?? "").join("");
  }

  anthropic(content: Content): CacheUsage["anthropic"] {
    const { usage, commit } = this.anthropicAt(content);
    commit();
    return usage;
  }

  /**
   * What a request arriving now reads of the cache, and `commit`, which writes what it marked when its
   * answer begins: as the providers document, a cache entry is there for requests that arrive after
   * the first response began, not for those sent alongside it.
   */
  anthropicAt(content: Content): { usage: CacheUsage["anthropic"]; commit(): void } {
    let write: string | undefined;
    const usage = this.anthropicUsage(content, (prefix) => (write = prefix));
    return { usage, commit: () => void (write !== undefined && this.anthropicPrefixes.add(write)) };
  }

  private anthropicUsage(content: Content, written: (prefix: string) => void): CacheUsage["anthropic"] {
    const total = words(PromptCache.text(content));
    const none = { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (!this.enabled || typeof content === "string") return none;
    const last = content.map((b) => b.cache_control !== undefined).lastIndexOf(true);
    if (last < 0) return none;
    const prefix = content
      .slice(0, last + 1)
      .map((b) => b.text ?? "")
      .join("");
    const tokens = words(prefix);
    if (tokens < this.minTokens) return none;
    if (this.anthropicPrefixes.has(prefix)) return { input_tokens: total - tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: tokens };
    written(prefix);
    return { input_tokens: total - tokens, cache_creation_input_tokens: tokens, cache_read_input_tokens: 0 };
  }

  openai(prompt: string): CacheUsage["openai"] {
    const { usage, commit } = this.openaiAt(prompt);
    commit();
    return usage;
  }

  /** What a request arriving now reads of OpenAI's cache, and `commit`, which caches its prompt when its answer begins. */
  openaiAt(prompt: string): { usage: CacheUsage["openai"]; commit(): void } {
    const list = prompt.split(/\s+/).filter(Boolean);
    const add: string[] = [];
    let cached = 0;
    if (this.enabled && list.length >= 1024) {
      let hash = 2166136261;
      const boundaries: { at: number; key: string }[] = [];
      list.forEach((word, i) => {
        for (let c = 0; c < word.length; c++) hash = Math.imul(hash ^ word.charCodeAt(c), 16777619) >>> 0;
        hash = Math.imul(hash ^ 32, 16777619) >>> 0;
        const n = i + 1;
        if (n >= 1024 && (n - 1024) % 128 === 0) boundaries.push({ at: n, key: `${n}:${hash}` });
      });
      for (const b of boundaries) if (this.openaiPrefixes.has(b.key)) cached = b.at;
      for (const b of boundaries) add.push(b.key);
    }
    return {
      usage: { prompt_tokens: list.length, prompt_tokens_details: { cached_tokens: cached } },
      commit: () => add.forEach((key) => this.openaiPrefixes.add(key)),
    };
  }
}
