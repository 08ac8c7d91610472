/** Recorded runs: listing them, one run pair by pair, and pruning old records and unreferenced store entries. */
import path from "node:path";
import { findRepoRoot, resolveWorkflowPath } from "../workspace/load.js";
import { UsageError } from "../model/errors.js";
import type { PairOutcome } from "../model/run.js";
import { acquireRunLocks, type LockHolder } from "../records/mutex.js";
import { findLockFiles, parseDuration, prune, recordedWorkflows, workflowsOfLockFile, type PruneResult } from "../records/prune.js";
import { listing, listRunIds, outcomesFromTrace, readRun, type RunListing, type RunRecord } from "../records/read.js";
import { checkedStateDir, type StateOptions } from "./state.js";

export interface HistoryRequest extends Pick<StateOptions, "cwd" | "env" | "stateDir"> {
  /**
   * A workflow file or its directory, as `pairflow run` takes it: the state directory is the one
   * its runs use (at its repository's root), and listing keeps only its runs.
   */
  target?: string;
}

/** The repository root the state directory belongs to: the workflow's when one is named, else where the command runs. */
export function historyRoot(request: HistoryRequest): string {
  return request.target === undefined ? findRepoRoot(request.cwd) : findRepoRoot(path.dirname(resolveWorkflowPath(request.target, request.cwd)));
}

/** Run records live in the state directory: the one `pairflow run` used for the workflow named, else the one where the command runs. */
export function historyDir(request: HistoryRequest): string {
  return checkedStateDir(historyRoot(request), request);
}

export function listRuns(request: HistoryRequest): { dir: string; workflow: string | null; runs: ListedRun[]; problems: string[] } {
  const dir = historyDir(request);
  const workflow = request.target === undefined ? null : resolveWorkflowPath(request.target, request.cwd);
  const runs = listRunIds(dir)
    .map((id) => readRun(dir, id))
    .filter((run) => workflow === null || recordedWorkflow(run) === workflow);
  return { dir, workflow, runs: runs.map(listed), problems: runs.flatMap((r) => r.problems) };
}

/** A run as listed; `tokens` is null when no attempt of it reported any (a command generator reports none). */
export interface ListedRun extends Omit<RunListing, "tokens"> {
  tokens: RunListing["tokens"] | null;
}

function listed(run: RunRecord): ListedRun {
  const row = listing(run);
  const reported = run.events.some((e) => e.event === "attempt_end" && e.tokens !== null && e.tokens !== undefined);
  return { ...row, tokens: reported ? row.tokens : null };
}

/** The workflow file a run record names, from its plan or else its trace. */
export function recordedWorkflow(run: RunRecord): string | null {
  return run.plan?.workflow.path ?? (run.events.find((e) => e.event === "run_start")?.workflow as string | undefined) ?? null;
}

export interface ShownRun {
  run: RunRecord;
  summary: RunListing;
  pairs: { id: string; planned: NonNullable<RunRecord["plan"]>["pairs"][number] | null; outcome: PairOutcome | null }[];
}

/** One run: the plan as made beside what happened, pair by pair. */
export function showRun(request: HistoryRequest, runId: string): ShownRun {
  let run: RunRecord;
  try {
    run = readRun(historyDir(request), runId);
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; see pairflow runs`);
  }
  const outcomes = outcomesFromTrace(run.events);
  const ids = run.plan?.pairs.map((p) => p.id) ?? [...outcomes.keys()];
  const pairs = ids.map((id) => ({ id, planned: run.plan?.pairs.find((p) => p.id === id) ?? null, outcome: outcomes.get(id) ?? null }));
  return { run, summary: listing(run), pairs };
}

export interface PruneRequest {
  /** Keep at least the newest N runs. */
  keep?: number;
  /** Remove runs that started longer ago than this: "90m", "12h", "30d", "2w". */
  olderThan?: string;
  /** Say what would be removed, and remove nothing. */
  dryRun?: boolean;
  /** Wait for runs of the workflows concerned to finish (default), or fail at once with LockBusyError. */
  wait?: boolean;
  onWait?: (holder: LockHolder) => void;
}

/**
 * Removes old run records, then every store entry that no lock file in the repository and no kept
 * run refers to. It holds the run mutex of every workflow concerned (each one a lock file belongs
 * to or a run record names) while it reads and removes, so none of their runs writes meanwhile; a
 * dry run takes none, as it removes nothing.
 */
export async function pruneRuns(request: HistoryRequest, options: PruneRequest = {}): Promise<PruneResult> {
  const olderThanMs = options.olderThan ? parseDuration(options.olderThan) : undefined;
  // Taken before anything is read: a store entry written after it stays.
  const startedAt = Date.now();
  const root = historyRoot(request);
  const stateDir = checkedStateDir(root, request);
  const lockFiles = findLockFiles(root, stateDir);
  const pruneNow = () => prune(stateDir, { keep: options.keep, olderThanMs, startedAt, dryRun: options.dryRun, lockFiles });
  if (options.dryRun) return pruneNow();
  const workflows = [...lockFiles.flatMap(workflowsOfLockFile), ...recordedWorkflows(stateDir)];
  const ignored: string[] = [];
  const release = await acquireRunLocks(workflows, { runId: "prune", wait: options.wait ?? true, onWait: options.onWait, onWarn: (m) => ignored.push(m) });
  try {
    const result = pruneNow();
    return { ...result, warnings: [...ignored, ...result.warnings] };
  } finally {
    release();
  }
}
