/**
 * A run fanned out over several processes or jobs.
 *
 * - `planShards`: the one plan, split into at most N shards (src/plan/shards.ts); `pinSplit` pins
 *   that split for a fan-out, in the shared store.
 * - `runShard`: shard I of N takes the pinned split, or else makes the same plan against the same
 *   base state (the lock file and the repository's store, which no shard writes) and splits it the
 *   same way; it executes its own pairs, and awaits the pairs of other shards that it depends on
 *   from the shared store, where every shard puts what it accepts.
 * - `mergeShards`: folds the shared store back into the workspace: the store, output files, the
 *   lock file and one run record; it executes nothing.
 */
import path from "node:path";
import { executePlan, newRunId, type EngineDeps } from "../engine/engine.js";
import type { Plan, PlannedPair, StateView } from "../model/plan.js";
import type { ArtifactStore, OutputFiles } from "../model/ports.js";
import type { PairOutcome, RunEvent, RunReport } from "../model/run.js";
import type { Shard, ShardResult, ShardSpec } from "../model/shard.js";
import { limiter } from "../model/limiter.js";
import { lockEntry, type StoreRecord } from "../model/records.js";
import { decider, planWorkflow } from "../plan/plan.js";
import { withDependencies } from "../plan/selection.js";
import { owners, shardPlan } from "../plan/shards.js";
export { matrixOf, parseShard } from "../plan/shards.js";
import { acquireRunLock } from "../records/mutex.js";
import { RunRecorder } from "../records/write.js";
import { PULL_EVERY_MS, SharedStore, ShardStore, type SharedSync, type SplitSync } from "../store/shared.js";
import { displayPath } from "../config/parse.js";
import { foldJournal, LockWriter } from "../lockfile/journal.js";
import { lockPathFor } from "../lockfile/lockfile.js";
import { resolveWorkflowPath } from "../workspace/load.js";
import { scratchDir } from "../workspace/scratch.js";
import { childEnvironments, childSetup } from "./environment.js";
import { unconfinedWarning } from "./sandbox.js";
import { DEFAULT_LIMITS } from "../processes/limits.js";
import { recoverStaged } from "../workspace/staged.js";
import { estimateOf, planOpened, type Planned, type PlanRequest } from "./plan.js";
import { drivers, engineConcurrency, gate, refuseWhatWouldFail, finishedReport, runPacer, type RunRequest } from "./run.js";
import { openState, type Opened } from "./state.js";

/** Where shards meet, unless told otherwise: beside the repository's own store. */
export function sharedDirFor(stateDir: string): string {
  return path.join(stateDir, "shared");
}

export interface FanOut {
  /** The shared store directory (default: <state dir>/shared). */
  sharedDir?: string;
  /** Tells this fan-out's shard reports from an earlier one's in the same directory (default "local"). */
  fanout?: string;
  /** For shards on separate machines: how their copies of the shared store are kept in step. */
  sync?: (shared: SharedStore, shard: ShardSpec) => SharedSync;
  /** For shards on separate machines: how the fan-out's pinned split reaches them. */
  split?: SplitSync;
  /** Told as each phase ends ("opened", "planned", ...): where the time goes (PAIRFLOW_TIMING). */
  onPhase?: (phase: string) => void;
}

export interface MergeRequest extends RunRequest, FanOut {
  /** The N of the fan-out; needed with `sync` (the shards' reports are elsewhere), else read from the reports. */
  shards?: number;
}

export interface ShardRequest extends RunRequest, FanOut {
  shard: ShardSpec;
  /** How long to wait for another shard's artifact before the pair that needs it is blocked. */
  waitMs?: number;
  /** How often a waiting shard pulls the owner's outbox through `sync`. */
  pullEveryMs?: number;
  /** At most how often a shard publishes its outbox through `sync` while it runs (it always does at the end). */
  pushEveryMs?: number;
  /** In a pinned fan-out whose jobs can be re-run one by one, which attempt this is (see SharedStore). */
  attempt?: string;
}

export const DEFAULT_SHARD_WAIT_MS = 30 * 60 * 1000;

/**
 * How long each pair is expected to take, relative to the others: its duration in the lock file,
 * else the median of the known ones. The lock file is part of the base state every shard shares.
 */
function weigher(opened: Opened): (id: string) => number {
  const known = Object.values(opened.lock?.pairs ?? {})
    .map((e) => e?.durationMs)
    .filter((d): d is number => typeof d === "number" && d > 0)
    .sort((a, b) => a - b);
  const typical = known.length > 0 ? known[Math.floor(known.length / 2)]! : 1;
  return (id) => {
    const d = lockEntry(opened.lock, id)?.durationMs;
    return typeof d === "number" && d > 0 ? d : typical;
  };
}

export interface PlannedShards extends Planned {
  shards: Shard[];
}

/** The shards of a plan already made, split as every shard of the fan-out will split it. */
export function shardsOf(planned: Planned, count: number): Shard[] {
  return shardPlan(planned.plan, count, weigher(planned));
}

export async function planShards(target: string | undefined, request: PlanRequest & { shards: number }): Promise<PlannedShards> {
  const planned = await planOpened(openState(target, request), request);
  return { ...planned, shards: shardsOf(planned, request.shards) };
}

/**
 * Pins a plan's split for the fan-out `fanout`: its shards and its merge take this split, whatever
 * the base state is when they run. A shard re-run after the merge (which changed the lock file and
 * the store) so executes the same pairs and awaits the same owners as the first time.
 */
export async function pinSplit(planned: Planned, shards: Shard[], count: number, request: FanOut & { fanout: string }): Promise<void> {
  const shared = new SharedStore(request.sharedDir ?? sharedDirFor(planned.stateDir), request.fanout);
  shared.writeSplit({ version: 1, fanout: request.fanout, workflowRef: planned.plan.workflowRef, count, shards });
  await request.split?.push(shared);
}

/**
 * The split pinned for this fan-out when it fits the plan (same workflow structure and N, and a
 * shard for every pair the plan runs: after a merge the plan runs fewer), else the one `split`
 * makes, which a shard pins (`pin`): a shard run again after a merge then executes what it
 * executed the first time and awaits the same owners, as in GitHub Actions, where the plan job pins.
 */
async function splitOf(
  shared: SharedStore,
  planned: Planned,
  count: number,
  request: FanOut & Pick<RunRequest, "onEvent">,
  split: () => Shard[],
  pin = false,
): Promise<Shard[]> {
  await request.split?.pull(shared);
  const pinned = shared.readSplit();
  const made = () => {
    const shards = split();
    if (pin) shared.writeSplit({ version: 1, fanout: shared.fanout, workflowRef: planned.plan.workflowRef, count, shards });
    return shards;
  };
  if (pinned === undefined) return made();
  const owned = new Set(pinned.shards.flatMap((s) => s.pairs));
  const unowned = planned.plan.pairs.filter((p) => p.action === "run" && !owned.has(p.id)).length;
  if (pinned.workflowRef === planned.plan.workflowRef && pinned.count === count && unowned === 0) return pinned.shards;
  const why =
    pinned.count !== count
      ? `${pinned.count} shards, not ${count}`
      : pinned.workflowRef !== planned.plan.workflowRef
        ? "another structure of the workflow"
        : `another plan (${unowned} pair${unowned === 1 ? "" : "s"} to run that no shard of it runs)`;
  // Locally one shared store serves fan-out after fan-out: a new one's plan is simply split anew.
  if (shared.fanout !== "local")
    request.onEvent?.({ type: "warning", message: `the split pinned for fan-out ${shared.fanout} was made for ${why}: splitting the plan again` });
  return made();
}

/** The shared store seen together with the repository's: read both, write only the shared one. */
function sharedView(opened: Opened, store: ShardStore): StateView {
  return { ...opened.view, record: (p, r) => store.record(p, r), hasContent: (h) => store.hasContent(h), generatedHashes: (p) => store.generatedHashes(p) };
}

/** Pairs and everything they depend on, in plan order: the scope `--only` would give them. */
function closure(plan: Plan, ids: Iterable<string>): PlannedPair[] {
  const scope = withDependencies(plan.graph, ids);
  return plan.pairs.filter((p) => scope.has(p.id));
}

/**
 * Reads the workspace's output files, writes none: a shard leaves the workspace to the merge. A
 * candidate a guard judges at its place is put back as it was afterwards.
 */
function readOnly(outputs: Opened["outputs"]): OutputFiles {
  return {
    read: (pair) => outputs.read(pair),
    write: () => {},
    problem: (pair) => outputs.problem(pair),
    path: (pair) => outputs.path(pair),
    stage: (pair, content) => outputs.stage(pair, content),
  };
}

export async function runShard(target: string | undefined, request: ShardRequest): Promise<RunReport> {
  const { shard } = request;
  const runId = request.runId ?? newRunId();
  const startedAt = new Date().toISOString();
  const opened = openState(target, { ...request, warn: (message) => request.onEvent?.({ type: "warning", message }) });
  // A candidate a killed shard left at its output path for a guard: what was there goes back first.
  recoverStaged(opened.stateDir);
  const fanout = request.fanout ?? "local";
  const shared = new SharedStore(request.sharedDir ?? sharedDirFor(opened.stateDir), fanout, fanout === "local" ? Date.parse(startedAt) : 0, request.attempt);
  const sync = request.sync?.(shared, shard);
  // What an earlier attempt of this shard published is kept: reused here, and published again
  // with this attempt's work, so its newest outbox still holds all of it.
  let earlier: StoreRecord[] = [];
  if (sync) {
    await sync.pull(shard);
    earlier = shared.readOutbox(shard);
  }
  // Then: what this shard reported in an earlier attempt is not what it will report now.
  shared.started(shard);
  request.onPhase?.("opened");
  const planned = await planOpened(opened, request);
  await refuseWhatWouldFail(planned, request);
  const shards = await splitOf(shared, planned, shard.count, request, () => shardPlan(planned.plan, shard.count, weigher(opened)), true);
  const owner = owners(shards);
  const mine = new Set(shards.find((s) => s.index === shard.index)?.pairs ?? []);
  // The budget gate, over this shard's own pairs.
  await gate({ ...planned, estimate: await estimateOf(opened, planned.plan, (id) => mine.has(id)) }, request);

  const store = new ShardStore(opened.store, shared.store);
  const view = sharedView(opened, store);
  // What other shards (or an earlier attempt of this one) already accepted is reused, not redone.
  const plan = await planWorkflow(opened.workflow, opened.graph, view, { selection: request.selection });
  const scoped: Plan = {
    ...plan,
    pairs: closure(
      plan,
      [...mine].filter((id) => plan.byId.has(id)),
    ),
  };
  const waitMs = request.waitMs ?? DEFAULT_SHARD_WAIT_MS;
  const published = () => [...earlier, ...store.written];
  const publisher = sync && new Publisher(() => shared.writeOutbox(shard, published()), sync, request.pushEveryMs ?? PUSH_EVERY_MS);
  const pull = sync && { pull: (owner: ShardSpec) => sync.pull(owner), everyMs: request.pullEveryMs ?? PULL_EVERY_MS };
  const pacer = runPacer(request, 1 / shard.count);
  request.onPacing?.(() => pacer.waiting());
  const deps: EngineDeps = {
    // One of the fan-out's shards, spending one account: a share of every budget (and still what the provider says is left).
    ...drivers(request, undefined, undefined, pacer),
    store,
    outputs: readOnly(opened.outputs),
    // Where the base state's artifacts may be; a shard's own acceptances travel only through the shared store.
    remote: opened.remote && { name: opened.remote.name, fetch: (p, r) => opened.remote!.fetch(p, r), save: async () => {} },
    // A shard leaves the lock file to the merge.
    lockFile: { record: () => {}, close: () => {} },
    scratch: scratchDir(),
    decide: decider(plan, view),
    shard: {
      owns: (id) => mine.has(id),
      await: (id, configRef, signal) => {
        const by = owner.get(id);
        if (by === undefined) return Promise.resolve({ missing: "no shard runs it: plan the fan-out again" });
        return shared.await(id, configRef, by, waitMs, signal, pull);
      },
    },
  };
  request.onPhase?.("planned");
  const children = childSetup(request, opened.workflow, scoped);
  request.onPhase?.("sandbox");
  const unconfined = unconfinedWarning(children.state);
  if (unconfined) request.onEvent?.({ type: "warning", message: unconfined });
  // A traced pair's reference can change as it is accepted, and other shards await it by the planned one.
  if (request.traceReads) request.onEvent?.({ type: "warning", message: "reads are not traced in a shard of a fanned-out run: its commands run untraced" });
  const report = await executePlan(scoped, deps, {
    runId,
    lock: opened.lock,
    ...engineConcurrency(request),
    env: children.env,
    sandbox: children.sandbox,
    limits: request.limits ?? DEFAULT_LIMITS,
    redact: children.redact,
    stop: request.stop,
    signal: request.signal,
    onEvent: (event) => {
      if (event.type === "pair_end" && event.outcome.status === "executed") publisher?.soon();
      request.onEvent?.(event);
    },
  });
  request.onPhase?.("executed");
  const result: ShardResult = {
    version: 1,
    ...shard,
    runId,
    ...(request.attempt !== undefined ? { attempt: request.attempt } : {}),
    // A shard's run sends no provider batches, so it never ends waiting for one.
    status: report.status === "waiting" ? "interrupted" : report.status,
    startedAt,
    endedAt: new Date().toISOString(),
    outcomes: report.pairs.filter((p) => mine.has(p.id)),
  };
  shared.finished(result);
  if (publisher) {
    shared.writeOutbox(shard, published(), result);
    await publisher.now();
  }
  request.onPhase?.("reported");
  return finishedReport(report, children, opened.workflow, pacer);
}

const PUSH_EVERY_MS = 30_000;

/**
 * Publishes a shard's outbox after acceptances, at most once per interval, and once more at the end.
 * An acceptance made while a publication is on its way is published by the next one: other shards
 * may be waiting for it, and this shard may wait for them before it ends.
 */
export class Publisher {
  private last = 0;
  private pending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Something was accepted since the outbox was last written. */
  private unpublished = false;
  private ended = false;

  constructor(
    private readonly write: () => void,
    private readonly sync: SharedSync,
    private readonly everyMs: number,
  ) {}

  /** After an acceptance: publish now if the last time was long enough ago, else when it is. */
  soon(): void {
    this.unpublished = true;
    if (this.timer || this.pending || this.ended) return;
    const wait = Math.max(0, this.last + this.everyMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.publish();
    }, wait);
  }

  /** At the end: whatever is scheduled is superseded by one last publication. */
  async now(): Promise<void> {
    this.ended = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.pending;
    await this.publish(false);
  }

  private publish(write = true): Promise<void> {
    this.last = Date.now();
    if (write) {
      this.unpublished = false;
      this.write();
    }
    this.pending = this.sync.push().finally(() => {
      this.pending = undefined;
      if (this.unpublished && !this.ended) this.soon();
    });
    return this.pending;
  }
}

export interface Merged {
  report: RunReport;
  /** Shards that owned pairs and reported nothing. */
  missing: ShardSpec[];
}

/**
 * Folds what the shards accepted into the workspace: the repository's store, the output files and
 * the lock file, and one run record whose outcomes are the shards' own. Executes nothing; fails
 * (status "failed") when a shard failed, or never reported, or a pair was accepted by none.
 */
export async function mergeShards(target: string | undefined, request: MergeRequest): Promise<Merged> {
  // The mutex and the journal need only the workflow's path: the workflow is read once, under the mutex.
  const workflowPath = resolveWorkflowPath(target, request.cwd);
  const lockPath = lockPathFor(workflowPath);
  const runId = request.runId ?? newRunId();
  const release = await acquireRunLock(workflowPath, {
    runId,
    wait: request.wait ?? true,
    onWait: request.onWait,
    onWarn: (message) => request.onEvent?.({ type: "warning", message }),
    signal: request.stop,
  });
  try {
    // What a killed run journaled goes into the lock file before anything reads it.
    foldJournal(lockPath, displayPath(lockPath, request.cwd));
    request.onPhase?.("locked");
    return await merge({ ...request, runId }, target);
  } finally {
    release();
  }
}

async function merge(request: MergeRequest, target: string | undefined): Promise<Merged> {
  const runId = request.runId ?? newRunId();
  const opened = openState(target, request);
  const before = await planOpened(opened, {});
  const shared = new SharedStore(request.sharedDir ?? sharedDirFor(opened.stateDir), request.fanout ?? "local");
  if (request.sync && request.shards !== undefined) {
    // Every shard's latest outbox, from wherever the shards published them.
    for (let index = 1; index <= request.shards; index++) {
      const shard = { index, count: request.shards };
      await request.sync(shared, shard).pull(shard);
      shared.readOutbox(shard);
    }
  }
  const results = shared.results();
  const count = request.shards ?? results[0]?.count;
  // The shards the fan-out had: its pinned split (the base state has changed since, if an earlier
  // merge ran), or else the split of the plan as it is now.
  const expected = count === undefined ? [] : await splitOf(shared, before, count, request, () => shardPlan(before.plan, count, weigher(opened)));
  const missing = expected.filter((s) => !results.some((r) => r.index === s.index && r.count === s.count));
  request.onPhase?.("planned");

  // What the shards accepted moves into the repository's store, where every later plan finds it.
  const layered = new ShardStore(opened.store, shared.store);
  const seen = await planWorkflow(opened.workflow, opened.graph, sharedView(opened, layered), {});
  // The shards have ended: one view of the shared store serves every pair.
  for (const p of seen.pairs) {
    if (p.action !== "skip" || p.configRef === null) continue;
    const record = shared.store.record(p.id, p.configRef);
    if (record?.status !== "accepted" || !record.contentHash || opened.store.record(p.id, p.configRef)?.status === "accepted") continue;
    const content = shared.store.content(record.contentHash);
    if (content === undefined) continue;
    opened.store.putContent(content);
    opened.store.putRecord(record);
  }

  request.onPhase?.("copied");
  // The state as opened, planned again: its store now holds what was copied, and nothing else it
  // read (the workflow, the lock file, the output files) has changed since.
  const after = await planOpened(opened, {});
  const reusable = after.plan.pairs.filter((p) => p.action === "skip").map((p) => p.id);
  const scoped: Plan = { ...after.plan, pairs: closure(after.plan, reusable) };
  const writes = overlappedWrites(after.outputs);
  let folded: RunReport;
  try {
    folded = await executePlan(scoped, mergeDeps(after, writes.outputs), {
      runId,
      lock: after.lock,
      env: childEnvironments(request.env ?? {}, after.workflow),
      signal: request.signal,
    });
  } finally {
    // The outputs are on disk before anything says the merge is done (or why it failed).
    await writes.settle().catch(() => {});
  }
  await writes.settle();

  request.onPhase?.("folded");
  // Each pair's outcome as its shard reported it, with what the fold did for the rest.
  const byShard = new Map<string, PairOutcome>();
  for (const r of results) for (const o of r.outcomes) byShard.set(o.id, o);
  const fold = new Map(folded.pairs.map((p) => [p.id, p]));
  const ownerOf = owners(expected);
  const pairs = after.plan.pairs.map((p): PairOutcome => {
    const own = byShard.get(p.id);
    const done = fold.get(p.id);
    if (done && own?.status === "executed" && own.contentHash === done.contentHash) return own;
    if (done) return done;
    if (own && own.status !== "executed" && own.status !== "reused") return own;
    const by = ownerOf.get(p.id);
    const note = by ? `shard ${by.index}/${by.count} did not accept it` : "no shard accepted it";
    return { id: p.id, configRef: p.configRef, status: "blocked", attempts: [], contentHash: null, reasons: p.reasons, durationMs: 0, note };
  });
  const countOf = (s: PairOutcome["status"]) => pairs.filter((p) => p.status === s).length;
  const tokens = { input: 0, output: 0 };
  for (const p of pairs)
    for (const a of p.attempts) {
      tokens.input += a.tokens?.input ?? 0;
      tokens.output += a.tokens?.output ?? 0;
    }
  const failed = missing.length > 0 || pairs.some((p) => p.status !== "executed" && p.status !== "reused");
  const report: RunReport = {
    version: 1,
    runId,
    workflowRef: after.plan.workflowRef,
    status: failed ? "failed" : "success",
    pairs,
    totals: {
      pairs: pairs.length,
      executed: countOf("executed"),
      reused: countOf("reused"),
      failed: countOf("failed"),
      blocked: countOf("blocked"),
      interrupted: countOf("interrupted"),
      tokens,
      durationMs: Math.max(0, ...results.map((r) => Date.parse(r.endedAt) - Date.parse(r.startedAt))),
    },
  };
  const recorder = new RunRecorder(opened.stateDir, {}, (message) => request.onEvent?.({ type: "warning", message }));
  const events: RunEvent[] = [
    { type: "run_start", runId, plan: before.plan, resumed: false },
    ...pairs.map((outcome): RunEvent => ({ type: "pair_end", outcome })),
    { type: "run_end", report },
  ];
  for (const event of events) {
    recorder.record(event);
    request.onEvent?.(event);
  }
  request.onPhase?.("recorded");
  return { report, missing };
}

/** How many output files the merge's fold has on their way to the disk at once. */
const WRITES_IN_FLIGHT = 8;

/**
 * The fold's output files, written with their waits for the disk overlapping: a merge restores
 * every output the shards made, and one flush after another was most of the merge's own time. The
 * engine still meets a problem with a file before it writes (OutputFiles.problem); writes to one
 * path keep their order; `settle` waits for them all and throws the first failure, as the write
 * itself would have. The fold reads no output it restores: it executes nothing.
 */
export function overlappedWrites(files: Planned["outputs"], inFlight = WRITES_IN_FLIGHT): { outputs: OutputFiles; settle: () => Promise<void> } {
  const turns = limiter(inFlight);
  const all: Promise<void>[] = [];
  const byPath = new Map<string, Promise<void>>();
  const write = (pair: Parameters<OutputFiles["write"]>[0], content: Buffer) => {
    const at = files.path(pair) ?? pair.id;
    const written = (byPath.get(at) ?? Promise.resolve()).catch(() => {}).then(() => turns(() => files.writeAsync(pair, content)));
    written.catch(() => {}); // settle reports it
    byPath.set(at, written);
    all.push(written);
  };
  return {
    outputs: {
      read: (pair) => files.read(pair),
      write,
      problem: (pair) => files.problem(pair),
      path: (pair) => files.path(pair),
      stage: (pair, content) => files.stage(pair, content),
    },
    settle: async () => {
      const failed = (await Promise.allSettled(all)).find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    },
  };
}

/** The fold executes nothing: every pair it is given is reusable. */
function mergeDeps(planned: Planned, outputs: OutputFiles): EngineDeps {
  const refuse = () => {
    throw new Error("pairflow merge executes nothing");
  };
  const store: ArtifactStore = planned.store;
  return {
    generator: refuse,
    guard: refuse,
    store,
    outputs,
    remote: planned.remote,
    lockFile: new LockWriter(planned.lockPath, planned.workflow.name),
    scratch: scratchDir(),
    decide: decider(planned.plan, planned.view),
  };
}
