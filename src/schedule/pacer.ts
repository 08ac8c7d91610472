/**
 * When a provider call goes: pacing by the provider's own accounting, so that a run goes at the
 * speed its account allows and is not refused for going faster.
 *
 * One budget per endpoint, key and model (the providers count each model apart), named by a hash
 * of them (never the key), shared by every call of the run: first attempts, retries, the
 * synchronous calls that stand in for a batch's answer. A budget is a bucket per thing the provider
 * counts (requests, tokens, and Anthropic's input and output tokens), refilled continuously as the
 * providers refill theirs:
 * - every answer's headers say what is left, the bucket's size and when it is full again: the level
 *   is set to what the provider says, less every other call of this process in flight, which the
 *   provider may not have counted yet (counted twice rather than not at all), and the refill rate is
 *   what the reset says it is;
 * - a limit the provider does not say (vLLM, Ollama, proxies) comes from the workflow or the caller
 *   (`rate_limit`), per minute, the bucket full at the start;
 * - each call's cost is estimated before it goes: its prompt's tokens and the output it may ask for
 *   (max_tokens), as the providers count a request against the limit when it arrives;
 * - one of N processes sharing an account (shards of one fan-out) takes 1/N of every bucket, and
 *   still reads what the provider says is left, which counts everyone's calls.
 *
 * A call is held (first come, first served) until every bucket holds its cost and the provider's
 * last refusal has passed its retry time. A refusal (429) is a wait, not an attempt: the call waits
 * for the time the provider gave, then for its turn again. Only the run's longest wait ends a wait,
 * with RateLimitWaitError. How many calls are in flight at once is found too: up to the run's cap,
 * growing while answers come and halving on a refusal. And calls that share a beginning long enough
 * for the provider's prompt cache go one first: the others wait for its answer, and read what it
 * wrote instead of each writing it again.
 */
import { GeneratorError, RateLimitWaitError, type PacedTurn, type Pacing, type RateCost, type RateLimits } from "../model/ports.js";
import type { PacingReport } from "../model/run.js";
import type { Clock } from "./clock.js";
import { DIMENSIONS, readRateHeaders, type Dimension, type RateHeaders } from "./headers.js";

export const MINUTE_MS = 60_000;
/** The first wait after a refusal that gave no time to wait, doubled on each refusal in a row. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;

export interface PacerOptions {
  clock: Clock;
  /** The longest a call may wait for its turn, in milliseconds; default: as long as it takes. */
  maxWaitMs?: number;
  /** Limits for every endpoint of the run, over those its workflow gives (the caller's). */
  limits?: RateLimits;
  /** This process's share of every budget: 1/N for one of N shards spending one account. Default 1. */
  share?: number;
  /**
   * Calls in flight per budget. A number: at most that many, halved on a refusal and grown back.
   * auto: start at `start` and grow while answers come, up to `cap`.
   */
  concurrency?: { cap: number; start: number };
  /** How long a minute of `rate_limit` is; tests shorten it. */
  minuteMs?: number;
}

export class Pacer implements Pacing {
  private readonly budgets = new Map<string, Budget>();
  readonly stats = { calls: 0, held: 0, waitedMs: 0, refused: 0 };

  constructor(readonly options: PacerOptions) {}

  turn(budget: { id: string; host: string; limits?: RateLimits }, cost: RateCost, signal: AbortSignal, shared?: string): Promise<PacedTurn> {
    let b = this.budgets.get(budget.id);
    if (!b) {
      // The caller's limits win over the workflow's, each apart.
      const given = this.options.limits;
      const limits: RateLimits = { ...budget.limits };
      if (given?.requestsPerMinute !== undefined) limits.requestsPerMinute = given.requestsPerMinute;
      if (given?.tokensPerMinute !== undefined) limits.tokensPerMinute = given.tokensPerMinute;
      b = new Budget(this, budget.host, limits);
      this.budgets.set(budget.id, b);
    }
    return b.turn(cost, signal, shared);
  }

  /** Calls held for their budget now. */
  waiting(): number {
    let n = 0;
    for (const b of this.budgets.values()) n += b.holding();
    return n;
  }

  /** What pacing did so far. */
  summary(): PacingReport {
    const now = this.options.clock.now();
    let waitedMs = this.stats.waitedMs;
    for (const b of this.budgets.values()) waitedMs += b.heldFor(now);
    return { ...this.stats, waitedMs, budgets: [...this.budgets.values()].map((b) => b.limits()) };
  }
}

interface Bucket {
  /** Its size (this process's share of it); undefined until known. */
  capacity: number | undefined;
  /** Refill per millisecond (this process's share). */
  rate: number;
  /** What is left, as of `at`; below zero when more was sent than the bucket held. */
  level: number;
  at: number;
  /** The call whose answer set the level last; later calls' answers only move it. */
  applied: number;
  /** Whether the provider's headers keep it (else a configured limit does). */
  told: boolean;
}

interface Waiter {
  cost: Record<Dimension, number>;
  /** The beginning it shares with other calls, for the provider's prompt cache. */
  shared: string | undefined;
  resolve(turn: PacedTurn): void;
  reject(error: Error): void;
  /** Whether it was ever held for the budget. */
  held: boolean;
  dispose(): void;
}

class Budget {
  private readonly buckets = new Map<Dimension, Bucket>();
  /** Calls sent and not yet answered, by sequence number, with their costs. */
  private readonly inFlight = new Map<number, Record<Dimension, number>>();
  private readonly queue: Waiter[] = [];
  /** Beginnings calls share, for the provider's prompt cache: being written by a first call, or written. */
  private readonly beginnings = new Map<string, "writing" | "written">();
  private seq = 0;
  private blockedUntil = 0;
  private refusedInARow = 0;
  private window: number;
  private readonly cap: number;
  private refusedOnce = false;
  private cancelTimer: (() => void) | undefined;
  /** Since when the first call in line has been held for the budget. */
  private heldSince: number | undefined;
  private readonly share: number;
  private readonly minuteMs: number;

  constructor(
    private readonly pacer: Pacer,
    private readonly host: string,
    configured: RateLimits,
  ) {
    const { options } = pacer;
    this.share = options.share ?? 1;
    this.minuteMs = options.minuteMs ?? MINUTE_MS;
    this.cap = Math.max(1, options.concurrency?.cap ?? Number.POSITIVE_INFINITY);
    this.window = Math.min(this.cap, Math.max(1, options.concurrency?.start ?? this.cap));
    const now = options.clock.now();
    const full = (perMinute: number): Bucket => {
      const capacity = perMinute * this.share;
      return { capacity, rate: capacity / this.minuteMs, level: capacity, at: now, applied: -1, told: false };
    };
    if (configured.requestsPerMinute !== undefined) this.buckets.set("requests", full(configured.requestsPerMinute));
    if (configured.tokensPerMinute !== undefined) this.buckets.set("tokens", full(configured.tokensPerMinute));
  }

  turn(rateCost: RateCost, signal: AbortSignal, shared: string | undefined): Promise<PacedTurn> {
    const cost: Record<Dimension, number> = { requests: 1, tokens: rateCost.input + rateCost.output, input: rateCost.input, output: rateCost.output };
    const { clock, maxWaitMs } = this.pacer.options;
    return new Promise<PacedTurn>((resolve, reject) => {
      if (signal.aborted) return reject(new GeneratorError("cancelled"));
      const leave = (error: Error) => {
        const at = this.queue.indexOf(waiter);
        if (at < 0) return;
        this.queue.splice(at, 1);
        waiter.dispose();
        if (at === 0) this.heldUntil(clock.now());
        reject(error);
        this.pump();
      };
      const onAbort = () => leave(new GeneratorError("cancelled"));
      signal.addEventListener("abort", onAbort, { once: true });
      const cancelDeadline =
        maxWaitMs === undefined
          ? undefined
          : clock.setTimer(
              () =>
                leave(
                  new RateLimitWaitError(`waited ${seconds(maxWaitMs)} for ${this.host}'s rate limit, the longest a call may wait; the pair is interrupted`),
                ),
              maxWaitMs,
            );
      const waiter: Waiter = {
        cost,
        shared,
        resolve,
        reject,
        held: false,
        dispose: () => {
          signal.removeEventListener("abort", onAbort);
          cancelDeadline?.();
        },
      };
      this.queue.push(waiter);
      this.pump();
    });
  }

  /** Lets the first calls in line go while the budget allows; else sets a timer for when it will. */
  private pump(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    const { clock } = this.pacer.options;
    while (this.queue.length > 0) {
      const now = clock.now();
      // Answers free places in flight, and pump again; a call waiting for one is not held for the budget.
      if (this.inFlight.size >= Math.floor(this.window)) return this.heldUntil(now);
      // A call whose beginning another call is writing to the provider's prompt cache waits for its
      // answer, to read it; the calls behind it go meanwhile.
      const at = this.queue.findIndex((w) => w.shared === undefined || this.beginnings.get(w.shared) !== "writing");
      if (at < 0) return this.heldUntil(now);
      const head = this.queue[at]!;
      const wait = Math.max(this.blockedUntil - now, this.budgetWait(head.cost, now));
      if (wait > 0) {
        head.held = true;
        this.heldSince ??= now;
        this.cancelTimer = clock.setTimer(() => this.pump(), Math.ceil(wait));
        return;
      }
      this.queue.splice(at, 1);
      this.heldUntil(now);
      head.dispose();
      head.resolve(this.admit(head, now));
    }
  }

  /** Adds the time the first call in line was held, up to `now`. */
  private heldUntil(now: number): void {
    if (this.heldSince === undefined) return;
    this.pacer.stats.waitedMs += now - this.heldSince;
    this.heldSince = undefined;
  }

  /** Calls in line while the first of them is held for the budget. */
  holding(): number {
    return this.heldSince === undefined ? 0 : this.queue.length;
  }

  heldFor(now: number): number {
    return this.heldSince === undefined ? 0 : now - this.heldSince;
  }

  /** How long until every bucket holds `cost` (a cost larger than a bucket waits for it to be full). */
  private budgetWait(cost: Record<Dimension, number>, now: number): number {
    let wait = 0;
    for (const [dimension, bucket] of this.buckets) {
      const capacity = bucket.capacity ?? Number.POSITIVE_INFINITY;
      const need = Math.min(cost[dimension], capacity);
      const short = need - this.level(bucket, now, dimension);
      if (short <= 0) continue;
      // Held by calls in flight rather than by the refill: their answers let it go (and pump).
      const refill = capacity - this.pending(dimension) >= need && bucket.rate > 0;
      wait = Math.max(wait, refill ? short / bucket.rate : FIRST_BACKOFF_MS);
    }
    return wait;
  }

  /**
   * What a bucket holds at `now`, refilled since its level was set, and never more than its size less
   * the calls in flight: a call reaches the provider a while after it went, and a bucket that was
   * full meanwhile did not refill.
   */
  private level(bucket: Bucket, now: number, dimension: Dimension): number {
    const refilled = bucket.level + bucket.rate * Math.max(0, now - bucket.at);
    return Math.min((bucket.capacity ?? Number.POSITIVE_INFINITY) - this.pending(dimension), refilled);
  }

  /** What the calls in flight cost. */
  private pending(dimension: Dimension): number {
    let sum = 0;
    for (const cost of this.inFlight.values()) sum += cost[dimension];
    return sum;
  }

  /**
   * Gives the call its turn at `now`. Times the provider gives as dates (Anthropic's resets) are read
   * from then: the provider wrote them somewhere between the call's going and its answer, and
   * counting from the earlier time never makes a bucket refill faster than it does.
   */
  private admit(waiter: Waiter, now: number): PacedTurn {
    const seq = this.seq++;
    for (const [dimension, bucket] of this.buckets) {
      bucket.level = this.level(bucket, now, dimension) - waiter.cost[dimension];
      bucket.at = now;
    }
    this.inFlight.set(seq, waiter.cost);
    // The first call of a shared beginning writes it to the prompt cache: the others wait to read it.
    const writes = waiter.shared !== undefined && !this.beginnings.has(waiter.shared);
    if (writes) this.beginnings.set(waiter.shared!, "writing");
    const written = (done: boolean) => {
      if (!writes) return;
      if (done) this.beginnings.set(waiter.shared!, "written");
      else this.beginnings.delete(waiter.shared!);
    };
    const stats = this.pacer.stats;
    stats.calls++;
    if (waiter.held) stats.held++;
    let done = false;
    const end = (how: () => void) => {
      if (done) return;
      done = true;
      how();
      this.pump();
    };
    return {
      answered: (header) =>
        end(() => {
          this.observe(seq, readRateHeaders(header, now), waiter.cost);
          this.inFlight.delete(seq);
          written(true);
          this.refusedInARow = 0;
          this.window = Math.min(this.cap, this.window + (this.refusedOnce ? 1 / this.window : 1));
        }),
      limited: (header) =>
        end(() => {
          const told = readRateHeaders(header, now);
          const answeredAt = this.pacer.options.clock.now();
          // Refused: the provider did not count it, whether it was taken off here as it went or as a
          // call in flight when a later answer set the level.
          const cost = this.inFlight.get(seq)!;
          this.inFlight.delete(seq);
          written(false);
          for (const [dimension, bucket] of this.buckets) bucket.level += cost[dimension];
          this.observe(seq, told);
          stats.refused++;
          this.refusedOnce = true;
          this.window = Math.max(1, this.window / 2);
          const wait = told.retryAfterMs ?? this.resetWait(told, cost) ?? Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** this.refusedInARow);
          this.refusedInARow++;
          this.blockedUntil = Math.max(this.blockedUntil, answeredAt + wait);
        }),
      failed: () =>
        end(() => {
          this.inFlight.delete(seq);
          written(false);
        }),
    };
  }

  /** Without a retry time: when the buckets the call did not fit in are full again, as far as the provider said. */
  private resetWait(told: RateHeaders, cost: Record<Dimension, number>): number | undefined {
    let wait: number | undefined;
    for (const dimension of DIMENSIONS) {
      const reading = told.readings[dimension];
      if (reading?.resetMs !== undefined && reading.remaining < cost[dimension]) wait = Math.max(wait ?? 0, reading.resetMs);
    }
    return wait;
  }

  /** Takes what an answer to call `seq` says is left; `counted`: what the provider counted of the call. */
  private observe(seq: number, told: RateHeaders, counted?: Record<Dimension, number>): void {
    const now = this.pacer.options.clock.now();
    for (const dimension of DIMENSIONS) {
      const reading = told.readings[dimension];
      if (!reading) continue;
      let bucket = this.buckets.get(dimension);
      if (!bucket || !bucket.told) {
        bucket = { capacity: undefined, rate: 0, level: 0, at: now, applied: -1, told: true };
        this.buckets.set(dimension, bucket);
      }
      const { limit, remaining, resetMs } = reading;
      bucket.capacity = limit !== undefined ? limit * this.share : Math.max(bucket.capacity ?? 0, remaining * this.share);
      // The rate the reset gives, once enough is spent for it to say much; else a minute's refill.
      if (limit !== undefined && resetMs !== undefined && resetMs > 0 && limit - remaining >= Math.max(1, limit / 20)) {
        bucket.rate = ((limit - remaining) * this.share) / resetMs;
      } else if (bucket.rate === 0) {
        bucket.rate = bucket.capacity / MINUTE_MS;
      }
      // Every other call in flight may have reached the provider after this one did, whichever
      // went first: each is taken as not counted yet.
      let uncounted = 0;
      for (const [other, cost] of this.inFlight) if (other !== seq) uncounted += cost[dimension];
      const said = remaining * this.share - uncounted;
      if (seq > bucket.applied) {
        bucket.level = said;
        bucket.applied = seq;
      } else {
        // An earlier call's answer, after a later one's set the level: that one took this call as not
        // counted, which it most likely was, having gone first; unless what this answer says is less.
        bucket.level = Math.min(this.level(bucket, now, dimension) + (counted?.[dimension] ?? 0), said);
      }
      bucket.at = now;
    }
  }

  limits(): PacingReport["budgets"][number] {
    const perMinute = (dimension: Dimension) => {
      const capacity = this.buckets.get(dimension)?.capacity;
      return capacity === undefined ? undefined : Math.round(capacity / this.share);
    };
    const requests = perMinute("requests");
    const tokens = perMinute("tokens") ?? perMinute("input");
    return {
      host: this.host,
      ...(requests === undefined ? {} : { requestsPerMinute: requests }),
      ...(tokens === undefined ? {} : { tokensPerMinute: tokens }),
    };
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}
