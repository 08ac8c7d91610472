/**
 * Executes a plan. A pair starts as soon as all its dependencies are accepted, at most
 * `concurrency` at once. When a pair becomes ready it is decided again with its dependencies'
 * actual outcomes (the same rule the plan uses), so a dependent of a pair that re-ran with
 * byte-identical content is reused (early cutoff). Accepted artifacts go to the store, the pair's
 * output file and the lock file, which is rewritten atomically after every acceptance.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { plain } from "../model/values.js";
import { UsageError } from "../model/errors.js";
import type { Pair } from "../model/workflow.js";
import { getGenerator } from "../generators/index.js";
import { downstreamOf } from "../graph/graph.js";
import { getGuard } from "../guards/index.js";
import { decidePair, makePlan } from "../plan/plan.js";
import { type Plan, type PlannedPair, type Reason } from "../model/plan.js";
import { outputPath, preparePlan, type PrepareOptions, type Prepared } from "../app/prepare.js";
import { renderPrompt } from "../prompt/render.js";
import { sha256Hex } from "../refs/hash.js";
import { writeLock } from "../lockfile/lockfile.js";
import { type LockEntry, type LockFile } from "../model/records.js";
import type { RemoteStore } from "../model/ports.js";
import type { StoreRecord } from "../model/records.js";
import { didYouMean } from "../model/text.js";
import { writeFileAtomic } from "../workspace/files.js";
import type { Guard, GuardResult } from "../model/ports.js";
import type { TokenUsage } from "../model/records.js";
import type { AttemptRecord, PairOutcome, PairStatus, ResumeState, RunEvent, RunReport, Selection } from "../model/run.js";

export const DEFAULT_CONCURRENCY = 4;

export interface RunOptions extends Omit<PrepareOptions, "force"> {
  concurrency?: number;
  selection?: Selection;
  env?: NodeJS.ProcessEnv;
  /** The run's id; a resumed run keeps its own. Default: a new one. */
  runId?: string;
  resume?: ResumeState;
  /** Aborting starts nothing new; pairs in flight go on (a graceful stop). */
  stop?: AbortSignal;
  /** Aborting starts nothing new and cancels the pairs in flight, their child processes included. */
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  /** A store shared between machines: consulted before executing anything, and given every acceptance. */
  remote?: RemoteStore;
  /**
   * Sees the final plan before anything executes (a budget gate, a confirmation); throwing stops
   * the run with nothing executed.
   */
  beforeExecute?: (plan: Plan, prepared: Prepared) => Promise<void>;
}

/** Run ids sort by time: 20261122T003012345Z-1a2b. */
export function newRunId(now = new Date()): string {
  return now.toISOString().replace(/[-:.]/g, "") + "-" + randomBytes(2).toString("hex");
}

export async function runWorkflow(target: string | undefined, options: RunOptions = {}): Promise<RunReport> {
  const selection = options.selection ?? {};
  const prepared = preparePlan(target, { ...options, force: undefined });
  const selected = selectionForce(prepared, selection);
  // A resumed run does not force again what it already finished.
  const force = (id: string) => (options.resume?.finished.has(id) ? undefined : selected(id));
  if (options.remote) await restoreFromRemote(prepared, force, options.remote, options.onEvent);
  const scope = selectionScope(prepared, selection);
  const plan = planWithLostContent(prepared, force, scope);
  await options.beforeExecute?.(plan, prepared);
  return new Run(prepared, plan, scope, options).execute();
}

function selectionForce(prepared: Prepared, selection: Selection): (id: string) => Reason | undefined {
  const { workflow, graph } = prepared;
  const check = (id: string, flag: string) => {
    if (workflow.pairs.has(id)) return;
    const hint = didYouMean(id, workflow.pairs.keys());
    throw new UsageError(`${flag} ${id}: no such pair in ${workflow.name}` + (hint ? `; did you mean "${hint}"?` : `; pairs are: ${[...workflow.pairs.keys()].join(", ")}`));
  };
  if (selection.force) return () => ({ kind: "forced", detail: "--force" });
  if (selection.from !== undefined) {
    check(selection.from, "--from");
    const from = selection.from;
    const downstream = downstreamOf(graph, [from]);
    return (id) => (id === from || downstream.has(id) ? { kind: "forced", detail: `--from ${from}` } : undefined);
  }
  if (selection.only !== undefined) {
    for (const id of selection.only) check(id, "--only");
    const only = new Set(selection.only);
    return (id) => (only.has(id) ? { kind: "forced", detail: "--only" } : undefined);
  }
  return () => undefined;
}

/**
 * The pairs a run considers. With --only: the selected pairs and their dependencies, each of which
 * must already have an accepted artifact unless it is selected too.
 */
function selectionScope(prepared: Prepared, selection: Selection): Set<string> {
  const { graph, plan } = prepared;
  if (selection.only === undefined || selection.force) return new Set(graph.order);
  const only = new Set(selection.only);
  const scope = new Set(only);
  const stack = [...only];
  while (stack.length > 0) {
    for (const dep of graph.requires.get(stack.pop()!)!) {
      if (!scope.has(dep)) {
        scope.add(dep);
        stack.push(dep);
      }
    }
  }
  const missing = [...scope].filter((id) => !only.has(id) && plan.byId.get(id)!.action === "run");
  if (missing.length > 0) {
    const needs = missing.map((id) => `${id} (${plan.byId.get(id)!.reasons.map((r) => r.detail).join("; ")})`).join(", ");
    throw new UsageError(`--only ${selection.only.join(" ")}: these dependencies have no accepted artifact for their current configuration: ${needs}; add them to --only, or run without it`);
  }
  return scope;
}

const LOST: Reason = { kind: "new", detail: "accepted content is not available here; running again to restore it" };

/**
 * The plan to execute. Skipped pairs whose content a running pair needs but that is nowhere to be
 * read (no output file, not in the store) must run again; this repeats until stable, since
 * re-running one may need its own dependencies' content. Leaves the force rule it settled on in
 * prepared.planOptions, for deciding pairs again as the run goes.
 */
function planWithLostContent(prepared: Prepared, force: (id: string) => Reason | undefined, scope: Set<string>): Plan {
  const { workflow, graph, state, planOptions } = prepared;
  const lost = new Set<string>();
  planOptions.force = (id) => force(id) ?? (lost.has(id) ? LOST : undefined);
  for (;;) {
    const plan = makePlan(workflow, graph, state, planOptions);
    const more = plan.pairs.filter(
      (p) =>
        p.action === "skip" &&
        scope.has(p.id) &&
        !lost.has(p.id) &&
        graph.dependents.get(p.id)!.some((d) => scope.has(d) && plan.byId.get(d)!.action === "run") &&
        !contentAvailable(prepared, workflow.pairs.get(p.id)!, p.artifact!.contentHash),
    );
    if (more.length === 0) return plan;
    for (const p of more) lost.add(p.id);
  }
}

/**
 * Brings into the local store what the remote store has and this run needs: artifacts of pairs
 * that would run but were accepted elsewhere under the same configRef, and content of skipped
 * pairs that is missing here (an output file not in the workspace, or a running pair's
 * dependency). Repeats as restored content makes more references known.
 */
async function restoreFromRemote(prepared: Prepared, force: (id: string) => Reason | undefined, remote: RemoteStore, onEvent?: (e: RunEvent) => void): Promise<void> {
  const { workflow, graph, store, state, planOptions } = prepared;
  const tried = new Set<string>();
  for (;;) {
    const plan = makePlan(workflow, graph, state, { ...planOptions, force });
    const wanted = plan.pairs.filter((p) => {
      if (p.configRef === null || tried.has(`${p.id}:${p.configRef}`) || force(p.id)) return false;
      if (p.action === "run") return true;
      const needed = graph.dependents.get(p.id)!.some((d) => plan.byId.get(d)!.action === "run") || workflow.pairs.get(p.id)!.output !== undefined;
      return needed && !contentAvailable(prepared, workflow.pairs.get(p.id)!, p.artifact!.contentHash);
    });
    if (wanted.length === 0) return;
    let restored = 0;
    for (const p of wanted) {
      tried.add(`${p.id}:${p.configRef}`);
      const artifact = await remote.restore(p.id, p.configRef!);
      if (!artifact) continue;
      if (p.action === "skip" && artifact.record.contentHash !== p.artifact!.contentHash) {
        onEvent?.({ type: "warning", message: `${p.id}: ${remote.name} holds other content than the lock file records for this reference; not used` });
        continue;
      }
      store.putContent(artifact.content);
      store.putRecord(artifact.record);
      onEvent?.({ type: "restored", id: p.id, from: remote.name });
      restored++;
    }
    if (restored === 0) return;
  }
}

function contentAvailable(prepared: Prepared, pair: Pair, hash: string): boolean {
  const file = outputPath(prepared.workflow, pair);
  return (file !== undefined && existsSync(file)) || prepared.store.content(hash) !== undefined;
}

class Run {
  private readonly runId: string;
  private readonly decided = new Map<string, PlannedPair>();
  private readonly outcomes = new Map<string, PairOutcome>();
  /** Content produced or read during this run, by pair id. */
  private readonly contents = new Map<string, Buffer>();
  private readonly lock: LockFile;
  private lockDirty = false;
  private readonly tmp: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly signal: AbortSignal;
  private readonly started = Date.now();
  /** Settles when the run is asked to stop, so the scheduler notices at once. */
  private readonly stopped: Promise<void>;
  /** Saves to the remote store still in flight; the run waits for them before it reports. */
  private readonly saves: Promise<void>[] = [];

  constructor(
    private readonly prepared: Prepared,
    private readonly plan: Plan,
    private readonly scope: Set<string>,
    private readonly options: RunOptions,
  ) {
    const { lock, workflow } = prepared;
    this.lock = { version: 1, workflow: workflow.name, pairs: { ...(lock?.pairs ?? {}) } };
    // Pairs that left the workflow leave the lock file too.
    for (const id of Object.keys(this.lock.pairs)) {
      if (!workflow.pairs.has(id)) {
        delete this.lock.pairs[id];
        this.lockDirty = true;
      }
    }
    this.runId = options.runId ?? newRunId();
    this.env = options.env ?? process.env;
    this.signal = options.signal ?? new AbortController().signal;
    this.tmp = mkdtempSync(path.join(tmpdir(), "pairflow-run-"));
    this.stopped = new Promise<void>((resolve) => {
      for (const s of [this.signal, options.stop]) s?.addEventListener("abort", () => resolve(), { once: true });
    });
  }

  async execute(): Promise<RunReport> {
    this.emit({ type: "run_start", runId: this.runId, plan: this.plan, resumed: this.options.resume !== undefined });
    try {
      await this.schedule();
      await Promise.all(this.saves);
    } finally {
      this.flushLock();
      rmSync(this.tmp, { recursive: true, force: true });
    }
    const pairs = this.plan.pairs.filter((p) => this.scope.has(p.id)).map((p) => this.outcomes.get(p.id)!);
    const count = (s: PairStatus) => pairs.filter((p) => p.status === s).length;
    const tokens = { input: 0, output: 0 };
    for (const p of pairs) for (const a of p.attempts) if (a.tokens) addTokens(tokens, a.tokens);
    const report: RunReport = {
      version: 1,
      runId: this.runId,
      workflowRef: this.plan.workflowRef,
      status: count("interrupted") > 0 ? "interrupted" : count("failed") + count("blocked") > 0 ? "failed" : "success",
      pairs,
      totals: {
        pairs: pairs.length, executed: count("executed"), reused: count("reused"), failed: count("failed"), blocked: count("blocked"),
        interrupted: count("interrupted"), tokens, durationMs: Date.now() - this.started,
      },
    };
    this.emit({ type: "run_end", report });
    return report;
  }

  private get stopping(): boolean {
    return this.signal.aborted || (this.options.stop?.aborted ?? false);
  }

  private async schedule(): Promise<void> {
    const concurrency = Math.max(1, this.options.concurrency ?? DEFAULT_CONCURRENCY);
    const requires = this.prepared.graph.requires;
    const waiting = this.prepared.graph.order.filter((id) => this.scope.has(id));
    const inFlight = new Set<Promise<void>>();
    while (waiting.length > 0 || inFlight.size > 0) {
      for (let i = 0; i < waiting.length && inFlight.size < concurrency; ) {
        const id = waiting[i]!;
        const deps = requires.get(id)!;
        const stopped = deps.filter((d) => ["failed", "blocked"].includes(this.outcomes.get(d)?.status ?? ""));
        if (this.stopping) {
          waiting.splice(i, 1);
          this.finish({ ...this.blocked(id, "not started: the run was interrupted"), status: "interrupted" });
        } else if (stopped.length > 0) {
          waiting.splice(i, 1);
          this.finish(this.blocked(id, `blocked by ${stopped.join(", ")}`));
        } else if (deps.every((d) => this.decided.has(d))) {
          waiting.splice(i, 1);
          const task: Promise<void> = this.handle(id).finally(() => inFlight.delete(task));
          inFlight.add(task);
        } else {
          i++;
        }
      }
      // Wake on a stop only until it has happened: a settled promise in the race would spin.
      if (inFlight.size > 0) await Promise.race(this.stopping ? inFlight : [...inFlight, this.stopped]);
    }
  }

  private async handle(id: string): Promise<void> {
    const { workflow, graph, state, planOptions } = this.prepared;
    const decision = decidePair(workflow, graph, id, this.decided, state, planOptions);
    if (decision.action === "skip") this.reuse(decision);
    else await this.run(decision, workflow.pairs.get(id)!);
  }

  // -------------------------------------------------------------------------------------------
  // Reuse

  private reuse(d: PlannedPair): void {
    const pair = this.prepared.workflow.pairs.get(d.id)!;
    const artifact = d.artifact!;
    const configRef = d.configRef!;
    let note: string | null = null;
    const previous = this.lock.pairs[d.id];
    if (artifact.edited) {
      // A hand edit: kept as this pair's accepted artifact, recorded as the human's.
      const content = readFileSync(outputPath(this.prepared.workflow, pair)!);
      this.contents.set(d.id, content);
      this.prepared.store.putContent(content);
      void this.recordAccepted(d, pair, { contentHash: artifact.contentHash, source: "human", attempts: [], durationMs: 0 }, content);
      note = `output ${pair.output} was edited by hand; kept and recorded as a human artifact`;
    } else {
      if (previous?.configRef !== configRef || previous.contentHash !== artifact.contentHash) this.restoreLockEntry(d, pair);
      note = this.restoreOutput(pair, artifact.contentHash);
      const rerun = pair.requires.filter((dep) => this.outcomes.get(dep)?.status === "executed");
      if (rerun.length > 0 && this.plan.byId.get(d.id)!.action === "run") {
        note = `early cutoff: ${rerun.join(", ")} re-ran with identical content`;
      }
    }
    this.decided.set(d.id, d);
    this.finish({ id: d.id, configRef, status: "reused", attempts: [], contentHash: artifact.contentHash, reasons: [], durationMs: 0, note });
  }

  /** Writes a missing output file from the store. */
  private restoreOutput(pair: Pair, hash: string): string | null {
    const file = outputPath(this.prepared.workflow, pair);
    if (file === undefined || existsSync(file)) return null;
    const content = this.prepared.store.content(hash);
    if (content === undefined) return `output ${pair.output} is missing and its content is not in the local store`;
    writeFileAtomic(file, content);
    this.contents.set(pair.id, content);
    return `restored ${pair.output} from the store`;
  }

  private restoreLockEntry(d: PlannedPair, pair: Pair): void {
    const rec = this.prepared.store.accepted(d.id, d.configRef!);
    this.setLockEntry(d.id, {
      configRef: d.configRef!,
      contentHash: d.artifact!.contentHash,
      source: rec?.source ?? "generated",
      model: rec?.model !== undefined ? rec.model : pair.model,
      components: d.components!,
      attempts: rec?.attempts ?? 0,
      tokens: rec?.tokens ?? { input: 0, output: 0 },
      durationMs: rec?.durationMs ?? 0,
      acceptedAt: rec?.at ?? new Date().toISOString(),
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
    const interrupted = () =>
      this.finish({ id: d.id, configRef: d.configRef, status: "interrupted", attempts, contentHash: null, reasons: d.reasons, durationMs: Date.now() - started, note: "cancelled: the run was interrupted" });
    const fail = (message: string) => {
      this.prepared.store.putRecord({ pair: d.id, configRef: d.configRef!, status: "rejected", feedback: message, components: d.components!, at: new Date().toISOString() });
      this.finish({ id: d.id, configRef: d.configRef, status: "failed", attempts, contentHash: null, reasons: d.reasons, durationMs: Date.now() - started, note: message });
    };

    let generate, guard: Guard | null;
    try {
      generate = getGenerator(pair.generator);
      guard = pair.guard === null ? null : getGuard(pair.guard);
    } catch (err) {
      return fail((err as Error).message);
    }
    const dependencies: { id: string; content: string }[] = [];
    for (const dep of pair.requires) {
      const content = this.contentOf(dep);
      if (content === undefined) return fail(`the accepted content of ${dep} is not available (no output file, not in the store); run with --from ${dep}`);
      dependencies.push({ id: dep, content: content.toString("utf8") });
    }

    const { workflow } = this.prepared;
    const total = pair.rmax + 1;
    const history = attempts.filter((a) => !a.accepted).map((a) => ({ feedback: a.feedback }));
    for (let attempt = attempts.length + 1; attempt <= total; attempt++) {
      if (this.signal.aborted) return interrupted();
      this.emit({ type: "attempt_start", id: d.id, attempt });
      const t0 = Date.now();
      const prompt = renderPrompt({ prompt: pair.prompt, specification: workflow.specification, constraints: workflow.constraints, dependencies, history });
      let content: string;
      let tokens: TokenUsage | null = null;
      let verdict: GuardResult;
      try {
        const result = await generate({ pairId: d.id, attempt, model: pair.model, prompt, config: plain(pair.generatorConfig) as Record<string, unknown>, cwd: workflow.dir, env: this.env, signal: this.signal });
        content = result.content;
        tokens = result.tokens ?? null;
        verdict = await this.check(guard, pair, content, attempt);
      } catch (err) {
        // Cancelled mid-call: the attempt never happened; a resumed run makes it again.
        if (this.signal.aborted) return interrupted();
        // A generator that cannot produce anything, or a guard that cannot judge, ends the pair:
        // retrying would only repeat the same error at the same cost.
        attempts.push({ attempt, accepted: false, feedback: (err as Error).message, tokens, durationMs: Date.now() - t0 });
        return fail((err as Error).message);
      }
      const record = { attempt, accepted: verdict.accepted, feedback: verdict.feedback, tokens, durationMs: Date.now() - t0 };
      attempts.push(record);
      this.emit({ type: "attempt_end", id: d.id, attempt, of: total, accepted: verdict.accepted, feedback: verdict.feedback, tokens, durationMs: record.durationMs });
      if (verdict.accepted) {
        const bytes = Buffer.from(content, "utf8");
        const contentHash = this.prepared.store.putContent(bytes);
        this.contents.set(d.id, bytes);
        const file = outputPath(workflow, pair);
        if (file !== undefined) writeFileAtomic(file, bytes);
        const durationMs = Date.now() - started;
        await this.recordAccepted(d, pair, { contentHash, source: "generated", attempts, durationMs }, bytes);
        this.decided.set(d.id, { ...d, action: "skip", artifact: { source: "store", contentHash, edited: false } });
        this.finish({ id: d.id, configRef: d.configRef, status: "executed", attempts, contentHash, reasons: d.reasons, durationMs, note: null });
        return;
      }
      history.push({ feedback: verdict.feedback });
    }
    fail(`rejected after ${total} attempt${total === 1 ? "" : "s"}: ${attempts[attempts.length - 1]?.feedback ?? ""}`);
  }

  private async check(guard: Guard | null, pair: Pair, content: string, attempt: number): Promise<GuardResult> {
    if (guard === null) return { accepted: true, feedback: "" }; // no guard accepts
    const artifactPath = path.join(this.tmp, `${pair.id}.${attempt}.txt`);
    writeFileSync(artifactPath, content);
    return guard({
      pairId: pair.id,
      content,
      artifactPath,
      config: plain(pair.guardConfig) as Record<string, unknown>,
      guards: pair.guards,
      cwd: this.prepared.workflow.dir,
      env: this.env,
      signal: this.signal,
    });
  }

  private contentOf(id: string): Buffer | undefined {
    const known = this.contents.get(id);
    if (known) return known;
    const pair = this.prepared.workflow.pairs.get(id)!;
    const file = outputPath(this.prepared.workflow, pair);
    const content = file !== undefined && existsSync(file) ? readFileSync(file) : this.prepared.store.content(this.decided.get(id)!.artifact!.contentHash);
    if (content) this.contents.set(id, content);
    return content;
  }

  // -------------------------------------------------------------------------------------------
  // Records

  private async recordAccepted(
    d: PlannedPair,
    pair: Pair,
    r: { contentHash: string; source: "generated" | "human"; attempts: AttemptRecord[]; durationMs: number },
    content: Buffer,
  ): Promise<void> {
    const tokens = { input: 0, output: 0 };
    for (const a of r.attempts) if (a.tokens) addTokens(tokens, a.tokens);
    const at = new Date().toISOString();
    const record: StoreRecord = {
      pair: d.id, configRef: d.configRef!, status: "accepted", contentHash: r.contentHash, components: d.components!, at,
      source: r.source, model: pair.model, attempts: r.attempts.length, tokens, durationMs: r.durationMs,
    };
    this.prepared.store.putRecord(record);
    this.setLockEntry(d.id, {
      configRef: d.configRef!, contentHash: r.contentHash, source: r.source, model: pair.model, components: d.components!,
      attempts: r.attempts.length, tokens, durationMs: r.durationMs, acceptedAt: at,
    });
    if (this.options.remote) {
      const save = this.options.remote.save({ record, content }).catch((err: unknown) => {
        this.emit({ type: "warning", message: `${d.id}: could not save to ${this.options.remote!.name}: ${(err as Error).message}` });
      });
      this.saves.push(save);
    }
  }

  private setLockEntry(id: string, entry: LockEntry): void {
    this.lock.pairs[id] = entry;
    this.lockDirty = true;
    this.flushLock();
  }

  private flushLock(): void {
    if (!this.lockDirty) return;
    writeLock(this.prepared.lockPath, this.lock);
    this.lockDirty = false;
  }

  private blocked(id: string, note: string): PairOutcome {
    const planned = this.plan.byId.get(id)!;
    return { id, configRef: planned.configRef, status: "blocked", attempts: [], contentHash: null, reasons: planned.reasons, durationMs: 0, note };
  }

  private finish(outcome: PairOutcome): void {
    this.outcomes.set(outcome.id, outcome);
    this.emit({ type: "pair_end", outcome });
  }

  private emit(event: RunEvent): void {
    this.options.onEvent?.(event);
  }
}

function addTokens(into: TokenUsage, more: TokenUsage): void {
  into.input += more.input;
  into.output += more.output;
}
