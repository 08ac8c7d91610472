/**
 * Runs at a provider's rate limit, on a simulated clock (test/schedule/simulated.ts): a provider that
 * enforces per-minute buckets as OpenAI and Anthropic do (full at the start, refilled continuously,
 * 429 with a retry time when over), 1 s per answer, each call 700 prompt tokens and max_tokens 300.
 * For each scenario: the wall time against the ideal the limit allows (the tokens beyond the first
 * full bucket at the limit's rate, and the last answer), and the 429s per 100 answered calls. The
 * first row is what a run did before pacing: every call as soon as a slot is free, a 429 retried
 * after its retry time, given up after 5 attempts.
 *
 *   PAIRFLOW_BENCH_ONLY=ratelimits npm run bench
 */
import { performance } from "node:perf_hooks";
import { limiter } from "../src/model/limiter.js";
import type { RateCost } from "../src/model/ports.js";
import { Pacer } from "../src/schedule/pacer.js";
import { pacedCall, SimulatedClock, SimulatedProvider, simulateRun } from "../test/schedule/simulated.js";
import type { ProviderLimits } from "../test/helpers/rateLimits.js";

const LATENCY_MS = 1000;
const COST: RateCost = { input: 700, output: 300 };

interface Row {
  scenario: string;
  pairs: number;
  failed: number;
  wallMs: number;
  idealMs: number;
  refused: number;
  answered: number;
  realMs: number;
}

function idealMs(pairs: number, limits: ProviderLimits): number {
  const tokens = pairs * (COST.input + COST.output);
  return (Math.max(0, tokens - limits.tokensPerMinute) / limits.tokensPerMinute) * 60_000 + LATENCY_MS;
}

/** Before pacing: calls as fast as 16 slots allow, a 429 retried after its retry time, given up after 5 attempts. */
async function unpaced(pairs: number, limits: ProviderLimits): Promise<Row> {
  const t0 = performance.now();
  const clock = new SimulatedClock();
  const provider = new SimulatedProvider(clock, limits, LATENCY_MS);
  const slot = limiter(16);
  let failed = 0;
  const call = async () => {
    for (let attempt = 1; ; attempt++) {
      const answer = await provider.call(COST.input + COST.output);
      if (answer.status !== 429) return;
      if (attempt === 5) {
        failed++;
        return;
      }
      const wait = Math.min(60_000, Number(answer.header("retry-after") ?? "1") * 1000);
      await new Promise<void>((resolve) => clock.setTimer(resolve, wait));
    }
  };
  const start = clock.now();
  await clock.run(Promise.all(Array.from({ length: pairs }, () => slot(call))));
  const { accepted, refused } = provider.buckets.counts;
  return {
    scenario: "before: 16 at once, 5 attempts",
    pairs,
    failed,
    wallMs: clock.now() - start,
    idealMs: idealMs(pairs, limits),
    refused,
    answered: accepted,
    realMs: performance.now() - t0,
  };
}

async function paced(scenario: string, pairs: number, limits: ProviderLimits, options: { auto: boolean; configured?: boolean }): Promise<Row> {
  const t0 = performance.now();
  const clock = new SimulatedClock();
  const provider = new SimulatedProvider(clock, limits, LATENCY_MS);
  const concurrency = options.auto ? { cap: 32, start: 4 } : { cap: 16, start: 16 };
  const pacer = new Pacer({
    clock,
    concurrency,
    ...(options.configured ? { limits: { tokensPerMinute: limits.tokensPerMinute, requestsPerMinute: limits.requestsPerMinute } } : {}),
  });
  const wallMs = await simulateRun(
    clock,
    pacer,
    provider,
    Array.from({ length: pairs }, () => COST),
    concurrency.cap,
  );
  const { accepted, refused } = provider.buckets.counts;
  return { scenario, pairs, failed: pairs - accepted, wallMs, idealMs: idealMs(pairs, limits), refused, answered: accepted, realMs: performance.now() - t0 };
}

async function shards(pairs: number, limits: ProviderLimits): Promise<Row> {
  const t0 = performance.now();
  const clock = new SimulatedClock();
  const provider = new SimulatedProvider(clock, limits, LATENCY_MS);
  const pacers = [0, 1, 2].map(() => new Pacer({ clock, share: 1 / 3, concurrency: { cap: 16, start: 16 } }));
  const start = clock.now();
  await clock.run(Promise.all(pacers.map((pacer) => Promise.all(Array.from({ length: pairs / 3 }, () => pacedCall(pacer, provider, COST))))));
  const { accepted, refused } = provider.buckets.counts;
  return {
    scenario: "3 shards at once, 1/3 each",
    pairs,
    failed: pairs - accepted,
    wallMs: clock.now() - start,
    idealMs: idealMs(pairs, limits),
    refused,
    answered: accepted,
    realMs: performance.now() - t0,
  };
}

export async function benchRateLimits(): Promise<string[]> {
  const openai: ProviderLimits = { requestsPerMinute: 500, tokensPerMinute: 72_000, headers: "openai" };
  const anthropic: ProviderLimits = { requestsPerMinute: 50, tokensPerMinute: 36_000, headers: "anthropic" };
  const rows = [
    await unpaced(240, openai),
    await paced("openai headers, --concurrency 16", 240, openai, { auto: false }),
    await paced("openai headers, auto", 240, openai, { auto: true }),
    await unpaced(120, anthropic),
    await paced("anthropic headers, auto", 120, anthropic, { auto: true }),
    await paced("no headers, rate_limit set", 240, { ...openai, headers: "none" }, { auto: true, configured: true }),
    await shards(240, openai),
  ];
  const s = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  return [
    "== runs at a provider's rate limit (simulated clock, 1 s per answer, 1,000 tokens a call)",
    "scenario                          pairs  failed    wall   ideal  ratio  429s per 100 answers  (real time)",
    ...rows.map(
      (r) =>
        `${r.scenario.padEnd(32)}  ${String(r.pairs).padStart(5)}  ${String(r.failed).padStart(6)}  ${s(r.wallMs).padStart(6)}  ${s(r.idealMs).padStart(6)}  ${(r.wallMs / r.idealMs).toFixed(2).padStart(5)}  ${((100 * r.refused) / Math.max(1, r.answered)).toFixed(1).padStart(20)}  (${r.realMs.toFixed(0)} ms)`,
    ),
  ];
}
