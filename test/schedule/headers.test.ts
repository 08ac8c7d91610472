/** Reading each provider's rate headers as it writes them. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { duration, readRateHeaders } from "../../src/schedule/headers.js";
import { goDuration } from "../helpers/rateLimits.js";

const from = (headers: Record<string, string>) => (name: string) => headers[name] ?? null;
const NOW = Date.UTC(2026, 10, 28, 2, 0, 0);

describe("rate headers", () => {
  it("reads OpenAI's durations as it writes them, to the millisecond", () => {
    expect(duration("6m0s")).toBe(360_000);
    expect(duration("1s")).toBe(1000);
    expect(duration("20ms")).toBe(20);
    expect(duration("1h2m3.5s")).toBe(3_723_500);
    expect(duration("soon")).toBeUndefined();
    fc.assert(fc.property(fc.integer({ min: 0, max: 3_600_000 }), (ms) => Math.abs(duration(goDuration(ms))! - ms) <= 10));
  });

  it("reads OpenAI's requests and tokens: limit, what is left, when full again", () => {
    const told = readRateHeaders(
      from({
        "x-ratelimit-limit-requests": "500",
        "x-ratelimit-remaining-requests": "499",
        "x-ratelimit-reset-requests": "120ms",
        "x-ratelimit-limit-tokens": "72000",
        "x-ratelimit-remaining-tokens": "71000",
        "x-ratelimit-reset-tokens": "833ms",
      }),
      NOW,
    );
    expect(told).toEqual({
      readings: { requests: { limit: 500, remaining: 499, resetMs: 120 }, tokens: { limit: 72_000, remaining: 71_000, resetMs: 833 } },
    });
  });

  it("reads Anthropic's four buckets, their resets RFC 3339 times", () => {
    const at = (ms: number) => new Date(NOW + ms).toISOString();
    const headers: Record<string, string> = {};
    for (const [name, left] of [
      ["requests", 49],
      ["tokens", 30_000],
      ["input-tokens", 20_000],
      ["output-tokens", 10_000],
    ] as const) {
      headers[`anthropic-ratelimit-${name}-limit`] = "50000";
      headers[`anthropic-ratelimit-${name}-remaining`] = String(left);
      headers[`anthropic-ratelimit-${name}-reset`] = at(1500);
    }
    const told = readRateHeaders(from(headers), NOW);
    expect(told.readings).toEqual({
      requests: { limit: 50_000, remaining: 49, resetMs: 1500 },
      tokens: { limit: 50_000, remaining: 30_000, resetMs: 1500 },
      input: { limit: 50_000, remaining: 20_000, resetMs: 1500 },
      output: { limit: 50_000, remaining: 10_000, resetMs: 1500 },
    });
  });

  it("takes retry-after-ms over retry-after, and retry-after in seconds or as an HTTP date", () => {
    expect(readRateHeaders(from({ "retry-after": "2", "retry-after-ms": "1250" }), NOW).retryAfterMs).toBe(1250);
    expect(readRateHeaders(from({ "retry-after": "2" }), NOW).retryAfterMs).toBe(2000);
    expect(readRateHeaders(from({ "retry-after": new Date(NOW + 3000).toUTCString() }), NOW).retryAfterMs).toBe(3000);
  });

  it("reads nothing from an answer without them, or with values that are no numbers", () => {
    expect(readRateHeaders(from({}), NOW)).toEqual({ readings: {} });
    expect(readRateHeaders(from({ "x-ratelimit-remaining-tokens": "lots", "retry-after": "later" }), NOW)).toEqual({ readings: {} });
  });
});
