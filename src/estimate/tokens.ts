/**
 * Counting the tokens of a prompt. OpenAI's current models (gpt-4o, gpt-4.1, gpt-4.5, gpt-5, the
 * o-series) use the o200k_base encoding, which js-tiktoken ships inside its package: it is counted
 * exactly, offline. Every other model is approximated as characters / 4, and said to be.
 *
 * The encoding adds about 2.3 MB to the bundle and takes about half a second to build, so it is
 * built on first use only: a plan whose running pairs use no OpenAI model never pays for it.
 */
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";

/** How a count was made: a real tokenizer, or the documented approximation. */
export type TokenMethod = "o200k_base" | "approximate";

/** Characters per token of the approximation: a common rule of thumb for English text and code. */
export const CHARS_PER_TOKEN = 4;

/**
 * What an OpenAI chat request adds to its one user message: 3 tokens per message, 1 for the role
 * and 3 that prime the reply, as OpenAI documents for counting chat tokens.
 */
export const CHAT_OVERHEAD_TOKENS = 7;

/** Model names (after any `provider/` prefix) of the o200k_base family. */
const O200K = /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o1|o3|o4)(\b|-|$)/;

let o200k: Tiktoken | undefined;

/** The tokenizer for a model, or "approximate" when pairflow has none for its family. */
export function tokenMethod(model: string | null): TokenMethod {
  if (model === null) return "approximate";
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  return O200K.test(name) ? "o200k_base" : "approximate";
}

/** Tokens of `text` for `model`, with how they were counted. */
export function countTokens(text: string, model: string | null): { tokens: number; method: TokenMethod } {
  const method = tokenMethod(model);
  if (method === "approximate") return { tokens: Math.ceil(text.length / CHARS_PER_TOKEN), method };
  o200k ??= new Tiktoken(o200kBase);
  // No special tokens: a prompt that contains "<|endoftext|>" is sent, and counted, as plain text.
  return { tokens: o200k.encode(text, [], []).length, method };
}
