/**
 * A run as the commands start it: one run at a time per workflow and state directory (a lock),
 * every event recorded under runs/<runId>/, and resuming an interrupted run where it stopped.
 */
import path from "node:path";
import { UsageError } from "../model/errors.js";
import { findRepoRoot, loadWorkflow, resolveWorkflowPath } from "../config/load.js";
import { acquireRunLock, currentHolder, type LockHolder } from "../records/mutex.js";
import { listRunIds, outcomesFromTrace, readRun, resumeState, runState } from "../records/read.js";
import { RunRecorder } from "../records/write.js";
import { stateDirFor } from "./prepare.js";
import { workflowRef } from "../refs/configRef.js";
import { newRunId, runWorkflow, type RunOptions } from "../engine/engine.js";
import type { PairOutcome, RunEvent, RunReport, Selection } from "../model/run.js";

export interface SessionOptions extends RunOptions {
  /** Wait for another run of the same workflow to finish (default), or fail at once. */
  wait?: boolean;
  onWait?: (holder: LockHolder) => void;
  /** When resuming: outcomes from before the interruption, and when the run first started. */
  earlier?: Map<string, PairOutcome>;
  startedAt?: string;
}

/** The state directory for a workflow path, without loading the workflow. */
export function stateDirOf(workflowPath: string, options: { stateDir?: string; cwd?: string }): string {
  return stateDirFor({ root: findRepoRoot(path.dirname(workflowPath)) }, options.stateDir, options.cwd);
}

export async function runSession(target: string | undefined, options: SessionOptions = {}): Promise<RunReport> {
  const cwd = options.cwd ?? process.cwd();
  const workflowPath = resolveWorkflowPath(target, cwd);
  const stateDir = stateDirOf(workflowPath, options);
  const runId = options.runId ?? newRunId();
  const release = await acquireRunLock(stateDir, workflowPath, { runId, wait: options.wait ?? true, onWait: options.onWait, signal: options.stop });
  try {
    const warn = (message: string) => options.onEvent?.({ type: "warning", message });
    const recorder = new RunRecorder(stateDir, options.selection ?? {}, warn, options.earlier, options.startedAt);
    const onEvent = (event: RunEvent) => {
      recorder.record(event);
      options.onEvent?.(event.type === "run_end" ? { ...event, report: recorder.merged(event.report) } : event);
    };
    const report = await runWorkflow(workflowPath, { ...options, cwd, stateDir, runId, onEvent });
    return recorder.merged(report);
  } finally {
    release();
  }
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
export async function resumeSession(runId: string | undefined, options: SessionOptions = {}): Promise<Resumed> {
  const cwd = options.cwd ?? process.cwd();
  // Run records live in the state directory, so it comes from where the command runs.
  const stateDir = stateDirFor({ root: findRepoRoot(cwd) }, options.stateDir, cwd);
  const id = runId ?? latestUnfinished(stateDir);
  let run;
  try {
    run = readRun(stateDir, id);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  for (const problem of run.problems) options.onEvent?.({ type: "warning", message: problem });
  const state = runState(run);
  if (state === "success" || state === "failed") throw new UsageError(`run ${id} already finished (${state}); start a new one with pairflow run`);
  const workflowPath = run.plan?.workflow.path ?? (run.events.find((e) => e.event === "run_start")?.workflow as string | undefined);
  if (!workflowPath) throw new UsageError(`run ${id} has no readable plan.json or trace, so there is nothing to resume; start a new run with pairflow run`);
  const holder = currentHolder(stateDir, workflowPath);
  if (holder?.runId === id) throw new UsageError(`run ${id} is still going (pid ${holder.pid} on ${holder.host})`);

  const selection = run.plan?.selection ?? {};
  const recordedRef = run.plan?.workflow.workflowRef ?? (run.events.find((e) => e.event === "run_start")?.workflowRef as string | undefined);
  const currentRef = workflowRef(loadWorkflow(workflowPath, cwd).workflow);
  if (recordedRef !== currentRef) {
    options.onEvent?.({ type: "warning", message: `the workflow's structure changed since run ${id} (workflowRef ${recordedRef?.slice(0, 12)} -> ${currentRef.slice(0, 12)}); planning anew, reusing everything still valid` });
    const report = await runSession(workflowPath, { ...options, cwd, stateDir, selection, runId: undefined });
    return { report, from: id, replanned: true };
  }
  const report = await runSession(workflowPath, {
    ...options, cwd, stateDir, selection, runId: id,
    resume: resumeState(run.events), earlier: outcomesFromTrace(run.events), startedAt: run.events[0]?.t,
  });
  return { report, from: id, replanned: false };
}

function latestUnfinished(stateDir: string): string {
  for (const id of listRunIds(stateDir)) {
    const run = readRun(stateDir, id);
    const state = runState(run);
    const workflow = run.plan?.workflow.path;
    if ((state === "unfinished" || state === "interrupted") && !(workflow && currentHolder(stateDir, workflow)?.runId === id)) return id;
  }
  throw new UsageError(`no interrupted run to resume in ${stateDir}`);
}
