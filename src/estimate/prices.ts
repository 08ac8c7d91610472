/**
 * What models cost. A workflow's `pricing:` wins; otherwise the built-in table below. A model in
 * neither has no price, and its cost is "unknown": pairflow never makes a number up.
 */
import type { TokenUsage } from "../model/records.js";
import type { ModelPrice } from "../model/workflow.js";

/**
 * When the built-in prices were taken: the providers' published list prices (standard tier) as of
 * this month, from OpenAI's pricing page (developers.openai.com/api/docs/pricing: input, cached
 * input and output; the Batch API takes half off all of them) and Anthropic's
 * (platform.claude.com/docs/en/about-claude/pricing: base input, 5-minute cache writes at 1.25x
 * input, cache hits at 0.1x, output, save Claude 3 Haiku's own cache prices; Message Batches at half of every one of them). Prices change:
 * put current ones under `pricing:`.
 */
export const BUILT_IN_PRICES_AS_OF = "2026-03";

/** OpenAI: cached input at its own price, no charge for writing the cache, half off through the Batch API. */
const openai = (input: number, cachedInput: number, output: number): ModelPrice => ({ input, output, cachedInput, batchDiscount: 0.5 });
/** Anthropic: cache reads at 0.1x input, (5-minute) cache writes at 1.25x, half off through Message Batches. */
const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cachedInput: round(input * 0.1),
  cacheWrite: round(input * 1.25),
  batchDiscount: 0.5,
});

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** USD per million tokens, by model name. */
export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice>> = {
  // OpenAI: cached input is a tenth of input for the gpt-5 family, a quarter for gpt-4.1, o3 and
  // o4-mini, a half for gpt-4o and o3-mini.
  "gpt-5": openai(1.25, 0.125, 10),
  "gpt-5-mini": openai(0.25, 0.025, 2),
  "gpt-5-nano": openai(0.05, 0.005, 0.4),
  "gpt-4.1": openai(2, 0.5, 8),
  "gpt-4.1-mini": openai(0.4, 0.1, 1.6),
  "gpt-4.1-nano": openai(0.1, 0.025, 0.4),
  "gpt-4o": openai(2.5, 1.25, 10),
  "gpt-4o-mini": openai(0.15, 0.075, 0.6),
  o3: openai(2, 0.5, 8),
  "o3-mini": openai(1.1, 0.55, 4.4),
  "o4-mini": openai(1.1, 0.275, 4.4),
  // Anthropic (Sonnet's price for prompts up to 200K tokens)
  "claude-opus-4-5": anthropic(5, 25),
  "claude-opus-4-1": anthropic(15, 75),
  "claude-opus-4-0": anthropic(15, 75),
  "claude-opus-4": anthropic(15, 75),
  "claude-sonnet-4-5": anthropic(3, 15),
  "claude-sonnet-4-0": anthropic(3, 15),
  "claude-sonnet-4": anthropic(3, 15),
  "claude-3-7-sonnet": anthropic(3, 15),
  "claude-haiku-4-5": anthropic(1, 5),
  "claude-3-5-haiku": anthropic(0.8, 4),
  // Claude 3 Haiku's cache prices are its own, not 0.1x and 1.25x of input.
  "claude-3-haiku": { ...anthropic(0.25, 1.25), cachedInput: 0.03, cacheWrite: 0.3 },
};

/**
 * The shortest prefix, in tokens, a provider caches for a model: OpenAI caches prompts from 1,024
 * tokens on; Anthropic from 1,024 tokens for most models, 2,048 for the Haiku 3 models and 4,096
 * for Claude Opus 4.5 and Haiku 4.5 (the prompt caching guide, platform.claude.com). A shorter
 * prefix marked cacheable is simply not cached.
 */
export function cacheMinTokens(model: string | null): number {
  const base = model === null ? "" : baseModelName(model);
  if (base === "claude-opus-4-5" || base === "claude-haiku-4-5") return 4096;
  if (base === "claude-3-5-haiku" || base === "claude-3-haiku") return 2048;
  return 1024;
}

export interface Price extends ModelPrice {
  /** workflow: from its `pricing:`; built-in: from BUILT_IN_PRICES. */
  source: "workflow" | "built-in";
}

/**
 * The price of a model: the workflow's entry for its exact name, else the built-in price of its
 * name without a `provider/` prefix or a dated or `-latest` suffix (gpt-4.1-mini-2025-04-14 and
 * claude-sonnet-4-5-20250929 are priced as gpt-4.1-mini and claude-sonnet-4-5). Null: unknown.
 */
export function priceFor(model: string | null, pricing: Readonly<Record<string, ModelPrice>> = {}): Price | null {
  if (model === null) return null;
  const own = Object.hasOwn(pricing, model) ? pricing[model] : undefined;
  if (own) return { ...own, source: "workflow" };
  const base = baseModelName(model);
  const builtIn = Object.hasOwn(BUILT_IN_PRICES, base) ? BUILT_IN_PRICES[base] : undefined;
  return builtIn ? { ...builtIn, source: "built-in" } : null;
}

export function baseModelName(model: string): string {
  return model
    .slice(model.lastIndexOf("/") + 1)
    .toLowerCase()
    .replace(/-(latest|\d{4}-\d{2}-\d{2}|\d{8})$/, "");
}

/**
 * USD for the given tokens at the given price: input the prompt cache served at the cached-input
 * price, input written to it at the cache-write price, the rest at the input price, and all of it
 * less the batch discount when bought through a batch API.
 */
export function costOf(tokens: TokenUsage, price: ModelPrice): number {
  const read = Math.min(Math.max(tokens.cacheRead ?? 0, 0), tokens.input);
  const write = Math.min(Math.max(tokens.cacheWrite ?? 0, 0), tokens.input - read);
  const fresh = tokens.input - read - write;
  const usd = fresh * price.input + read * (price.cachedInput ?? price.input) + write * (price.cacheWrite ?? price.input) + tokens.output * price.output;
  return (usd / 1_000_000) * (tokens.batch ? 1 - (price.batchDiscount ?? 0) : 1);
}

/** US dollars: cents from $1 up, two significant digits below (an estimate is not more precise). */
export function usd(amount: number): string {
  if (amount === 0) return "$0.00";
  if (amount >= 1) return `$${amount.toFixed(2)}`;
  if (amount < 0.000001) return "<$0.000001";
  return `$${amount.toPrecision(2)}`;
}

/** A budget as given on the command line: dollars, with or without "$"; undefined if not one. */
export function parseUsd(text: string): number | undefined {
  const value = text.trim().replace(/^\$/, "");
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(value)) return undefined;
  return Number(value);
}
