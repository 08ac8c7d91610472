/** Recorded runs: listing them, one run pair by pair, and pruning old records and unreferenced store entries. */
import { findRepoRoot } from "../workspace/load.js";
import { UsageError } from "../model/errors.js";
import type { PairOutcome } from "../model/run.js";
import { parseDuration, prune, type PruneResult } from "../records/prune.js";
import { listing, listRunIds, outcomesFromTrace, readRun, type RunListing, type RunRecord } from "../records/read.js";
import { stateDirFor, type StateOptions } from "./state.js";

export type HistoryRequest = Pick<StateOptions, "cwd" | "env" | "stateDir">;

/** Run records live in the state directory, which comes from where the command runs. */
export function historyDir(request: HistoryRequest): string {
  return stateDirFor(findRepoRoot(request.cwd), request);
}

export function listRuns(request: HistoryRequest): { dir: string; runs: RunListing[]; problems: string[] } {
  const dir = historyDir(request);
  const runs = listRunIds(dir).map((id) => readRun(dir, id));
  return { dir, runs: runs.map(listing), problems: runs.flatMap((r) => r.problems) };
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

export function pruneRuns(request: HistoryRequest, options: { keep?: number; olderThan?: string }): PruneResult {
  return prune(historyDir(request), { keep: options.keep, olderThanMs: options.olderThan ? parseDuration(options.olderThan) : undefined });
}
