/**
 * A clock whose time moves only when everything that can run has run, to the next timer: minutes
 * of paced traffic pass in milliseconds, and what happens is the same every time. And a provider
 * on that clock that enforces per-minute buckets (test/helpers/rateLimits.ts), answering after a
 * fixed latency, with calls made as src/generators/http.ts makes them: a turn from the pacer, the
 * call, a refusal waited for and asked again, never counted as an attempt.
 */
import { limiter } from "../../src/model/limiter.js";
import type { Pacing, RateCost } from "../../src/model/ports.js";
import type { Clock } from "../../src/schedule/clock.js";
import { RateBuckets, type ProviderLimits } from "../helpers/rateLimits.js";

interface Timer {
  at: number;
  order: number;
  fn: () => void;
  cancelled: boolean;
}

export class SimulatedClock implements Clock {
  private time: number;
  private timers: Timer[] = [];
  private order = 0;

  constructor(start = Date.UTC(2026, 10, 28, 2, 0, 0)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const timer = { at: this.time + Math.max(0, ms), order: this.order++, fn, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** Runs until `done` settles, moving time to the next timer whenever nothing else can run. */
  async run<T>(done: Promise<T>): Promise<T> {
    let settled = false;
    void done.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return done;
      this.timers = this.timers.filter((t) => !t.cancelled);
      if (this.timers.length === 0) throw new Error("nothing left to happen, and the run is not over");
      let next = this.timers[0]!;
      for (const t of this.timers) if (t.at < next.at || (t.at === next.at && t.order < next.order)) next = t;
      this.timers.splice(this.timers.indexOf(next), 1);
      this.time = next.at;
      next.fn();
    }
  }
}

export interface Answer {
  status: number;
  header(name: string): string | null;
}

export class SimulatedProvider {
  readonly buckets: RateBuckets;

  constructor(
    private readonly clock: SimulatedClock,
    limits: ProviderLimits,
    private readonly latencyMs: number,
  ) {
    this.buckets = new RateBuckets(limits, () => clock.now());
  }

  /** When each call with a shared beginning arrived and was answered, in order of arrival. */
  readonly sharing: { shared: string; sent: number; answered: number }[] = [];

  /** Counts the call as it arrives; answers at once when refused, else after the latency. */
  call(tokens: number, shared?: string): Promise<Answer> {
    const { refused, headers } = this.buckets.charge(tokens);
    if (shared !== undefined && !refused) this.sharing.push({ shared, sent: this.clock.now(), answered: this.clock.now() + this.latencyMs });
    const answer = { status: refused ? 429 : 200, header: (name: string) => headers[name] ?? null };
    return new Promise((resolve) => this.clock.setTimer(() => resolve(answer), refused ? 5 : this.latencyMs));
  }
}

/** One call of a pair, as the providers' generators make it. */
export async function pacedCall(
  pacing: Pacing,
  provider: SimulatedProvider,
  cost: RateCost,
  signal = new AbortController().signal,
  shared?: string,
): Promise<void> {
  for (;;) {
    const turn = await pacing.turn({ id: "budget", host: "api.example.com" }, cost, signal, shared);
    const answer = await provider.call(cost.input + cost.output, shared);
    if (answer.status === 429) {
      turn.limited(answer.header);
      continue;
    }
    turn.answered(answer.header);
    return;
  }
}

/** `costs.length` pairs, at most `slots` at once, each one call; the simulated time it took. */
export async function simulateRun(clock: SimulatedClock, pacing: Pacing, provider: SimulatedProvider, costs: RateCost[], slots: number): Promise<number> {
  const start = clock.now();
  const slot = limiter(slots);
  await clock.run(Promise.all(costs.map((cost) => slot(() => pacedCall(pacing, provider, cost)))));
  return clock.now() - start;
}
