/**
 * Executes a plan. A pair starts as soon as all its dependencies are accepted, at most
 * `concurrency` at once. The plan's decisions stand, except for the pairs whose reference it could
 * not know (a dependency was to run): each is decided when it becomes ready, with its dependencies'
 * actual outcomes, by the planner's own rule, so a dependent of a pair that re-ran with
 * byte-identical content is reused (early cutoff). Accepted artifacts go to the store, the pair's
 * output file and the lock file (each change recorded as it happens, the file rewritten when its
 * writer chooses and at the end).
 *
 * Everything it touches is handed to it: generators, guards, the store, output files, the lock file
 * writer, a remote store and scratch files.
 */
import { utf8Text } from "../model/text.js";
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { OwnComponents, Plan, PlannedPair, Upstream } from "../model/plan.js";
import {
  BatchPendingError,
  RateLimitWaitError,
  type ArtifactStore,
  type BatchWave,
  type Generator,
  type Guard,
  type GuardResult,
  type OutputFiles,
  type ReadTrace,
  type ReadTracer,
  type RemoteArtifact,
  type CommandLimits,
  type Sandbox,
  type Scratch,
} from "../model/ports.js";
import type { Redact } from "../model/redact.js";
import { lockEntry, type LockEntry, type LockFile, type RequestEntry, type StoreRecord, type TokenUsage } from "../model/records.js";
import { dict } from "../model/dict.js";
import { limiter, type Limiter } from "../model/limiter.js";
import type { AttemptRecord, PairOutcome, PairStatus, ResumeState, ReuseKind, Reused, RunEvent, RunReport } from "../model/run.js";
import { plain } from "../model/values.js";
import { commandNetwork, DEFAULT_MAX_OUTPUT_BYTES, type Pair } from "../model/workflow.js";
import { pairKey } from "../refs/keys.js";
import { contentNeeded, plannedComponents } from "../plan/plan.js";
import { byProviderAndModel, renderPromptParts, sharedPrefixes } from "../prompt/render.js";
import { guardKey, requestKey } from "../refs/request.js";
import { componentDigests, configRef, withObserved } from "../refs/configRef.js";
import { acceptedBytes } from "../refs/accepted.js";

export const DEFAULT_CONCURRENCY = 4;

/** What the engine drives and writes to. */
export interface EngineDeps {
  /** The generator called `name`; throws (naming those that exist) when there is none. */
  generator(name: string | null): Generator;
  guard(name: string | null): Guard;
  store: ArtifactStore;
  outputs: OutputFiles;
  /** A store shared between machines: the source of content the plan found there, and given every acceptance. */
  remote?: {
    readonly name: string;
    fetch(pair: string, configRef: string): Promise<RemoteArtifact | undefined>;
    save(artifact: RemoteArtifact): Promise<void>;
    /** Its request index: what it holds for a request, an entry's content, and what this run adds. */
    requests?(key: string): RequestEntry[];
    requestContent?(hash: string): Promise<Buffer | undefined>;
    saveRequest?(key: string, entry: RequestEntry, content: Buffer): void;
  };
  /** The lock file: each change recorded (surviving a kill) before the next step; `close` completes the file. */
  lockFile: { record(id: string, entry: LockEntry | null): void; close(): void };
  scratch: Scratch;
  /**
   * For a shard of a fanned-out run: the pairs this process executes; every other pair that is to
   * run is awaited from the shard that owns it instead (its artifact, verified, or why it is not coming).
   */
  shard?: {
    owns(id: string): boolean;
    await(id: string, configRef: string, signal: AbortSignal): Promise<{ content: Buffer; contentHash: string; note: string } | { missing: string }>;
  };
  /** Decides a pair again with its dependencies' actual outcomes: the planner's own rule. */
  decide(id: string, decided: ReadonlyMap<string, PlannedPair>, options?: { lost?: boolean }): Promise<PlannedPair>;
  /**
   * For a traced run: of the files a pair's commands read (absolute paths), those that may be part
   * of its reference and that it does not name already, relative to the workflow file, with their
   * hashes.
   */
  observe?(pair: Pair, own: OwnComponents, reads: readonly string[]): Record<string, string>;
  /**
   * Provider batches (src/generators/batch.ts): a pair whose calls may be batched waits for its
   * batch without holding a slot, and is announced as it starts and ends, so that a batch holds
   * everything its wave asks.
   */
  batches?: BatchWave;
}

export interface EngineOptions {
  runId: string;
  /** The lock file the plan was made against; the run keeps it current. */
  lock: LockFile | null;
  concurrency?: number;
  /**
   * Pairs whose generator calls a model (`is`), beside the others: at most `concurrency` of them at
   * once, their guards taking turns among the others' `concurrency`; how many of their calls go at
   * once is the pacer's to find (src/schedule/). Absent: every pair counts against `concurrency`.
   */
  modelPairs?: { concurrency: number; is(pair: Pair): boolean };
  /** The environment generators and guards receive (see src/app/environment.ts). */
  env: { generator: NodeJS.ProcessEnv; guard: NodeJS.ProcessEnv };
  /** Where their commands run confined; absent: unconfined. */
  sandbox?: Sandbox;
  /** What each of their commands may take (src/processes/limits.ts); absent: no limit of pairflow's. */
  limits?: CommandLimits;
  /** Runs their commands traced (`--trace-reads`): what they read that the reference does not name is recorded as observed. */
  trace?: ReadTracer;
  /**
   * Cleans what generators and guards report (feedback, stderr, errors) of secrets before it is
   * recorded, shown or put into a prompt; default: as it is.
   */
  redact?: Redact;
  resume?: ResumeState;
  /** Aborting starts nothing new; pairs in flight go on (a graceful stop). */
  stop?: AbortSignal;
  /** Aborting starts nothing new and cancels the pairs in flight, their child processes included. */
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
}

/** Run ids sort by time: 20261122T003012345Z-1a2b. */
export function newRunId(now = new Date()): string {
  return now.toISOString().replace(/[-:.]/g, "") + "-" + randomBytes(2).toString("hex");
}

export function executePlan(plan: Plan, deps: EngineDeps, options: EngineOptions): Promise<RunReport> {
  return new Run(plan, deps, options).execute();
}

class Run {
  private readonly decided = new Map<string, PlannedPair>();
  private readonly outcomes = new Map<string, PairOutcome>();
  /** Content produced or read during this run, by pair id. */
  private readonly contents = new Map<string, Buffer>();
  private readonly lock: LockFile;
  /** Pairs that left the workflow, whose entries leave the lock file. */
  private readonly gone: string[] = [];
  private readonly signal: AbortSignal;
  private readonly started = Date.now();
  /** Settles when the run is asked to stop, so the scheduler notices at once. */
  private readonly stopped: Promise<void>;
  /** Counts down the dependents of a pair that ended (set by the scheduler). */
  private ended: (id: string) => void = () => {};
  /** Saves to the remote store still in flight; the run waits for them before it reports. */
  private readonly saves: Promise<void>[] = [];
  /** The first write that failed: the run stops and ends with it. */
  private fatal: Error | undefined;
  /** How much of each running pair's prompt other running pairs' prompts begin with (see sharedPrefixes). */
  private sharing: Map<string, number> | undefined;
  /** Pairs that wait for a provider batch the run does not wait for (`--no-wait`). */
  private waiting = 0;
  /** Judging by pairs that hold no slot (batched ones) is limited to the run's concurrency all the same. */
  private judging!: Limiter;
  /** Frees the slot of a running pair before it ends (see writeTurn); set by the scheduler. */
  private readonly releases = new Map<string, () => void>();
  /** Settles when a slot was freed early, so the scheduler starts the next pair at once. */
  private freed = settleable();

  constructor(
    private readonly plan: Plan,
    private readonly deps: EngineDeps,
    private readonly options: EngineOptions,
  ) {
    const { workflow } = plan;
    this.lock = { version: 1, workflow: workflow.name, pairs: Object.assign(dict<LockEntry>(), options.lock?.pairs) };
    // Pairs that left the workflow leave the lock file too.
    for (const id of Object.keys(this.lock.pairs)) {
      if (!workflow.pairs.has(id)) {
        delete this.lock.pairs[id];
        this.gone.push(id);
      }
    }
    this.signal = options.signal ?? new AbortController().signal;
    this.stopped = new Promise<void>((resolve) => {
      for (const s of [this.signal, options.stop]) s?.addEventListener("abort", () => resolve(), { once: true });
    });
  }

  async execute(): Promise<RunReport> {
    this.emit({ type: "run_start", runId: this.options.runId, plan: this.plan, resumed: this.options.resume !== undefined });
    try {
      for (const id of this.gone) this.deps.lockFile.record(id, null);
      await this.schedule();
      await Promise.all(this.saves);
    } finally {
      this.deps.scratch.dispose();
      try {
        this.deps.lockFile.close();
      } catch (err) {
        this.fatal ??= err as Error;
      }
    }
    if (this.fatal) throw this.fatal;
    const pairs = this.plan.pairs.map((p) => this.outcomes.get(p.id)!);
    const count = (s: PairStatus) => pairs.filter((p) => p.status === s).length;
    const tokens = { input: 0, output: 0 };
    for (const p of pairs) for (const a of p.attempts) if (a.tokens) addTokens(tokens, a.tokens);
    // Stopped, it was interrupted; else pairs left unfinished wait for batches a later run collects:
    // the run is not over, whatever failed meanwhile.
    const stopped = this.signal.aborted || (this.options.stop?.aborted ?? false);
    const status: RunReport["status"] =
      count("interrupted") > 0 && (stopped || this.waiting === 0)
        ? "interrupted"
        : count("interrupted") > 0
          ? "waiting"
          : count("failed") + count("blocked") > 0
            ? "failed"
            : "success";
    const report: RunReport = {
      version: 1,
      runId: this.options.runId,
      workflowRef: this.plan.workflowRef,
      status,
      pairs,
      totals: {
        pairs: pairs.length,
        executed: count("executed"),
        reused: count("reused"),
        failed: count("failed"),
        blocked: count("blocked"),
        interrupted: count("interrupted"),
        tokens,
        durationMs: Date.now() - this.started,
      },
    };
    this.emit({ type: "run_end", report });
    return report;
  }

  private get stopping(): boolean {
    return this.fatal !== undefined || this.signal.aborted || (this.options.stop?.aborted ?? false);
  }

  /**
   * Starts each pair once all its dependencies have ended, in plan order among those ready: linear
   * in pairs and dependencies, since each pair's end only counts down its own dependents.
   */
  private async schedule(): Promise<void> {
    const concurrency = Math.max(1, this.options.concurrency ?? DEFAULT_CONCURRENCY);
    this.judging = limiter(concurrency);
    const batches = this.deps.batches;
    const { requires, dependents } = this.plan.graph;
    const pairs = this.plan.pairs;
    const position = new Map(pairs.map((p, i) => [p.id, i]));
    const waitingFor = new Map(pairs.map((p) => [p.id, requires.get(p.id)!.length]));
    const shard = this.deps.shard;
    // Waiting for another shard takes no slot: a slot held while waiting could be the one the other
    // shard waits on. Nor does waiting for a provider batch: every pair of the wave starts, so that
    // the batch holds all of them. Such pairs are ready in a list of their own.
    const slotless = (i: number) =>
      (shard !== undefined && pairs[i]!.action === "run" && !shard.owns(pairs[i]!.id)) ||
      (batches?.batched(this.plan.workflow.pairs.get(pairs[i]!.id)!) ?? false);
    const ready: number[] = [];
    const readyFree: number[] = [];
    const isReady = (i: number) => insertSorted(slotless(i) ? readyFree : ready, i);
    pairs.forEach((p, i) => {
      if (waitingFor.get(p.id) === 0) isReady(i);
    });
    this.ended = (id) => {
      for (const d of dependents.get(id)!) {
        const left = waitingFor.get(d);
        if (left === undefined) continue; // not in this run (--only)
        waitingFor.set(d, left - 1);
        if (left === 1) isReady(position.get(d)!);
      }
    };
    const inFlight = new Set<Promise<void>>();
    let busy = 0;
    // Model pairs, when they have slots of their own.
    const models = this.options.modelPairs;
    const isModel = (id: string) => models?.is(this.plan.workflow.pairs.get(id)!) ?? false;
    let busyModels = 0;
    const room = (i: number) => (isModel(pairs[i]!.id) ? busyModels < models!.concurrency : busy < concurrency);
    const start = (id: string, slot: boolean) => {
      // A pair the plan skips needs nothing its dependencies do now (a person's output kept
      // whatever they give): as the plan said, it is reused whatever becomes of them.
      const needs = this.plan.byId.get(id)!.action === "run" ? requires.get(id)! : [];
      const stopped = needs.filter((d) => ["failed", "blocked"].includes(this.outcomes.get(d)?.status ?? ""));
      const waits = needs.filter((d) => this.outcomes.get(d)?.status === "interrupted");
      if (this.stopping) this.finish({ ...this.blocked(id, "not started: the run was interrupted"), status: "interrupted" });
      else if (stopped.length > 0) this.finish(this.blocked(id, `blocked by ${stopped.join(", ")}`));
      else if (waits.length > 0) this.finish({ ...this.blocked(id, `not started: ${waits.join(", ")} did not finish`), status: "interrupted" });
      else {
        const model = slot && isModel(id);
        if (model) busyModels++;
        else if (slot) busy++;
        const batched = !slot && batches !== undefined && batches.batched(this.plan.workflow.pairs.get(id)!);
        if (batched) batches.join(id);
        let held = slot;
        const release = () => {
          if (!held) return;
          held = false;
          if (model) busyModels--;
          else busy--;
        };
        this.releases.set(id, () => {
          release();
          this.freed.resolve();
        });
        const task: Promise<void> = this.handle(id).finally(() => {
          inFlight.delete(task);
          this.releases.delete(id);
          release();
          if (batched) batches.leave(id);
        });
        inFlight.add(task);
      }
    };
    while (ready.length > 0 || readyFree.length > 0 || inFlight.size > 0) {
      // A pair can end as it starts (reused), making others ready in either list at once.
      for (;;) {
        if (readyFree.length > 0) start(pairs[readyFree.shift()!]!.id, false);
        else {
          // The first ready pair, in plan order, whose kind has a slot free.
          const at = ready.findIndex(room);
          if (at < 0) break;
          start(pairs[ready.splice(at, 1)[0]!]!.id, true);
        }
      }
      // Wake on a stop only until it has happened: a settled promise in the race would spin.
      if (inFlight.size > 0) await Promise.race(this.stopping ? [...inFlight, this.freed.promise] : [...inFlight, this.stopped, this.freed.promise]);
      if (this.freed.settled) this.freed = settleable();
    }
  }

  /**
   * A pair's whole course. A write that fails (a full disk, a read-only store) fails the pair and
   * stops the run: nothing new starts, what is in flight finishes, and the run ends with that error.
   */
  private async handle(id: string): Promise<void> {
    try {
      await this.course(id);
    } catch (err) {
      this.fatal ??= err as Error;
      if (!this.outcomes.has(id)) this.finish({ ...this.blocked(id, (err as Error).message), status: "failed" });
    }
  }

  private async course(id: string): Promise<void> {
    let decision = this.plan.byId.get(id)!;
    const pair = this.plan.workflow.pairs.get(id)!;
    // A dependency that did not end accepted leaves the reference unknown: a kept edit stays as
    // the plan had it, its lock entry as it was; a pair to run cannot start.
    const unaccepted = pair.requires.filter((dep) => ["failed", "blocked", "interrupted"].includes(this.outcomes.get(dep)?.status ?? ""));
    if (decision.configRef === null && unaccepted.length > 0) {
      if (decision.action === "skip") return this.reuse(decision, pair);
      return this.finish(this.blocked(id, `blocked by ${unaccepted.join(", ")}`));
    }
    if (decision.configRef === null) {
      decision = await this.deps.decide(id, this.decided);
      // Reusable under the reference its dependencies gave it, but its content is needed and
      // nowhere to be had: it runs again, as the planner would have had it.
      if (decision.action === "skip" && decision.artifact!.content === null && contentNeeded(this.plan.workflow, this.plan.graph, this.plan.byId, id))
        decision = await this.deps.decide(id, this.decided, { lost: true });
      // Its dependency is a kept edit whose own reference is not known (what that depends on failed).
      if (decision.configRef === null && decision.action === "run") {
        const unknown = pair.requires.filter((dep) => this.decided.get(dep)!.configRef === null);
        return this.finish(
          this.blocked(
            id,
            `blocked: the reference of ${unknown.join(", ")} is not known until what ${unknown.length === 1 ? "it depends" : "they depend"} on is accepted`,
          ),
        );
      }
    }
    if (decision.action === "skip") await this.reuse(decision, pair);
    else if (this.deps.shard && !this.deps.shard.owns(id)) await this.awaitShard(decision, this.deps.shard);
    else await this.run(decision, pair);
  }

  // -------------------------------------------------------------------------------------------
  // Reuse

  private async reuse(d: PlannedPair, pair: Pair): Promise<void> {
    const artifact = d.artifact!;
    let note: string | null = null;
    // What generating it used, as its lock entry or record says: what this run does not buy.
    const recorded = lockEntry(this.lock, d.id);
    const spent = d.configRef === null ? undefined : recorded?.configRef === d.configRef ? recorded.tokens : this.deps.store.record(d.id, d.configRef)?.tokens;
    if (artifact.edited) {
      // A hand edit: kept as this pair's accepted artifact, recorded as the human's.
      // Its content is kept where dependents can read it, but it is never recorded as the artifact
      // of a reference: deleting the file regenerates it, and no other pair or machine receives it.
      const file = this.deps.outputs.read(pair)!;
      const content = acceptedBytes(file, artifact.contentHash) ?? file;
      this.contents.set(d.id, content);
      const previous = lockEntry(this.lock, d.id);
      if (d.configRef === null) {
        // What it depends on did not end accepted: its reference is not known, its lock entry stays.
        note = `output ${pair.output} is a hand edit, kept; its lock entry is left as it was until what it depends on is accepted`;
      } else if (d.stale) {
        // Kept though its sources changed: its entry stays as it was, so every later plan names it stale (see below).
      } else if (previous?.source !== "human" || previous.configRef !== d.configRef || previous.contentHash !== artifact.contentHash) {
        this.deps.store.putContent(content);
        this.recordAccepted(d, pair, { contentHash: artifact.contentHash, source: "human", attempts: [], durationMs: 0 }, content);
        note = `output ${pair.output} was edited by hand; kept and recorded as a human artifact`;
      } else {
        note = `output ${pair.output} is a hand edit, kept`;
      }
    } else {
      const remote = artifact.source === "remote" || artifact.content === "remote" ? await this.deps.remote?.fetch(d.id, d.configRef!) : undefined;
      if (remote) {
        this.deps.store.putContent(remote.content);
        this.deps.store.putRecord(remote.record);
        this.emit({ type: "restored", id: d.id, from: this.deps.remote!.name });
      }
      const previous = lockEntry(this.lock, d.id);
      // A piece kept for a person's stale edit keeps its old entry: the next plan names it again.
      if (!d.stale && (previous?.configRef !== d.configRef || previous.contentHash !== artifact.contentHash)) this.restoreLockEntry(d, pair, remote?.record);
      if (artifact.content !== "output") note = this.restoreOutput(pair, artifact.contentHash);
      if (this.plan.byId.get(d.id)!.action === "run") note = this.cutoffNote(pair);
      // A piece a person edited in its file's output: their text stands for it where the file is put together.
      if (d.revision !== undefined) this.contents.set(d.id, Buffer.from(d.revision, "utf8"));
    }
    if (d.stale) note = `${note ? `${note}; ` : ""}a person's edit kept, though its sources changed since (carry_edits: true carries it forward)`;
    this.decided.set(d.id, d);
    const avoided = artifact.edited || !spent || spent.input + spent.output === 0 ? null : spent;
    this.finish({
      id: d.id,
      configRef: d.configRef,
      status: "reused",
      attempts: [],
      contentHash: artifact.contentHash,
      reasons: [],
      durationMs: 0,
      note,
      avoided,
    });
  }

  /** A pair another shard executes: its verified artifact is used as if reused here. */
  private async awaitShard(d: PlannedPair, shard: NonNullable<EngineDeps["shard"]>): Promise<void> {
    const got = await shard.await(d.id, d.configRef!, this.signal);
    if ("missing" in got) {
      this.finish({ ...this.blocked(d.id, got.missing), status: this.signal.aborted ? "interrupted" : "blocked" });
      return;
    }
    this.contents.set(d.id, got.content);
    this.decided.set(d.id, { ...d, action: "skip", artifact: { source: "store", contentHash: got.contentHash, edited: false, content: "store" } });
    this.finish({ id: d.id, configRef: d.configRef, status: "reused", attempts: [], contentHash: got.contentHash, reasons: [], durationMs: 0, note: got.note });
  }

  /** Why a pair the plan had to run was reused: the dependencies that were to run left its reference as it was. */
  private cutoffNote(pair: Pair): string {
    const planned = pair.requires.filter((dep) => this.plan.byId.get(dep)?.action === "run");
    const rerun = planned.filter((dep) => this.outcomes.get(dep)?.status === "executed");
    const reused = planned.filter((dep) => this.outcomes.get(dep)?.status === "reused");
    const parts = [
      ...(rerun.length > 0 ? [`${rerun.join(", ")} re-ran with identical content`] : []),
      ...(reused.length > 0 ? [`${reused.join(", ")} reused`] : []),
    ];
    return `early cutoff: ${parts.join("; ")}`;
  }

  /** Writes the accepted content to an output file that is missing, or that holds content pairflow generated for an older reference. */
  private restoreOutput(pair: Pair, hash: string): string | null {
    if (pair.output === undefined) return null;
    const unwritable = this.deps.outputs.problem(pair);
    if (unwritable !== null) return unwritable;
    const content = this.deps.store.content(hash);
    if (content === undefined) return `output ${pair.output} is not as accepted and its content is not in the local store`;
    this.deps.outputs.write(pair, content);
    this.contents.set(pair.id, content);
    return `restored ${pair.output} from the store`;
  }

  private restoreLockEntry(d: PlannedPair, pair: Pair, remote: StoreRecord | undefined): void {
    const rec = remote ?? this.deps.store.record(d.id, d.configRef!);
    const accepted = rec?.status === "accepted" ? rec : undefined;
    this.setLockEntry(d.id, {
      configRef: d.configRef!,
      contentHash: d.artifact!.contentHash,
      source: accepted?.source ?? "generated",
      model: accepted?.model !== undefined ? accepted.model : pair.model,
      components: plannedComponents(d)!,
      attempts: accepted?.attempts ?? 0,
      tokens: accepted?.tokens ?? { input: 0, output: 0 },
      durationMs: accepted?.durationMs ?? 0,
      acceptedAt: accepted?.at ?? new Date().toISOString(),
      ...observedFiles(d.own),
    });
  }

  // -------------------------------------------------------------------------------------------
  // Execution

  private async run(d: PlannedPair, pair: Pair): Promise<void> {
    const started = Date.now();
    this.emit({ type: "pair_start", id: d.id, configRef: d.configRef!, reasons: d.reasons });
    // Resuming: attempts this pair already made under the same configuration count, and their
    // feedback is the history the next attempt sees, exactly as if the run had not stopped.
    const earlier = this.options.resume?.attempts.get(d.id);
    const attempts: AttemptRecord[] = earlier?.configRef === d.configRef ? [...earlier.attempts] : [];
    const interrupted = (note = "cancelled: the run was interrupted") =>
      this.finish({
        id: d.id,
        configRef: d.configRef,
        status: "interrupted",
        attempts,
        contentHash: null,
        reasons: d.reasons,
        durationMs: Date.now() - started,
        note,
      });
    const fail = (message: string) => {
      this.deps.store.putRecord({
        pair: d.id,
        configRef: d.configRef!,
        status: "rejected",
        feedback: message,
        components: plannedComponents(d)!,
        at: new Date().toISOString(),
      });
      this.finish({
        id: d.id,
        configRef: d.configRef,
        status: "failed",
        attempts,
        contentHash: null,
        reasons: d.reasons,
        durationMs: Date.now() - started,
        note: message,
      });
    };

    let generate: Generator, guard: Guard | null;
    try {
      generate = this.deps.generator(pair.generator);
      guard = pair.guard === null ? null : this.deps.guard(pair.guard);
    } catch (err) {
      return fail((err as Error).message);
    }
    const dependencies: { id: string; content: string }[] = [];
    for (const dep of pair.requires) {
      const content = this.contentOf(dep);
      if (content === undefined) return fail(`the accepted content of ${dep} is not available (no output file, not in the store); run with --from ${dep}`);
      const text = utf8Text(content);
      if (text === undefined) return fail(`the accepted content of ${dep} is not UTF-8 text, so it cannot become part of ${d.id}'s prompt`);
      dependencies.push({ id: dep, content: text });
    }

    const { workflow } = this.plan;
    const total = pair.rmax + 1;
    const history = attempts.filter((a) => !a.accepted).map((a) => ({ feedback: a.feedback }));
    const maxOutputBytes = pair.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    // --force and `fresh: true` ask for new samples; otherwise an artifact generated for the very
    // same request, which this guard has not rejected, answers it without a call. What either
    // buys answers later requests all the same.
    const reuseRequests = !this.plan.selection.force && pair.fresh !== true;
    const judge = guardKey(d.id, d.own);
    // Traced: what the generator's and the guards' commands read, over every attempt.
    const reads = new Set<string>();
    let generatorTraced = false;
    const tracer = this.options.trace;
    const guardTrace: ReadTrace | undefined = tracer && { argv: () => tracer.argv(), read: (files) => files.forEach((f) => reads.add(f)) };
    const generatorTrace: ReadTrace | undefined = guardTrace && {
      argv: guardTrace.argv,
      read: (files) => {
        generatorTraced = true;
        guardTrace.read(files);
      },
    };
    /**
     * Accepts content. A split file's output holding a person's edits of some pieces is written
     * `written` (the edits kept) while `content`, what pairflow put together, is recorded: the next
     * plan finds the edits again as the difference between the two.
     */
    // The request the accepted content answered, and the index entry it came from, if it did.
    let answered: { prompt: string; attempt: number; tokens: TokenUsage | null; entry?: RequestEntry } | undefined;
    const accept = async (content: Buffer, note: string | null) => {
      if (guardTrace) {
        const before = d;
        d = this.observed(d, pair, [...reads], generatorTraced);
        // The files it was seen to read are part of its request from now on: what answered it is
        // found under that request too, so the next run that asks it makes no call.
        if (d !== before && answered !== undefined) this.recordObserved(answered, d, pair, dependencies, content);
      }
      const written = content;
      if (pair.assembly !== undefined && pair.requires.some((dep) => this.decided.get(dep)?.revision !== undefined)) {
        const generated = pair.requires.map((dep) => ({
          id: dep,
          content: this.deps.store.content(this.decided.get(dep)!.artifact!.contentHash)?.toString("utf8") ?? "",
        }));
        const made = await generate({
          pairId: d.id,
          attempt: 1,
          model: null,
          prompt: "",
          dependencies: generated,
          config: plain(pair.generatorConfig) as Record<string, unknown>,
          cwd: workflow.dir,
          env: {},
          signal: this.signal,
        });
        content = typeof made.content === "string" ? Buffer.from(made.content, "utf8") : made.content;
      }
      const contentHash = this.deps.store.putContent(content);
      this.contents.set(d.id, written);
      const durationMs = Date.now() - started;
      // Acceptance is recorded before the output file is written: a crash in between leaves a
      // file that is missing (restored from the store), never one that looks like a hand edit.
      const unwritable = this.deps.outputs.problem(pair);
      if (unwritable !== null) return fail(unwritable);
      this.recordAccepted(d, pair, { contentHash, source: "generated", attempts, durationMs }, content);
      this.deps.outputs.write(pair, written);
      this.decided.set(d.id, { ...d, action: "skip", artifact: { source: "store", contentHash, edited: false, content: "store" } });
      this.finish({ id: d.id, configRef: d.configRef, status: "executed", attempts, contentHash, reasons: d.reasons, durationMs, note });
    };
    const requestOf = (given: readonly { feedback: string }[], attempt: number) =>
      requestKey({
        pair,
        own: d.own,
        prompt: renderPromptParts({
          prompt: pair.prompt,
          specification: workflow.specification,
          constraints: workflow.constraints,
          dependencies,
          history: [...given],
          ...(d.revision !== undefined ? { revision: d.revision } : {}),
        }).text,
        dependencies,
        attempt,
      });
    for (let attempt = attempts.length + 1; attempt <= total; attempt++) {
      if (this.signal.aborted) return interrupted();
      this.emit({ type: "attempt_start", id: d.id, attempt });
      const t0 = Date.now();
      const rendered = renderPromptParts({
        prompt: pair.prompt,
        specification: workflow.specification,
        constraints: workflow.constraints,
        dependencies,
        history,
        ...(d.revision !== undefined ? { revision: d.revision } : {}),
      });
      const prompt = rendered.text;
      const shared = this.sharedPrefix(d.id);
      const request = requestKey({ pair, own: d.own, prompt, dependencies, attempt });
      let content: Buffer;
      let tokens: TokenUsage | null = null;
      let stderr: string | undefined;
      let replayed: Reused | undefined;
      let verdict: GuardResult;
      try {
        const answer = reuseRequests ? await this.answerFromIndex(request, judge, guard, pair, attempt, maxOutputBytes, guardTrace) : undefined;
        if (answer) {
          const reused = { kind: answer.kind, pair: answer.entry.pair, at: answer.entry.at, tokens: answer.entry.tokens };
          answered = { prompt, attempt, tokens: answer.entry.tokens, entry: answer.entry };
          attempts.push({ attempt, accepted: true, feedback: "", tokens: null, durationMs: Date.now() - t0, reused });
          this.emit({ type: "attempt_end", id: d.id, attempt, of: total, accepted: true, feedback: "", tokens: null, durationMs: Date.now() - t0, reused });
          return accept(answer.content, reuseNote(reused, attempts));
        }
        // Rejected before, and the retries after it answered before: the rejection is replayed.
        const rejected = reuseRequests ? this.replayable(attempt, total, history, requestOf, judge) : undefined;
        if (rejected) {
          const feedback = rejected.feedback![judge]!;
          const reused = { kind: "request" as const, pair: rejected.pair, at: rejected.at, tokens: rejected.tokens };
          attempts.push({ attempt, accepted: false, feedback, tokens: null, durationMs: Date.now() - t0, reused });
          this.emit({ type: "attempt_end", id: d.id, attempt, of: total, accepted: false, feedback, tokens: null, durationMs: Date.now() - t0, reused });
          history.push({ feedback });
          continue;
        }
        const result = await generate({
          pairId: d.id,
          attempt,
          model: pair.model,
          prompt,
          ...(shared === undefined ? {} : { cacheablePrefix: rendered.prefixEnds[shared] }),
          dependencies,
          config: plain(pair.generatorConfig) as Record<string, unknown>,
          cwd: workflow.dir,
          env: this.options.env.generator,
          signal: this.signal,
          maxOutputBytes,
          sandbox: this.options.sandbox,
          limits: this.options.limits,
          trace: generatorTrace,
        });
        // Artifacts are bytes from here on: hashed, stored and written as produced.
        content = typeof result.content === "string" ? Buffer.from(result.content, "utf8") : result.content;
        tokens = result.tokens ?? null;
        // What an earlier run already received for this very request: no call now, nothing bought.
        if (result.replayed) {
          replayed = { kind: "request", pair: d.id, at: result.replayed.at, tokens };
          tokens = null;
        }
        stderr = result.stderr === undefined ? undefined : this.redact(result.stderr);
        if (content.length > maxOutputBytes)
          throw new Error(`${d.id}: the artifact is ${content.length} bytes, over the output limit of ${maxOutputBytes} bytes (max_output_bytes)`);
        try {
          verdict = await this.check(guard, pair, content, attempt, guardTrace);
        } catch (err) {
          // The guard could not judge (a missing tool, a crash): what the generator returned still
          // answers this request, unjudged, so the run after the fix judges it without a call.
          if (!this.signal.aborted) this.recordAnswer(request, d, pair, content, tokens, {});
          throw err;
        }
        verdict = { accepted: verdict.accepted, feedback: this.redact(verdict.feedback) };
      } catch (err) {
        // Cancelled mid-call: the attempt never happened; a resumed run makes it again.
        if (this.signal.aborted) return interrupted();
        // In a provider batch the run does not wait for: the attempt is made when a later run collects it.
        if (err instanceof BatchPendingError) {
          this.waiting++;
          return interrupted(this.redact(err.message));
        }
        // Waited for a provider's rate limit as long as the run allows: the attempt never happened.
        if (err instanceof RateLimitWaitError) return interrupted(this.redact(err.message));
        // A generator that cannot produce anything, or a guard that cannot judge, ends the pair:
        // retrying would only repeat the same error at the same cost.
        const message = this.redact((err as Error).message);
        attempts.push({ attempt, accepted: false, feedback: message, tokens, durationMs: Date.now() - t0 });
        return fail(message);
      }
      // Accepted, the pair runs no more commands: its slot goes to the next pair, whose command
      // starts before this one's files are written.
      if (verdict.accepted) await this.writeTurn(d.id);
      // What the generator returned answers the same request later, whatever this guard said of it.
      this.recordAnswer(
        request,
        d,
        pair,
        content,
        tokens,
        { [judge]: verdict.accepted ? "accepted" : "rejected" },
        verdict.accepted ? undefined : { [judge]: verdict.feedback },
      );
      answered = { prompt, attempt, tokens };
      const record = {
        attempt,
        accepted: verdict.accepted,
        feedback: verdict.feedback,
        tokens,
        durationMs: Date.now() - t0,
        ...(replayed ? { reused: replayed } : {}),
      };
      attempts.push(record);
      this.emit({
        type: "attempt_end",
        id: d.id,
        attempt,
        of: total,
        accepted: verdict.accepted,
        feedback: verdict.feedback,
        tokens,
        durationMs: record.durationMs,
        ...(stderr ? { stderr } : {}),
        ...(replayed ? { reused: replayed } : {}),
      });
      if (verdict.accepted) return accept(content, replayed ? reuseNote(replayed, attempts) : null);
      history.push({ feedback: verdict.feedback });
    }
    fail(`rejected after ${total} attempt${total === 1 ? "" : "s"}: ${attempts[attempts.length - 1]?.feedback ?? ""}`);
  }

  /**
   * An artifact generated for this request that the pair's guard accepts, with no call: each is
   * judged now (its verdict recorded), and one it rejected before is never judged again. Undefined when none passes: the generator is called.
   */
  private async answerFromIndex(
    request: string,
    judge: string,
    guard: Guard | null,
    pair: Pair,
    attempt: number,
    maxOutputBytes: number,
    trace: ReadTrace | undefined,
  ): Promise<{ content: Buffer; kind: ReuseKind; entry: RequestEntry } | undefined> {
    // This machine's first, then what the remote store holds (a fresh runner's only index).
    const local = this.deps.store.requests(request);
    const remote = (this.deps.remote?.requests?.(request) ?? []).filter((e) => !local.some((l) => l.contentHash === e.contentHash));
    for (const entry of [...local, ...remote]) {
      const before = Object.hasOwn(entry.verdicts, judge) ? entry.verdicts[judge] : undefined;
      if (before === "rejected") continue;
      // Verified against its hash as it is read: a damaged or missing object is no answer.
      let content = this.deps.store.content(entry.contentHash);
      if (content === undefined && remote.includes(entry)) {
        content = await this.deps.remote?.requestContent?.(entry.contentHash);
        if (content !== undefined) this.deps.store.putContent(content);
      }
      if (content === undefined || content.length > maxOutputBytes) continue;
      // Judged in this run whatever the entry says: the index saves the model call, never the
      // guard's judgement (an entry is only as honest as whoever wrote it).
      const verdict = await this.check(guard, pair, content, attempt, trace);
      const judged = { ...entry, verdicts: { ...entry.verdicts, [judge]: verdict.accepted ? ("accepted" as const) : ("rejected" as const) } };
      this.recordRequest(request, verdict.accepted ? judged : { ...judged, feedback: { ...entry.feedback, [judge]: this.redact(verdict.feedback) } }, content);
      if (verdict.accepted) return { content, kind: before === "accepted" ? "request" : "rejudged", entry };
    }
    return undefined;
  }

  private async check(guard: Guard | null, pair: Pair, content: Buffer, attempt: number, trace?: ReadTrace): Promise<GuardResult> {
    if (guard === null) return { accepted: true, feedback: "" }; // no guard accepts
    // A batched pair holds no slot, and a model pair one of its own: its guard takes a turn among
    // at most `concurrency` at once.
    if (this.deps.batches?.batched(pair) || this.options.modelPairs?.is(pair)) return this.judging(() => this.judge(guard, pair, content, attempt, trace));
    return this.judge(guard, pair, content, attempt, trace);
  }

  private async judge(guard: Guard, pair: Pair, content: Buffer, attempt: number, trace?: ReadTrace): Promise<GuardResult> {
    const scratch = this.deps.scratch;
    let artifactPath: string | undefined;
    // The candidate where it will live, for a guard that runs a command: a sandbox's layer puts it
    // there; without one it is written there meanwhile, and what was there put back after. Guards
    // that judge the text in-process need neither.
    const commands = commandNetwork(pair).some((c) => c.command === "guard");
    const place = commands && this.deps.outputs.problem(pair) === null ? this.deps.outputs.path(pair) : undefined;
    const staged = place !== undefined && this.options.sandbox?.layered !== true ? this.deps.outputs.stage?.(pair, content) : undefined;
    // Named as its output is (a test runner goes by the extension), in a directory of its own.
    const name = place !== undefined ? path.basename(place) : "artifact.txt";
    try {
      return await guard({
        pairId: pair.id,
        // Guards that read text see it decoded; a command guard reads the exact bytes from the file,
        // written only for a guard that reads it: most never do.
        content: content.toString("utf8"),
        get artifactPath() {
          return (artifactPath ??= scratch.file(`${pairKey(pair.id)}.${attempt}/${name}`, content));
        },
        ...(place !== undefined ? { place, staged: staged !== undefined } : {}),
        config: plain(pair.guardConfig) as Record<string, unknown>,
        guards: pair.guards,
        cwd: this.plan.workflow.dir,
        env: this.options.env.guard,
        signal: this.signal,
        sandbox: this.options.sandbox,
        limits: this.options.limits,
        trace,
      });
    } finally {
      staged?.();
    }
  }

  /** Records what the generator returned for a request, with the verdicts given to it so far (and a rejecting guard's feedback). */
  private recordAnswer(
    request: string,
    d: PlannedPair,
    pair: Pair,
    content: Buffer,
    tokens: TokenUsage | null,
    verdicts: RequestEntry["verdicts"],
    feedback?: RequestEntry["feedback"],
  ): void {
    const contentHash = this.deps.store.putContent(content);
    this.recordRequest(
      request,
      {
        contentHash,
        pair: d.id,
        configRef: d.configRef!,
        at: new Date().toISOString(),
        model: pair.model,
        tokens,
        verdicts,
        ...(feedback ? { feedback } : {}),
      },
      content,
    );
  }

  /**
   * An answer this guard rejected before, for a request whose retries were answered before too,
   * up to one it did not reject: that rejection, to replay with its feedback rather than ask again.
   * Undefined when the chain breaks (a retry never asked, feedback not recorded): the attempt is
   * made, as a rejected answer is never judged again.
   */
  private replayable(
    from: number,
    total: number,
    history: readonly { feedback: string }[],
    requestOf: (history: readonly { feedback: string }[], attempt: number) => string,
    judge: string,
  ): RequestEntry | undefined {
    const entries = (key: string) => [...this.deps.store.requests(key), ...(this.deps.remote?.requests?.(key) ?? [])];
    const verdict = (e: RequestEntry) => (Object.hasOwn(e.verdicts, judge) ? e.verdicts[judge] : undefined);
    const given = [...history];
    let first: RequestEntry | undefined;
    for (let attempt = from; attempt <= total; attempt++) {
      const found = entries(requestOf(given, attempt));
      if (attempt > from && found.some((e) => verdict(e) !== "rejected")) return first;
      const rejected = found.find((e) => verdict(e) === "rejected" && e.feedback !== undefined && Object.hasOwn(e.feedback, judge));
      if (rejected === undefined) return undefined;
      first ??= rejected;
      given.push({ feedback: rejected.feedback![judge]! });
    }
    return undefined;
  }

  /** Records accepted content under its request as made with the files a traced run saw read (`observed`). */
  private recordObserved(
    answered: { prompt: string; attempt: number; tokens: TokenUsage | null; entry?: RequestEntry },
    d: PlannedPair,
    pair: Pair,
    dependencies: readonly { id: string; content: string }[],
    content: Buffer,
  ): void {
    const key = requestKey({ pair, own: d.own, prompt: answered.prompt, dependencies, attempt: answered.attempt });
    const verdicts = { [guardKey(d.id, d.own)]: "accepted" as const };
    if (answered.entry) this.recordRequest(key, { ...answered.entry, verdicts }, content);
    else this.recordAnswer(key, d, pair, content, answered.tokens, verdicts);
  }

  /** Records a request index entry here, and for the remote store's next save. */
  private recordRequest(key: string, entry: RequestEntry, content: Buffer): void {
    this.deps.store.putRequest(key, entry);
    this.deps.remote?.saveRequest?.(key, entry, content);
  }

  /**
   * A traced pair's decision with what its commands were seen to read: files its reference did not
   * name are told as a warning and become part of it (`observed`), and its reference is made again
   * with them, so that the next plan, which hashes the lock entry's observed files, finds the same
   * one. Files observed before stay when the generator did not run (its artifact was a request's
   * answer): what it read then still counts.
   */
  private observed(d: PlannedPair, pair: Pair, reads: string[], generatorTraced: boolean): PlannedPair {
    if (!this.deps.observe) return d;
    const before = d.own.files?.observed ?? {};
    const seen = this.deps.observe(pair, d.own, reads);
    const unnamed = Object.keys(seen).filter((file) => !Object.hasOwn(before, file));
    if (unnamed.length > 0) {
      const shown = unnamed.slice(0, 10).join(", ") + (unnamed.length > 10 ? ` and ${unnamed.length - 10} more` : "");
      this.emit({
        type: "warning",
        message:
          `${d.id}: its commands read ${shown}, which its reference did not name; recorded as observed in the lock file, so a change ` +
          `${unnamed.length === 1 ? "to it re-runs" : "to any of them re-runs"} the pair (list ${unnamed.length === 1 ? "it" : "them"} under \`files\` to name ${unnamed.length === 1 ? "it" : "them"})`,
      });
    }
    const observed = generatorTraced ? seen : { ...before, ...seen };
    const same =
      Object.keys(observed).length === Object.keys(before).length && Object.entries(observed).every(([f, h]) => Object.hasOwn(before, f) && before[f] === h);
    if (same) return d;
    const own = withObserved(d.own, observed);
    const upstream: Upstream = { refs: dict(), artifactHashes: dict() };
    for (const dep of pair.requires) {
      const decided = this.decided.get(dep)!;
      upstream.refs[dep] = decided.configRef!;
      upstream.artifactHashes[dep] = decided.artifact!.contentHash;
    }
    return { ...d, own, configRef: configRef(own, upstream), components: componentDigests(own, upstream) };
  }

  /** How many of the pair's dependencies the part of its prompt other pairs of this run share runs through; undefined: none shared. */
  private sharedPrefix(id: string): number | undefined {
    if (!this.sharing) {
      const { workflow } = this.plan;
      const running = this.plan.pairs.filter((p) => p.action === "run").map((p) => workflow.pairs.get(p.id)!);
      this.sharing = sharedPrefixes(running, workflow, byProviderAndModel);
    }
    return this.sharing.get(id);
  }

  private redact(text: string): string {
    return this.options.redact ? this.options.redact(text) : text;
  }

  /** A dependency's accepted content, the bytes its hash names: the output file's when it holds them, else the store's. */
  private contentOf(id: string): Buffer | undefined {
    const known = this.contents.get(id);
    if (known) return known;
    const hash = this.decided.get(id)!.artifact!.contentHash;
    const file = this.deps.outputs.read(this.plan.workflow.pairs.get(id)!);
    const content = (file && acceptedBytes(file, hash)) ?? this.deps.store.content(hash);
    if (content) this.contents.set(id, content);
    return content;
  }

  // -------------------------------------------------------------------------------------------
  // Records

  private recordAccepted(
    d: PlannedPair,
    pair: Pair,
    r: { contentHash: string; source: "generated" | "human"; attempts: AttemptRecord[]; durationMs: number },
    content: Buffer,
  ): void {
    const tokens = { input: 0, output: 0 };
    for (const a of r.attempts) if (a.tokens) addTokens(tokens, a.tokens);
    const at = new Date().toISOString();
    const components = plannedComponents(d)!;
    const record: StoreRecord = {
      pair: d.id,
      configRef: d.configRef!,
      status: "accepted",
      contentHash: r.contentHash,
      components,
      at,
      source: r.source,
      model: pair.model,
      attempts: r.attempts.length,
      tokens,
      durationMs: r.durationMs,
    };
    if (r.source === "generated") this.deps.store.putRecord(record);
    this.setLockEntry(d.id, {
      configRef: d.configRef!,
      contentHash: r.contentHash,
      source: r.source,
      model: pair.model,
      components,
      attempts: r.attempts.length,
      tokens,
      durationMs: r.durationMs,
      acceptedAt: at,
      ...observedFiles(d.own),
    });
    const remote = this.deps.remote;
    if (remote && r.source === "generated") {
      const save = remote.save({ record, content }).catch((err: unknown) => {
        this.emit({ type: "warning", message: `${d.id}: could not save to ${remote.name}: ${(err as Error).message}` });
      });
      this.saves.push(save);
    }
  }

  /**
   * Frees the slot of a pair nothing depends on and waits until whatever that lets start has started. The pair's files
   * are then written in the same order as ever (store, then lock file journal, then output), so a
   * kill meanwhile loses nothing the journal says is done; the next pairs' commands just do not
   * wait for them.
   */
  private async writeTurn(id: string): Promise<void> {
    const release = this.releases.get(id);
    // Only a pair nothing depends on: ending, it makes no pair ready, so whichever pair its slot
    // goes to now is the one it would have gone to once it ended (pairs start in plan order).
    if (release === undefined || this.plan.graph.dependents.get(id)!.length > 0) return;
    this.releases.delete(id);
    release();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  private setLockEntry(id: string, entry: LockEntry): void {
    this.lock.pairs[id] = entry;
    this.deps.lockFile.record(id, entry);
  }

  private blocked(id: string, note: string): PairOutcome {
    const planned = this.plan.byId.get(id)!;
    return { id, configRef: planned.configRef, status: "blocked", attempts: [], contentHash: null, reasons: planned.reasons, durationMs: 0, note };
  }

  private finish(outcome: PairOutcome): void {
    this.outcomes.set(outcome.id, outcome);
    this.emit({ type: "pair_end", outcome });
    this.ended(outcome.id);
  }

  private emit(event: RunEvent): void {
    this.options.onEvent?.(event);
  }
}

/** The lock entry's `observed`: what the reference holds of the files traced runs saw read; nothing when none. */
function observedFiles(own: OwnComponents): { observed?: string[] } {
  const files = Object.keys(own.files?.observed ?? {});
  return files.length > 0 ? { observed: files } : {};
}

/** What a pair's outcome says of an artifact answered from the request index. */
function reuseNote(reused: Reused, attempts: readonly AttemptRecord[]): string {
  const how = reused.kind === "request" ? "request reused" : "request reused; guard re-judged";
  const from = `generated for ${reused.pair} at ${reused.at}`;
  // "No model call" only where none was made: attempts before the reused one may have called.
  const called = attempts.filter((a) => a.reused === undefined).length;
  if (called === 0) return `${how}: no model call (${from})`;
  return `${how} for attempt ${attempts.length} (${from}); ${called === 1 ? "1 attempt" : `${called} attempts`} before it called the model`;
}

/** A promise with its resolve, which says whether it was called. */
function settleable(): { promise: Promise<void>; resolve: () => void; settled: boolean } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  const s = {
    promise,
    settled: false,
    resolve: () => {
      s.settled = true;
      resolve();
    },
  };
  return s;
}

/** Inserts n into the ascending array, keeping it ascending. */
function insertSorted(sorted: number[], n: number): void {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < n) lo = mid + 1;
    else hi = mid;
  }
  sorted.splice(lo, 0, n);
}

function addTokens(into: TokenUsage, more: TokenUsage): void {
  into.input += more.input;
  into.output += more.output;
}
