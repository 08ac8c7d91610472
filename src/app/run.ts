/**
 * Running as both shells do it: one run at a time per workflow (the run mutex), the one plan, the
 * one budget gate, the engine with its adapters, every event recorded under runs/<runId>/, and
 * resuming an interrupted run where it stopped.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { displayPath } from "../config/parse.js";
import { diskFiles, findRepoRoot, loadWorkflow, resolveWorkflowPath } from "../workspace/load.js";
import { checkWorkflow } from "../config/check.js";
import { DEFAULT_CONCURRENCY, executePlan, newRunId, type EngineDeps } from "../engine/engine.js";
import { checkBudget } from "../estimate/budget.js";
import { spendOf } from "../estimate/spend.js";
import { asksBeforeRunning, type PlanEstimate } from "../estimate/estimate.js";
import { getGenerator } from "../generators/index.js";
import { Batcher, DEFAULT_POLL_MS } from "../generators/batch.js";
import { BatchFile } from "../records/batches.js";
import { getGuard } from "../guards/index.js";
import { foldJournal, LockWriter } from "../lockfile/journal.js";
import { lockPathFor } from "../lockfile/lockfile.js";
import { ConfigError, RunDeclinedError, StorageError, UsageError } from "../model/errors.js";
import type { Pair, Workflow } from "../model/workflow.js";
import type { BatchWave, ChildGroup, CommandLimits, Generator, Guard, OnProcess, Pacing, RateLimits, ReadTracer } from "../model/ports.js";
import { killRecordedGroups, prepareLauncher, stopLauncher } from "../processes/children.js";
import type { PairOutcome, ResumeState, RunEvent, RunReport, Selection } from "../model/run.js";
import { decider } from "../plan/plan.js";
import { acquireRunLock, currentHolder, lockPath, type LockHolder } from "../records/mutex.js";
import { latestRunOf, listRunIds, outcomesFromTrace, readRun, resumeState, runState } from "../records/read.js";
import { inFlightGroups, RunRecorder } from "../records/write.js";
import { workflowRef } from "../refs/configRef.js";
import { ownWrite, removeStaleTemporaries, WRITE_FAILURES, WriteError } from "../workspace/files.js";
import { outputPath } from "../workspace/outputs.js";
import { scratchDir } from "../workspace/scratch.js";
import { childSetup, type ChildSetup } from "./environment.js";
import { commandsToStart, runsCommands, unconfinedWarning } from "./sandbox.js";
import { DEFAULT_LIMITS } from "../processes/limits.js";
import { recoverStaged } from "../workspace/staged.js";
import { probeTracer } from "../processes/trace.js";
import type { Plan } from "../model/plan.js";
import { planOpened, type Planned, type PlanRequest } from "./plan.js";
import { checkedStateDir, openState } from "./state.js";
import { systemClock } from "../schedule/clock.js";
import { Pacer } from "../schedule/pacer.js";

export interface RunRequest extends PlanRequest {
  /** Generators and guards beside (or instead of) the ones pairflow ships, by name. */
  generators?: Record<string, Generator>;
  guards?: Record<string, Guard>;
  /**
   * Pairs at once. A number: at most that many, model pairs and commands alike, and at most that
   * many calls to one provider budget. auto (the default): commands at most DEFAULT_CONCURRENCY at
   * once, model pairs up to AUTO_CONCURRENCY, their calls as many as their budget takes: growing
   * while answers come, halved on a 429.
   */
  concurrency?: number | "auto";
  /** The longest one provider call may wait for its rate limit, in seconds; then its pair is interrupted. Default: no limit. */
  maxWaitSeconds?: number;
  /** Limits of every model endpoint the run calls, over its workflow's `rate_limit` (`--requests-per-minute`, `--tokens-per-minute`). */
  rateLimits?: RateLimits;
  /** Refuse (BudgetExceededError, nothing executed) when the estimate exceeds this many US dollars. */
  maxCost?: number;
  /** How the budget is named in messages: `--max-cost` on the command line, `max-cost` in the action. */
  maxCostName?: string;
  /** Sees the plan before anything executes (to show it), and why it exceeds `maxCost`, if it does. */
  onPlanned?: (planned: Planned, overBudget: string | null) => void;
  /** Asked before executing anything, when something that may cost money will execute; false refuses (RunDeclinedError). */
  confirm?: (planned: Planned) => Promise<boolean>;
  /** Wait for another run of the same workflow to finish (default), or fail at once. */
  wait?: boolean;
  onWait?: (holder: LockHolder) => void;
  /** Aborting starts nothing new; pairs in flight go on (a graceful stop). */
  stop?: AbortSignal;
  /** Aborting starts nothing new and cancels the pairs in flight, their child processes included. */
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  /** Given, as the run starts, how many of its provider calls wait for their rate limit at any moment (for a progress line). */
  onPacing?: (waiting: () => number) => void;
  /** The run's id; a resumed run keeps its own. Default: a new one. */
  runId?: string;
  /** How commands run: auto (default: confined where bubblewrap works), required, off (see ./sandbox.ts). */
  sandbox?: string;
  /** What each command may take (`--limits`, the action's `limits` input); default: DEFAULT_LIMITS. */
  limits?: CommandLimits;
  /** Run commands under strace and record what they read that their pairs' references do not name (see src/processes/trace.ts). */
  traceReads?: boolean;
  /** Every openai and anthropic pair's calls go through its provider's batch API (`--batch`); else only those with generator_config.batch. */
  batch?: boolean;
  /**
   * Wait for provider batches to end (default). false (`--no-wait`): send them and end, the run
   * waiting; a later run or resume collects them.
   */
  batchWait?: boolean;
}

/** The run was refused before anything executed; `estimate` is the breakdown to show. */
export class BudgetExceededError extends Error {
  override name = "BudgetExceededError";
  constructor(
    message: string,
    readonly estimate: PlanEstimate,
    readonly maxCost: number,
  ) {
    super(message);
  }
}

interface Resuming {
  resume: ResumeState;
  /** Outcomes from before the interruption, and when the run first started. */
  earlier: Map<string, PairOutcome>;
  startedAt?: string;
}

export function runTarget(target: string | undefined, request: RunRequest): Promise<RunReport> {
  return runWith(target, request, undefined);
}

/** Codes that say the disk is full or cannot be written at all, whatever wrote: see WRITE_FAILURES. */
const STORAGE_ERRORS = new Set(["ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EIO"]);

/**
 * A file that cannot be written stops the run with one line naming it and saying what to do: a
 * full or read-only disk, whatever wrote; and a path that cannot be written (gone, not a directory,
 * not permitted, a link loop, too long) when pairflow wrote one of its own files (WriteError).
 */
async function runWith(target: string | undefined, request: RunRequest, resuming: Resuming | undefined): Promise<RunReport> {
  try {
    return await runLocked(target, request, resuming);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined || !(STORAGE_ERRORS.has(code) || (err instanceof WriteError && Object.hasOwn(WRITE_FAILURES, code)))) throw err;
    const file = (err as NodeJS.ErrnoException).path;
    const at = err instanceof WriteError && err.at ? ` at ${displayPath(err.at, request.cwd)}` : "";
    const todo = STORAGE_ERRORS.has(code)
      ? "Free some space and run again"
      : `Make sure ${file ? displayPath(path.dirname(file), request.cwd) : "its directory"} is a directory pairflow can write (a command of the run may have removed or replaced it), then run again`;
    throw new StorageError(
      `could not write${file ? ` ${displayPath(file, request.cwd)}` : ""}: ${WRITE_FAILURES[code]} (${code}${at}). The run stopped; every file it wrote is whole. ${todo}: what was accepted is kept.`,
    );
  }
}

async function runLocked(target: string | undefined, request: RunRequest, resuming: Resuming | undefined): Promise<RunReport> {
  const workflowPath = resolveWorkflowPath(target, request.cwd);
  const stateDir = checkedStateDir(findRepoRoot(path.dirname(workflowPath)), request);
  const runId = request.runId ?? newRunId();
  // The mutex is a file of pairflow's own beside the lock file: failing to write it is a WriteError.
  const release = await ownWriteAsync(lockPath(workflowPath), () =>
    acquireRunLock(workflowPath, {
      runId,
      wait: request.wait ?? true,
      onWait: request.onWait,
      onWarn: (message) => request.onEvent?.({ type: "warning", message }),
      signal: request.stop,
    }),
  );
  try {
    // What a killed run journaled goes into the lock file before anything reads it, and what it
    // left running is stopped before anything starts (resuming stopped it already).
    foldJournal(lockPathFor(workflowPath), displayPath(lockPathFor(workflowPath), request.cwd));
    if (!resuming) await stopLeftovers(stateDir, workflowPath);
    // A candidate a killed run left at its output path for a guard: what was there goes back.
    recoverStaged(stateDir);
    const opened = openState(workflowPath, { ...request, stateDir, warn: (message) => request.onEvent?.({ type: "warning", message }) });
    // What a killed run left half-written beside the lock file and the outputs goes first.
    const outputDirs = [...opened.workflow.pairs.values()].flatMap((pair) =>
      pair.output === undefined ? [] : [path.dirname(outputPath(opened.workflow, pair)!)],
    );
    // Resuming follows a crash: what it left half-written in the store and the run records goes too.
    removeStaleTemporaries([path.dirname(opened.lockPath), ...outputDirs, ...(resuming ? directoriesUnder(stateDir, 3) : [])]);
    const planned = await planOpened(opened, { selection: request.selection, finished: resuming?.resume.finished, batch: request.batch });
    await refuseWhatWouldFail(planned, request);
    await gate(planned, request);
    const children = childSetup(request, opened.workflow, planned.plan);

    const selection: Selection = request.selection ?? {};
    const warn = (message: string) => request.onEvent?.({ type: "warning", message });
    const recorder = new RunRecorder(stateDir, selection, warn, resuming?.earlier, resuming?.startedAt, request.batch);
    const pacer = runPacer(request);
    request.onPacing?.(() => pacer.waiting());
    const onEvent = (event: RunEvent) => {
      recorder.record(event);
      request.onEvent?.(
        event.type === "run_end" ? { ...event, report: finishedReport(recorder.merged(event.report), children, opened.workflow, pacer) } : event,
      );
    };
    const unconfined = unconfinedWarning(children.state);
    if (unconfined) warn(unconfined);
    if (children.state?.layer)
      warn(`guards see the repository read-only here (${children.state.layer}): a tool that writes its cache there fails; see docs/security.md`);
    const trace = readTracer(request, children, planned.plan, warn);
    // Provider batches: each change on record in the state directory before it returns (and in the
    // CI snapshot soon after), so no batch is ever sent twice (src/generators/batch.ts).
    const ledger = new BatchFile(stateDir, opened.workflow.path, opened.store, opened.remote);
    const poll = Number(request.env?.PAIRFLOW_BATCH_POLL_MS);
    const planOrder = new Map(planned.plan.pairs.map((p, i) => [p.id, i]));
    const batcher = new Batcher({
      ledger,
      all: request.batch ?? false,
      wait: request.batchWait ?? true,
      concurrency: runConcurrency(request.concurrency).pairs,
      pollMs: request.env?.PAIRFLOW_BATCH_POLL_MS && poll >= 0 ? poll : DEFAULT_POLL_MS,
      signal: request.signal ?? new AbortController().signal,
      onEvent,
      onWarning: warn,
      order: (pair) => planOrder.get(pair) ?? planOrder.size,
    });
    // Every process group a generator or guard starts is in the run record before it does anything.
    const deps: EngineDeps = {
      ...drivers(request, (pair, group) => recorder.process(pair, group), batcher, pacer),
      store: opened.store,
      outputs: opened.outputs,
      remote: opened.remote,
      lockFile: new LockWriter(opened.lockPath, opened.workflow.name),
      scratch: scratchDir(),
      decide: decider(planned.plan, opened.view, resuming?.resume.finished),
      observe: (_pair, own, reads) =>
        opened.files.observedHashes(opened.files.workflowPaths(reads), [own.files?.generator ?? {}, own.files?.guard ?? {}, own.inputs ?? {}]),
      batches: batchWave(request, batcher),
    };
    let final = false;
    try {
      prepareLauncher(commandsToStart(planned.plan));
      const report = await executePlan(planned.plan, deps, {
        runId,
        lock: opened.lock,
        ...engineConcurrency(request),
        env: children.env,
        sandbox: children.sandbox,
        limits: request.limits ?? DEFAULT_LIMITS,
        trace,
        redact: children.redact,
        resume: resuming?.resume,
        stop: request.stop,
        signal: request.signal,
        onEvent,
      });
      // Nothing waiting, nothing stopped: the answers it used are done with.
      final = report.status === "success" || report.status === "failed";
      return finishedReport(recorder.merged(report), children, opened.workflow, pacer);
    } finally {
      await batcher.close(final);
      ledger.close();
      recorder.close();
      await stopLauncher();
    }
  } finally {
    release();
  }
}

/**
 * The tracer of a run asked to trace what its commands read, when it starts any; where strace
 * cannot trace here, the run says so once and runs them untraced.
 */
function readTracer(request: RunRequest, children: ChildSetup, plan: Plan, warn: (message: string) => void): ReadTracer | undefined {
  if (!request.traceReads || !runsCommands(plan)) return undefined;
  const probe = probeTracer(request.env ?? {}, children.sandbox);
  if (probe.available) return probe.tracer;
  warn(`reads are not traced: ${probe.reason}; commands run untraced, and nothing is recorded of what they read`);
  return undefined;
}

/** The report with how its commands ran (when it started any), what it bought and reused, and how its provider calls were paced (when it made any). */
export function finishedReport<R extends RunReport>(report: R, children: ChildSetup, workflow: Workflow, pacer?: Pacer): R {
  const pacing = pacer?.summary();
  return {
    ...report,
    ...(children.state ? { sandbox: children.state } : {}),
    spend: spendOf(report, workflow),
    ...(pacing && pacing.calls > 0 ? { pacing } : {}),
  };
}

/** Model pairs at once under `concurrency: auto`: how many of their calls go at once is their budget's to find. */
export const AUTO_CONCURRENCY = 32;

/** What a run's concurrency means: pairs at once, model pairs apart under auto, and calls in flight per provider budget. */
export function runConcurrency(concurrency: RunRequest["concurrency"]): { pairs: number; models?: number; calls: { cap: number; start: number } } {
  if (concurrency === undefined || concurrency === "auto") {
    return { pairs: DEFAULT_CONCURRENCY, models: AUTO_CONCURRENCY, calls: { cap: AUTO_CONCURRENCY, start: DEFAULT_CONCURRENCY } };
  }
  const n = Math.max(1, concurrency);
  return { pairs: n, calls: { cap: n, start: n } };
}

/** The engine's share of a run's concurrency: model pairs (pairflow's openai and anthropic) have slots of their own under auto. */
export function engineConcurrency(request: Pick<RunRequest, "concurrency" | "generators">): {
  concurrency: number;
  modelPairs?: { concurrency: number; is(pair: Pair): boolean };
} {
  const { pairs, models } = runConcurrency(request.concurrency);
  if (models === undefined) return { concurrency: pairs };
  const own = request.generators ?? {};
  const is = (pair: Pair) => (pair.generator === "openai" || pair.generator === "anthropic") && !Object.hasOwn(own, pair.generator);
  return { concurrency: pairs, modelPairs: { concurrency: models, is } };
}

/**
 * The pacing of one run's (or shard's) provider calls, shared by every call it makes (src/schedule/).
 * One of N shards spending one account takes `share` 1/N of every budget. PAIRFLOW_RATE_MINUTE_MS
 * shortens the minute of a `rate_limit` (tests).
 */
export function runPacer(request: Pick<RunRequest, "concurrency" | "maxWaitSeconds" | "rateLimits" | "env">, share = 1): Pacer {
  const minute = Number(request.env?.PAIRFLOW_RATE_MINUTE_MS);
  return new Pacer({
    clock: systemClock,
    concurrency: runConcurrency(request.concurrency).calls,
    share,
    ...(request.maxWaitSeconds === undefined ? {} : { maxWaitMs: request.maxWaitSeconds * 1000 }),
    ...(request.rateLimits === undefined ? {} : { limits: request.rateLimits }),
    ...(minute > 0 ? { minuteMs: minute } : {}),
  });
}

/** `dir` and the directories under it, `depth` levels down, symbolic links not followed. */
function directoriesUnder(dir: string, depth: number): string[] {
  const found = [dir];
  if (depth === 0) return found;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) if (entry.isDirectory()) found.push(...directoriesUnder(path.join(dir, entry.name), depth - 1));
  return found;
}

/**
 * The generators and guards a run drives: the caller's own by name, else pairflow's; each told to
 * report the process groups it starts, when there is a record to keep them in.
 */
export function drivers(
  request: Pick<RunRequest, "generators" | "guards">,
  onProcess?: (pair: string, group: ChildGroup) => void,
  batcher?: Batcher,
  pacing?: Pacing,
): Pick<EngineDeps, "generator" | "guard"> {
  const generators = request.generators ?? {};
  const guards = request.guards ?? {};
  return {
    generator: (name) => {
      let generate = name !== null && Object.hasOwn(generators, name) ? generators[name]! : getGenerator(name);
      // pairflow's own provider generators answer from batches where they should.
      if (batcher && (name === "openai" || name === "anthropic") && !Object.hasOwn(generators, name)) generate = batcher.generator(name, generate);
      // Every call of the run, first attempts, retries and a batch's stand-ins alike, paced by one set of budgets.
      if (pacing) {
        const paced = generate;
        generate = (req) => paced(withField(req, "pacing", pacing));
      }
      return onProcess ? (req) => generate(withOnProcess(req, (group) => onProcess(req.pairId, group))) : generate;
    },
    guard: (name) => {
      const check = name !== null && Object.hasOwn(guards, name) ? guards[name]! : getGuard(name);
      return onProcess ? (req) => check(withOnProcess(req, (group) => onProcess(req.pairId, group))) : check;
    },
  };
}

/** The batcher's part in scheduling, for the pairs whose generator is pairflow's own openai or anthropic. */
function batchWave(request: Pick<RunRequest, "generators">, batcher: Batcher): BatchWave {
  const own = (name: string | null) => name === null || !Object.hasOwn(request.generators ?? {}, name);
  return {
    batched: (pair) => own(pair.generator) && batcher.batched(pair),
    join: (pair) => batcher.join(pair),
    leave: (pair) => batcher.leave(pair),
  };
}

/**
 * The request with `onProcess` set. Its properties are copied as they are defined, not read as a
 * spread would read them: a guard request's artifactPath writes the artifact to a scratch file
 * when first read, which only a guard that uses it (a command guard) should cause.
 */
function withOnProcess<T extends object>(request: T, onProcess: OnProcess): T & { onProcess: OnProcess } {
  return withField(request, "onProcess", onProcess);
}

/**
 * The request with one more field, its properties copied as they are defined (see withOnProcess).
 * A plain data property is assigned, which keeps the copy a fast object (defining every property
 * made one that is slow to make and to read, three times a pair); any other is defined as it is.
 */
function withField<T extends object, K extends string, V>(request: T, key: K, value: V): T & Record<K, V> {
  const copy = {} as Record<PropertyKey, unknown>;
  for (const name of Reflect.ownKeys(request)) {
    if (name === key) continue;
    const property = Object.getOwnPropertyDescriptor(request, name)!;
    if (name !== "__proto__" && property.writable && property.enumerable && property.configurable) copy[name] = property.value;
    else Object.defineProperty(copy, name, property);
  }
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy as T & Record<K, V>;
}

/**
 * What validate finds that would fail a pair about to execute stops the run before anything
 * executes, so no upstream pair spends money first. The checks know only pairflow's own generators
 * and guards: a caller that brings its own (tests, embedders) is trusted with them.
 */
export async function refuseWhatWouldFail(planned: Planned, request: RunRequest): Promise<void> {
  if (request.generators !== undefined || request.guards !== undefined) return;
  const running = planned.plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
  if (running.length === 0) return;
  const under = (key: string, id: string) => key === `action_pairs.${id}` || key.startsWith(`action_pairs.${id}.`);
  const errors = (await checkWorkflow(planned.loaded, diskFiles)).filter(
    (issue) =>
      (issue.severity ?? "error") === "error" &&
      // Problems of a pair that will not execute wait for the run that executes it.
      (!issue.key.startsWith("action_pairs.") || running.some((id) => under(issue.key, id))),
  );
  if (errors.length > 0) throw new ConfigError(errors);
}

/** The one budget gate: shows the plan, refuses a run over `maxCost`, then asks, before anything executes. */
export async function gate(planned: Planned, request: RunRequest): Promise<void> {
  const { estimate } = planned;
  const over = request.maxCost !== undefined ? checkBudget(estimate, request.maxCost, request.maxCostName) : null;
  request.onPlanned?.(planned, over);
  if (estimate.pairs.length === 0) return; // nothing will execute: nothing to check or ask
  if (over !== null) throw new BudgetExceededError(`${over}; nothing was executed`, estimate, request.maxCost!);
  if (request.confirm && asksBeforeRunning(estimate) && !(await request.confirm(planned))) throw new RunDeclinedError("not confirmed; nothing was executed");
}

export interface Resumed {
  report: RunReport;
  /** The run that was resumed. */
  from: string;
  /** The workflow changed since: it was planned anew instead of resumed. */
  replanned: boolean;
}

/**
 * Continues an interrupted run (default: the latest one) under its own id: pairs it finished are
 * not executed again, and a pair stopped in the middle of an attempt makes that attempt again
 * with the same history. If the workflow's structure changed since, it says so and plans anew.
 */
export async function resumeTarget(runId: string | undefined, request: RunRequest, target?: string): Promise<Resumed> {
  const { cwd } = request;
  // Run records live in the state directory: the one runs of the workflow named use, else the
  // one where the command runs.
  const named = target === undefined ? undefined : resolveWorkflowPath(target, cwd);
  const stateDir = checkedStateDir(findRepoRoot(named === undefined ? cwd : path.dirname(named)), request);
  const id = runId ?? latestUnfinished(stateDir, named);
  let run;
  try {
    run = readRun(stateDir, id);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  for (const problem of run.problems) request.onEvent?.({ type: "warning", message: problem });
  const state = runState(run);
  if (state === "success" || state === "failed") throw new UsageError(`run ${id} already finished (${state}); start a new one with pairflow run`);
  const workflowPath = run.plan?.workflow.path ?? (run.events.find((e) => e.event === "run_start")?.workflow as string | undefined);
  if (!workflowPath) throw new UsageError(`run ${id} has no readable plan.json or trace, so there is nothing to resume; start a new run with pairflow run`);
  if (named !== undefined && workflowPath !== named) throw new UsageError(`run ${id} is a run of ${workflowPath}, not of ${named}`);
  const holder = currentHolder(workflowPath);
  if (holder?.runId === id) throw new UsageError(`run ${id} is still going (pid ${holder.pid} on ${holder.host})`);
  // What it left running (its pairflow was killed) is stopped before any of its attempts is made again.
  await killRecordedGroups(inFlightGroups(run.events));

  const selection = run.plan?.selection ?? {};
  // A run started with --batch goes on in batches: a later resume need not say it again.
  if (run.plan?.batch === true) request = { ...request, batch: true };
  const recordedRef = run.plan?.workflow.workflowRef ?? (run.events.find((e) => e.event === "run_start")?.workflowRef as string | undefined);
  const currentRef = workflowRef(loadWorkflow(workflowPath, cwd).workflow);
  if (recordedRef !== currentRef) {
    request.onEvent?.({
      type: "warning",
      message: `the workflow's structure changed since run ${id} (workflowRef ${recordedRef?.slice(0, 12)} -> ${currentRef.slice(0, 12)}); planning anew, reusing everything still valid`,
    });
    const report = await runWith(workflowPath, { ...request, stateDir, selection, runId: undefined }, undefined);
    return { report, from: id, replanned: true };
  }
  const report = await runWith(
    workflowPath,
    { ...request, stateDir, selection, runId: id },
    {
      resume: resumeState(run.events),
      earlier: outcomesFromTrace(run.events),
      startedAt: run.events[0]?.t,
    },
  );
  return { report, from: id, replanned: false };
}

/**
 * Stops the commands the latest run of this workflow left running when its pairflow was killed
 * (under the run mutex, so that run is over): a plain run after a crash, as well as resume, must
 * not run beside them. A run that finished stopped its own.
 */
async function stopLeftovers(stateDir: string, workflowPath: string): Promise<void> {
  const last = latestRunOf(stateDir, workflowPath);
  if (last === undefined || last.finished) return;
  await killRecordedGroups(inFlightGroups(readRun(stateDir, last.runId).events));
}

/**
 * The newest run that did not finish, among the latest run of each workflow: an interrupted run
 * that a later run of its workflow has since overtaken is history, not something to continue.
 */
function latestUnfinished(stateDir: string, only?: string): string {
  const seen = new Set<string>();
  for (const id of listRunIds(stateDir)) {
    const run = readRun(stateDir, id);
    const workflow = run.plan?.workflow.path ?? (run.events.find((e) => e.event === "run_start")?.workflow as string | undefined) ?? id;
    if (seen.has(workflow) || (only !== undefined && workflow !== only)) continue;
    seen.add(workflow);
    const state = runState(run);
    if ((state === "unfinished" || state === "interrupted" || state === "waiting") && currentHolder(workflow)?.runId !== id) return id;
  }
  if (only !== undefined) throw new UsageError(`no interrupted run of ${only} to resume in ${stateDir}: its latest run finished`);
  throw new UsageError(`no interrupted run to resume in ${stateDir}: the latest run of each workflow finished`);
}

/** ownWrite for a write that is awaited. */
async function ownWriteAsync<T>(file: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    return ownWrite(file, () => {
      throw err;
    });
  }
}
