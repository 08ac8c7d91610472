/**
 * Provider batches behind the ordinary Generator port, so the engine stays as it is: it awaits one
 * generator call per attempt, whether the answer comes from the synchronous endpoint or a batch.
 *
 * How a wave becomes one batch. The engine tells the batcher which pairs may have their calls
 * batched as they start and end (BatchWave: join, leave); such a pair holds no slot of the run, so
 * every pair the run can start does start. A batched pair is "busy" until it calls its generator,
 * then "waiting" until its answer is delivered. Calls are gathered per provider and endpoint (and
 * model, for OpenAI, whose input files take one) and sent once every batched pair in flight is
 * waiting or has ended, checked after the event loop has run what was ready: first attempts and
 * retries alike, each asked once (two pairs asking the very same thing share one request). The
 * answers are delivered as the batch ends, the pairs judge them, and what they ask next (retries,
 * the dependents that became ready) is the next wave's batch.
 *
 * Never asked twice. Before anything is sent, the batch is recorded (BatchLedger) with a key of
 * pairflow's own, every request's custom_id and a digest of what it asks; then its id once created.
 * A call that asks what a recorded batch asks is answered from it: by its stored result when it
 * ended, else by collecting it. So a killed or interrupted run, resumed or run again (here or on a
 * fresh runner, from the CI snapshot), collects its batch rather than submitting it again; a batch
 * recorded but never heard back from (killed as it was created) is looked for at the provider by
 * its key first. Requests a cancelled batch did not get to are sent again; requests it expired or
 * errored go to the synchronous endpoint, or fail their pair, as generator_config.batch_fallback
 * says. Cancelling the run cancels the batches it waits for; `wait: false` (`--no-wait`) sends
 * batches without waiting for them: their pairs end waiting (BatchPendingError), and a later run
 * collects them.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { limiter } from "../model/limiter.js";
import {
  BatchPendingError,
  GeneratorError,
  type BatchLedger,
  type BatchWave,
  type GenerateRequest,
  type GenerateResult,
  type Generator,
} from "../model/ports.js";
import type { BatchRecord, BatchResult } from "../model/records.js";
import type { BatchCounts, BatchEvent } from "../model/run.js";
import type { Pair } from "../model/workflow.js";
import { plain } from "../model/values.js";
import { sha256Hex } from "../refs/hash.js";
import { anthropicCall, anthropicResult } from "./anthropic.js";
import { BATCH_LIMITS, batchApi, type BatchApi, type BatchOutcome, type BatchStatus } from "./batchApi.js";
import { UnansweredError, type ProviderCall } from "./http.js";
import { openaiCall, openaiResult } from "./openai.js";

/** How often a batch's status is asked for when nothing says otherwise (PAIRFLOW_BATCH_POLL_MS). */
export const DEFAULT_POLL_MS = 60_000;

export interface BatcherOptions {
  ledger: BatchLedger;
  /** Every openai and anthropic pair's calls go in batches (`run --batch`); else only those with generator_config.batch. */
  all: boolean;
  /** false: send batches and do not wait for them (`--no-wait`); batches sent before are looked at once. */
  wait: boolean;
  pollMs: number;
  /** The run's concurrency: batched pairs sent to the synchronous endpoint instead go at most this many at once. */
  concurrency: number;
  /** The run's cancellation: the batches it waits for are cancelled at the provider. */
  signal: AbortSignal;
  onEvent(event: BatchEvent): void;
  onWarning(message: string): void;
  /**
   * Where a pair stands in the plan. A batch lists its requests in that order, whatever order they
   * came in: a provider fills its prompt cache from a batch's requests in order, so which request
   * writes a shared beginning and which read it is then the plan's (as the estimate says), not the
   * order in which the disk let pairs end.
   */
  order?: (pair: string) => number;
}

type Provider = "openai" | "anthropic";

/** What a call gets from a batch. */
type Answer =
  | { kind: "result"; result: GenerateResult }
  | { kind: "failed"; failed: "errored" | "expired" | "invalid"; message: string; batch: string }
  /** Not answered: it was never sent, or its batch was cancelled before it: ask again. */
  | { kind: "again" }
  /** Its batch has not ended and the run does not wait. */
  | { kind: "pending"; batch: string };

interface Tracked {
  record: BatchRecord;
  /** A call of one of its requests: where the batch API is, with what headers. */
  call?: ProviderCall;
  /** This run's callers by custom_id. */
  waiters: Map<string, ((answer: Answer) => void)[]>;
  collecting?: Promise<void>;
  /** custom_ids whose answers this run handed out. */
  used: Set<string>;
  /** The provider could not be asked about it in this run: kept, whatever the run's end, for a later one. */
  unreached?: boolean;
}

interface Queued {
  call: ProviderCall;
  asked: string;
  pair: string;
  waiters: ((answer: Answer) => void)[];
}

export class Batcher implements BatchWave {
  /** Batched pairs in flight: true while waiting on a batch. */
  private readonly members = new Map<string, boolean>();
  /** Calls gathered for the next batch, per provider and endpoint, each asked once. */
  private readonly queue = new Map<string, Map<string, Queued>>();
  private readonly tracked = new Map<string, Tracked>();
  /** Where each thing asked was asked: batch key and custom_id, newest last. */
  private readonly byAsked = new Map<string, { key: string; customId: string }[]>();
  private flushSoon = false;
  /** Submissions, collections and cancellations in flight. */
  private readonly work = new Set<Promise<unknown>>();
  /** Stops collections when the run is over. */
  private readonly closing = new AbortController();
  private readonly signal: AbortSignal;
  /** Whether batches sent before are on record: then every provider pair may be answered from one. */
  private readonly collecting: boolean;
  /** Rejects as the run is cancelled: every waiting call races it (one listener on the run's signal, not one a call). */
  private readonly cancelled: Promise<never>;
  /** Calls to the synchronous endpoint in place of a batch's answer, at most the run's concurrency at once. */
  private readonly syncTurns: <T>(task: () => Promise<T>) => Promise<T>;

  constructor(private readonly options: BatcherOptions) {
    this.signal = AbortSignal.any([options.signal, this.closing.signal]);
    for (const record of options.ledger.batches()) this.track(record);
    this.collecting = this.tracked.size > 0;
    this.syncTurns = limiter(options.concurrency);
    this.cancelled = new Promise<never>((_, reject) => {
      const cancel = () => {
        this.cancelAll();
        reject(new GeneratorError("cancelled"));
      };
      if (options.signal.aborted) cancel();
      else options.signal.addEventListener("abort", cancel, { once: true });
    });
    this.cancelled.catch(() => undefined);
  }

  // -------------------------------------------------------------------------------------------
  // The wave

  batched(pair: Pair): boolean {
    if (pair.generator !== "openai" && pair.generator !== "anthropic") return false;
    return this.options.all || this.collecting || plain(pair.generatorConfig.batch) === true;
  }

  join(pair: string): void {
    this.members.set(pair, false);
  }

  leave(pair: string): void {
    this.members.delete(pair);
    this.checkWave();
  }

  /** Waits for `answer` as a waiting member: the wave may be sent meanwhile. */
  private async waiting(pair: string, answer: () => Promise<Answer>): Promise<Answer> {
    const member = this.members.has(pair);
    if (member) this.members.set(pair, true);
    this.checkWave();
    try {
      return await Promise.race([answer(), this.cancelled]);
    } finally {
      if (member && this.members.has(pair)) this.members.set(pair, false);
    }
  }

  /**
   * Sends what is gathered once every batched pair in flight waits: checked after the event loop
   * has run everything ready (setImmediate), so that pairs an answer or an end made ready have
   * started and joined first.
   */
  private checkWave(): void {
    if (this.flushSoon) return;
    this.flushSoon = true;
    setImmediate(() => {
      this.flushSoon = false;
      if (this.queue.size === 0 || [...this.members.values()].some((waiting) => !waiting)) return;
      const groups = [...this.queue.values()];
      this.queue.clear();
      const order = this.options.order;
      const byPlan = order ? (a: Queued, b: Queued) => order(a.pair) - order(b.pair) : undefined;
      for (const group of groups) for (const chunk of chunks([...group.values()].sort(byPlan))) this.spawn(this.submit(chunk));
    });
  }

  // -------------------------------------------------------------------------------------------
  // Calls

  /** The generator `name` (openai or anthropic), answering from batches where it should; `sync` otherwise. */
  generator(name: Provider, sync: Generator): Generator {
    return (request) => this.generate(name, sync, request);
  }

  private async generate(name: Provider, sync: Generator, request: GenerateRequest): Promise<GenerateResult> {
    const call = name === "openai" ? openaiCall(request) : anthropicCall(request);
    const asked = askedDigest(call);
    const batched = this.members.has(request.pairId) && (this.options.all || request.config.batch === true);
    let answer: Answer = { kind: "again" };
    // Asked before, in a batch on record: answered from it, never asked again.
    const before = this.lookup(asked);
    if (before) answer = await this.waiting(request.pairId, () => this.answerFrom(before.key, before.customId, call));
    for (let sent = 0; answer.kind === "again" && batched && sent < 2; sent++) {
      answer = await this.waiting(request.pairId, () => this.enqueue(call, asked, request.pairId));
    }
    switch (answer.kind) {
      case "result":
        return answer.result;
      case "pending":
        throw new BatchPendingError(`waiting for ${call.provider} batch ${answer.batch}: pairflow run or pairflow resume collects it`);
      case "failed": {
        const why = `${call.provider} batch ${answer.batch} did not answer ${request.pairId}'s request (${answer.failed}: ${answer.message})`;
        if (answer.failed === "invalid") throw new GeneratorError(answer.message);
        if (plain(request.config.batch_fallback) === "fail") throw new GeneratorError(`${why}; batch_fallback is fail`);
        this.options.onWarning(`${why}; asking the synchronous endpoint instead`);
        return this.syncTurns(() => sync(request));
      }
      case "again":
        return batched ? this.syncTurns(() => sync(request)) : sync(request);
    }
  }

  /** The newest batch on record that asked this, unless it was cancelled before answering it. */
  private lookup(asked: string): { key: string; customId: string } | undefined {
    const places = this.byAsked.get(asked) ?? [];
    for (let i = places.length - 1; i >= 0; i--) {
      const place = places[i]!;
      const result = this.tracked.get(place.key)?.record.results?.[place.customId];
      if (result && "failed" in result && result.failed === "canceled") continue;
      if (this.tracked.has(place.key)) return place;
    }
    return undefined;
  }

  private enqueue(call: ProviderCall, asked: string, pair: string): Promise<Answer> {
    const group = JSON.stringify([
      call.provider,
      call.url,
      Object.entries(call.headers).sort(),
      call.provider === "openai" ? field(call.asked, "model") : null,
    ]);
    const requests = this.queue.get(group) ?? this.queue.set(group, new Map()).get(group)!;
    return new Promise((resolve) => {
      const queued = requests.get(asked) ?? requests.set(asked, { call, asked, pair, waiters: [] }).get(asked)!;
      queued.waiters.push(resolve);
      this.checkWave();
    });
  }

  /** A request's answer from a batch on record: its stored result, or its result once collected. */
  private answerFrom(key: string, customId: string, call: ProviderCall): Promise<Answer> {
    const t = this.tracked.get(key)!;
    t.call ??= call;
    const stored = this.storedAnswer(t, customId);
    if (stored) return Promise.resolve(stored);
    return new Promise((resolve) => {
      (t.waiters.get(customId) ?? t.waiters.set(customId, []).get(customId)!).push(resolve);
      this.collect(t);
    });
  }

  private storedAnswer(t: Tracked, customId: string): Answer | undefined {
    const result = t.record.results?.[customId];
    if (t.record.state !== "ended" || result === undefined) return undefined;
    const batch = t.record.id ?? t.record.key;
    if ("failed" in result) return result.failed === "canceled" ? { kind: "again" } : { kind: "failed", failed: result.failed, message: result.message, batch };
    const content = this.options.ledger.content(result.contentHash);
    // Its content lost here (another machine collected it): collected again from the provider.
    if (content === undefined) return undefined;
    // Used by an earlier run (that reported buying it) or already in this one: handed out again, bought once.
    const before = t.record.used?.includes(customId) || t.used.has(customId);
    t.used.add(customId);
    const tokens = result.tokens ? { tokens: { ...result.tokens, batch: true } } : {};
    return { kind: "result", result: { content, ...tokens, ...(before ? { replayed: { at: t.record.collected ?? t.record.at } } : {}) } };
  }

  // -------------------------------------------------------------------------------------------
  // Batches

  private track(record: BatchRecord): Tracked {
    const t: Tracked = { record, waiters: new Map(), used: new Set() };
    this.tracked.set(record.key, t);
    for (const r of record.requests) (this.byAsked.get(r.asked) ?? this.byAsked.set(r.asked, []).get(r.asked)!).push({ key: record.key, customId: r.customId });
    return t;
  }

  private put(t: Tracked, change: Partial<BatchRecord>): void {
    t.record = { ...t.record, ...change };
    this.options.ledger.put(t.record);
  }

  /** Records the batch, creates it, records its id; then collects it (or, not waiting, leaves it to a later run). */
  private async submit(queued: Queued[]): Promise<void> {
    const key = randomBytes(8).toString("hex");
    const call = queued[0]!.call;
    const requests = queued.map((q, i) => ({ customId: `${key}-${i}`, asked: q.asked, pair: q.pair }));
    const t = this.track({ key, provider: call.provider, endpoint: call.url, at: new Date().toISOString(), requests, state: "submitting" });
    t.call = call;
    queued.forEach((q, i) => t.waiters.set(requests[i]!.customId, q.waiters));
    this.options.ledger.put(t.record);
    let api: BatchApi;
    try {
      api = batchApi(call);
      const id = await api.submit(
        queued.map((q, i) => ({ customId: requests[i]!.customId, body: q.call.body })),
        key,
        (file) => this.put(t, { file }),
        this.signal,
      );
      this.put(t, { id, state: "submitted" });
    } catch (err) {
      if (this.signal.aborted) return this.deliverAll(t, { kind: "again" });
      // Perhaps created, never heard back: the collection looks for it by its key first.
      if (err instanceof UnansweredError) return this.collect(t);
      // Not created: the requests fall back as a failed batch's would.
      this.options.ledger.drop([key]);
      this.tracked.delete(key);
      return this.deliverAll(t, { kind: "failed", failed: "errored", message: (err as Error).message, batch: "(not created)" });
    }
    this.emit(t, "submitted", { ...NONE, processing: requests.length });
    if (!this.options.wait) {
      this.emit(t, "waiting", { ...NONE, processing: requests.length });
      return this.deliverAll(t, { kind: "pending", batch: t.record.id! });
    }
    return this.collect(t);
  }

  /** Collects a batch once, however many callers wait for it. */
  private collect(t: Tracked): Promise<void> {
    if (!t.collecting) {
      t.collecting = this.collecting_(t).catch((err: unknown) => {
        t.collecting = undefined;
        if (this.signal.aborted) return;
        // The provider could not be asked (down, a key revoked): this run's callers fail; the batch stays on record.
        t.unreached = true;
        const message = (err as Error).message;
        for (const waiters of t.waiters.values())
          for (const w of waiters) w({ kind: "failed", failed: "invalid", message, batch: t.record.id ?? t.record.key });
        t.waiters.clear();
      });
      this.spawn(t.collecting);
    }
    return t.collecting;
  }

  private async collecting_(t: Tracked): Promise<void> {
    const api = batchApi(t.call!);
    let { id } = t.record;
    let found = false;
    if (id === undefined) {
      // Recorded, then killed before its id was: was it created?
      id = await api.find(t.record.key, t.record.at, t.record.requests.length, this.signal);
      if (id === undefined) {
        this.options.ledger.drop([t.record.key]);
        this.tracked.delete(t.record.key);
        return this.deliverAll(t, { kind: "again" });
      }
      found = true;
      this.put(t, { id, state: "submitted" });
      this.emit(t, "submitted", { ...NONE, processing: t.record.requests.length });
    }
    let shown = "";
    for (;;) {
      const status = await api.status(id, this.signal);
      if (status.ended) return this.ended(t, api, status, found);
      const counts = JSON.stringify(status.counts);
      if (counts !== shown) this.emit(t, "progress", status.counts);
      shown = counts;
      if (!this.options.wait) {
        this.emit(t, "waiting", status.counts);
        return this.deliverAll(t, { kind: "pending", batch: id });
      }
      await sleep(this.options.pollMs, undefined, { signal: this.signal });
    }
  }

  /** Reads an ended batch's results, keeps them (contents in the local store), and answers its callers. */
  private async ended(t: Tracked, api: BatchApi, status: BatchStatus, found: boolean): Promise<void> {
    const outcomes = await api.results(t.record.id!, status, this.signal);
    // A batch found by its size and time (Anthropic keeps no metadata) is ours only if its custom_ids are.
    if (found && ![...outcomes.keys()].some((c) => c.startsWith(`${t.record.key}-`))) {
      this.options.ledger.drop([t.record.key]);
      this.tracked.delete(t.record.key);
      return this.deliverAll(t, { kind: "again" });
    }
    const missing: BatchOutcome =
      status.status === "expired"
        ? { kind: "expired", message: "the batch expired" }
        : status.status === "cancelled" || status.status === "canceling"
          ? { kind: "canceled", message: "the batch was cancelled" }
          : { kind: "errored", message: status.problem ?? `the batch ended ${status.status} without an answer to it` };
    const results: Record<string, BatchResult> = {};
    for (const { customId } of t.record.requests) results[customId] = this.keep(t.record.provider, outcomes.get(customId) ?? missing);
    this.put(t, { state: "ended", results, collected: new Date().toISOString() });
    this.emit(t, "ended", status.counts);
    for (const [customId, waiters] of t.waiters) {
      const answer = this.storedAnswer(t, customId) ?? { kind: "again" as const };
      for (const w of waiters) w(answer);
    }
    t.waiters.clear();
  }

  /** One outcome as kept: a succeeded answer's content in the local store, its usage, at the batch price. */
  private keep(provider: Provider, outcome: BatchOutcome): BatchResult {
    if (outcome.kind !== "succeeded") return { failed: outcome.kind, message: outcome.message };
    try {
      const result = provider === "openai" ? openaiResult(outcome.body, []) : anthropicResult(outcome.body, []);
      const content = typeof result.content === "string" ? result.content : result.content.toString("utf8");
      return { contentHash: this.options.ledger.putContent(content), tokens: result.tokens ? { ...result.tokens, batch: true } : null };
    } catch (err) {
      return { failed: "invalid", message: (err as Error).message };
    }
  }

  private deliverAll(t: Tracked, answer: Answer): void {
    for (const waiters of t.waiters.values()) for (const w of waiters) w(answer);
    t.waiters.clear();
  }

  private emit(t: Tracked, state: BatchEvent["state"], counts: BatchCounts): void {
    this.options.onEvent({ type: "batch", provider: t.record.provider, id: t.record.id ?? t.record.key, state, requests: t.record.requests.length, counts });
  }

  private spawn(task: Promise<unknown>): void {
    const p = task.catch(() => undefined).finally(() => this.work.delete(p));
    this.work.add(p);
  }

  /** The run is cancelled: every batch it waits for is cancelled at the provider (what it finished is still collected later). */
  private cancelAll(): void {
    for (const t of this.tracked.values()) {
      const { id } = t.record;
      if (id === undefined || t.record.state !== "submitted" || t.waiters.size === 0 || !t.call) continue;
      this.put(t, { state: "cancelling" });
      this.emit(t, "cancelled", { ...NONE, processing: t.record.requests.length });
      const call = t.call;
      this.spawn(
        batchApi(call)
          .cancel(id, AbortSignal.timeout(Math.min(call.settings.timeoutSeconds, 30) * 1000))
          .catch((err: unknown) => {
            this.options.onWarning(`could not cancel ${t.record.provider} batch ${id}: ${(err as Error).message}`);
          }),
      );
    }
  }

  /**
   * The run is over: waits for cancellations to be sent. A run that ended (`final`: it succeeded or
   * failed, nothing waiting) has had every answer it needs: the batches are forgotten (but one whose
   * provider could not be reached), and what a later run asks again is asked anew. Until then,
   * whatever asks what a batch asked gets its answer, so a pair that starts its attempts over (a
   * later `run`, a fresh runner) replays them at no cost up to where it was.
   */
  async close(final: boolean): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.work]);
    const forget = Date.now() - FORGET_AFTER_MS;
    // Nobody asked for it again within the providers' retention of results: it is of no use.
    const done = [...this.tracked.values()].filter((t) => (final && !t.unreached) || Date.parse(t.record.at) < forget);
    this.options.ledger.drop(done.map((t) => t.record.key));
    // Kept for a later run: what this one used is marked, so that using it again is known to buy nothing.
    for (const t of this.tracked.values()) {
      if (done.includes(t) || t.used.size === 0) continue;
      const used = new Set([...(t.record.used ?? []), ...t.used]);
      if (used.size > (t.record.used?.length ?? 0)) this.put(t, { used: [...used] });
    }
  }
}

const NONE: BatchCounts = { processing: 0, succeeded: 0, errored: 0, expired: 0, canceled: 0 };

/** Batches older than this are forgotten: the providers keep results for about a month (OpenAI 30 days, Anthropic 29). */
const FORGET_AFTER_MS = 28 * 24 * 3600_000;

/**
 * What a call asks, as a digest: the provider, the endpoint and the body without what only changes
 * how it travels (cache markers). Two calls that ask the same are answered by the same result.
 */
export function askedDigest(call: ProviderCall): string {
  return sha256Hex(JSON.stringify([call.provider, call.url, call.asked]));
}

/** The batches a wave's calls to one endpoint need: within the provider's limits of requests and bytes. */
function chunks(queued: Queued[]): Queued[][] {
  if (queued.length === 0) return [];
  const limits = BATCH_LIMITS[queued[0]!.call.provider];
  const out: Queued[][] = [[]];
  let bytes = 0;
  for (const q of queued) {
    const size = JSON.stringify(q.call.body).length + 200;
    const current = out[out.length - 1]!;
    if (current.length > 0 && (current.length >= limits.requests || bytes + size > limits.bytes)) {
      out.push([q]);
      bytes = size;
    } else {
      current.push(q);
      bytes += size;
    }
  }
  return out;
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
