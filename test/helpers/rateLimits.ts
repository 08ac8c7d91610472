/**
 * A provider's rate limits as OpenAI and Anthropic enforce them: a bucket of requests and one of
 * tokens per minute, each full at the start and refilled continuously; a request is counted when it
 * arrives (its prompt's tokens and its max_tokens), and refused with 429 and a retry time when a
 * bucket does not hold it. Every answer carries the provider's headers (OpenAI's `x-ratelimit-*`,
 * Anthropic's `anthropic-ratelimit-*`), or none, as endpoints that enforce limits silently do.
 * Driven by any clock: the simulated one of test/schedule, or the time of a loopback service.
 */
export interface ProviderLimits {
  requestsPerMinute: number;
  tokensPerMinute: number;
  /** Whose headers every answer carries; none: no rate headers at all (a 429 still says retry-after). */
  headers: "openai" | "anthropic" | "none";
  /** How long the provider's minute is; default 60,000 ms. A shorter one scales a test down. */
  minuteMs?: number;
}

interface Bucket {
  capacity: number;
  level: number;
}

export class RateBuckets {
  private readonly requests: Bucket;
  private readonly tokens: Bucket;
  private at: number;
  private readonly minuteMs: number;
  /** Requests counted, and refused. */
  readonly counts = { accepted: 0, refused: 0 };

  constructor(
    private readonly limits: ProviderLimits,
    private readonly now: () => number,
  ) {
    this.requests = { capacity: limits.requestsPerMinute, level: limits.requestsPerMinute };
    this.tokens = { capacity: limits.tokensPerMinute, level: limits.tokensPerMinute };
    this.at = now();
    this.minuteMs = limits.minuteMs ?? 60_000;
  }

  /** Counts a request of `tokens` arriving now; the headers to answer it with, and whether it is refused. */
  charge(tokens: number): { refused: boolean; headers: Record<string, string> } {
    const now = this.now();
    for (const bucket of [this.requests, this.tokens]) {
      bucket.level = Math.min(bucket.capacity, bucket.level + ((now - this.at) * bucket.capacity) / this.minuteMs);
    }
    this.at = now;
    const refused = this.requests.level < 1 || this.tokens.level < Math.min(tokens, this.tokens.capacity);
    if (refused) {
      this.counts.refused++;
      const short = Math.max(
        ((1 - this.requests.level) * this.minuteMs) / this.requests.capacity,
        ((Math.min(tokens, this.tokens.capacity) - this.tokens.level) * this.minuteMs) / this.tokens.capacity,
      );
      return { refused, headers: { ...this.rateHeaders(now), "retry-after": String(Math.ceil(short / 1000)), "retry-after-ms": String(Math.ceil(short)) } };
    }
    this.counts.accepted++;
    this.requests.level -= 1;
    this.tokens.level -= tokens;
    return { refused, headers: this.rateHeaders(now) };
  }

  private rateHeaders(now: number): Record<string, string> {
    const untilFull = (b: Bucket) => (Math.max(0, b.capacity - b.level) * this.minuteMs) / b.capacity;
    const left = (b: Bucket) => String(Math.max(0, Math.floor(b.level)));
    const { requests, tokens } = this;
    switch (this.limits.headers) {
      case "none":
        return {};
      case "openai":
        return {
          "x-ratelimit-limit-requests": String(requests.capacity),
          "x-ratelimit-remaining-requests": left(requests),
          "x-ratelimit-reset-requests": goDuration(untilFull(requests)),
          "x-ratelimit-limit-tokens": String(tokens.capacity),
          "x-ratelimit-remaining-tokens": left(tokens),
          "x-ratelimit-reset-tokens": goDuration(untilFull(tokens)),
        };
      case "anthropic": {
        const at = (ms: number) => new Date(now + ms).toISOString();
        return {
          "anthropic-ratelimit-requests-limit": String(requests.capacity),
          "anthropic-ratelimit-requests-remaining": left(requests),
          "anthropic-ratelimit-requests-reset": at(untilFull(requests)),
          "anthropic-ratelimit-tokens-limit": String(tokens.capacity),
          "anthropic-ratelimit-tokens-remaining": left(tokens),
          "anthropic-ratelimit-tokens-reset": at(untilFull(tokens)),
        };
      }
    }
  }
}

/** A duration as OpenAI writes its resets: `6m0s`, `1.5s`, `20ms`. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms - minutes * 60_000) / 10) / 100;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}
