/**
 * What models cost. A workflow's `pricing:` wins; otherwise the built-in table below. A model in
 * neither has no price, and its cost is "unknown": pairflow never makes a number up.
 */
import type { ModelPrice } from "../model/workflow.js";

/**
 * When the built-in prices were taken: the providers' published list prices (standard tier,
 * uncached input, no batch discount) as of this month, from openai.com/api/pricing and Anthropic's
 * pricing page (docs.anthropic.com). Prices change: put current ones under `pricing:`.
 */
export const BUILT_IN_PRICES_AS_OF = "2026-03";

/** USD per million tokens, by model name. */
export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice>> = {
  // OpenAI
  "gpt-5": { input: 1.25, output: 10 },
  "gpt-5-mini": { input: 0.25, output: 2 },
  "gpt-5-nano": { input: 0.05, output: 0.4 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  o3: { input: 2, output: 8 },
  "o3-mini": { input: 1.1, output: 4.4 },
  "o4-mini": { input: 1.1, output: 4.4 },
  // Anthropic (Sonnet's price for prompts up to 200K tokens)
  "claude-opus-4-5": { input: 5, output: 25 },
  "claude-opus-4-1": { input: 15, output: 75 },
  "claude-opus-4-0": { input: 15, output: 75 },
  "claude-opus-4": { input: 15, output: 75 },
  "claude-sonnet-4-5": { input: 3, output: 15 },
  "claude-sonnet-4-0": { input: 3, output: 15 },
  "claude-sonnet-4": { input: 3, output: 15 },
  "claude-3-7-sonnet": { input: 3, output: 15 },
  "claude-haiku-4-5": { input: 1, output: 5 },
  "claude-3-5-haiku": { input: 0.8, output: 4 },
  "claude-3-haiku": { input: 0.25, output: 1.25 },
};

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

/** USD for the given tokens at the given price. */
export function costOf(tokens: { input: number; output: number }, price: ModelPrice): number {
  return (tokens.input * price.input + tokens.output * price.output) / 1_000_000;
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
