/**
 * What a provider's answer says of its rate limits, as each provider writes it:
 * - OpenAI (and compatible services): `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`,
 *   the reset a duration until the bucket is full again (`6m0s`, `1s`, `20ms`);
 * - Anthropic: `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
 *   the reset an RFC 3339 time;
 * - either, on a refusal: `retry-after` (seconds or an HTTP date) and `retry-after-ms`.
 */

/** What a provider counts: requests, tokens, and (Anthropic) input and output tokens apart. */
export type Dimension = "requests" | "tokens" | "input" | "output";

export const DIMENSIONS: readonly Dimension[] = ["requests", "tokens", "input", "output"];

export interface Reading {
  /** The bucket's size, when the provider says it. */
  limit?: number;
  remaining: number;
  /** Milliseconds until the bucket is full again, when the provider says it. */
  resetMs?: number;
}

export interface RateHeaders {
  readings: Partial<Record<Dimension, Reading>>;
  /** How long the provider asks a refused request to wait, in milliseconds. */
  retryAfterMs?: number;
}

type Header = (name: string) => string | null;

const OPENAI: Partial<Record<Dimension, string>> = { requests: "requests", tokens: "tokens" };
const ANTHROPIC: Record<Dimension, string> = { requests: "requests", tokens: "tokens", input: "input-tokens", output: "output-tokens" };

/** The rate-limit headers of an answer received at `now`; empty when it has none. */
export function readRateHeaders(header: Header, now: number): RateHeaders {
  const readings: RateHeaders["readings"] = {};
  for (const dimension of Object.keys(ANTHROPIC) as Dimension[]) {
    const openai = OPENAI[dimension];
    const reading =
      read(
        header(`anthropic-ratelimit-${ANTHROPIC[dimension]}-limit`),
        header(`anthropic-ratelimit-${ANTHROPIC[dimension]}-remaining`),
        header(`anthropic-ratelimit-${ANTHROPIC[dimension]}-reset`),
        now,
      ) ??
      (openai === undefined
        ? undefined
        : read(header(`x-ratelimit-limit-${openai}`), header(`x-ratelimit-remaining-${openai}`), header(`x-ratelimit-reset-${openai}`), now));
    if (reading) readings[dimension] = reading;
  }
  const retryAfterMs = count(header("retry-after-ms")) ?? retryAfter(header("retry-after"), now);
  return retryAfterMs === undefined ? { readings } : { readings, retryAfterMs };
}

function read(limit: string | null, remaining: string | null, reset: string | null, now: number): Reading | undefined {
  const left = count(remaining);
  if (left === undefined) return undefined;
  const reading: Reading = { remaining: left };
  const size = count(limit);
  if (size !== undefined) reading.limit = size;
  const resetMs = reset === null ? undefined : (duration(reset) ?? until(reset, now));
  if (resetMs !== undefined) reading.resetMs = resetMs;
  return reading;
}

function count(text: string | null): number | undefined {
  if (text === null || !/^\s*\d+(\.\d+)?\s*$/.test(text)) return undefined;
  return Number(text);
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * A Go-style duration as OpenAI writes its resets (`6m0s`, `1.5s`, `20ms`, `1h2m3s`), or a bare
 * number of seconds as some proxies do; undefined for anything else.
 */
export function duration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const m of trimmed.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return total;
}

/** Milliseconds from `now` until an RFC 3339 time (Anthropic's resets); never negative. */
function until(text: string, now: number): number | undefined {
  if (!/^\d{4}-\d\d-\d\dT/.test(text.trim())) return undefined;
  const at = Date.parse(text.trim());
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Retry-After: seconds, or an HTTP date. */
export function retryAfter(text: string | null, now: number): number | undefined {
  if (text === null) return undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
