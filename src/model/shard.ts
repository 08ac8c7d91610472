/** A run fanned out over several jobs: shards of the pairs a plan runs, and what each shard reports. */
import type { PairOutcome } from "./run.js";

/** Shard `index` of `count`, 1-based: `--shard 2/3`. */
export interface ShardSpec {
  index: number;
  count: number;
}

export interface Shard extends ShardSpec {
  /** The pairs this shard executes, in plan order. */
  pairs: string[];
  /** The sum of its pairs' weights (their expected durations, relative to each other). */
  weight: number;
  /** Pairs of other shards whose artifacts this shard waits for, with the index of the shard that owns each. */
  awaits: Record<string, number>;
}

/**
 * The split one plan made, pinned for every shard and the merge of its fan-out: a shard that runs
 * again after the merge changed the base state (a re-run of a failed job) executes the same pairs,
 * and awaits the same owners, as the first time.
 */
export interface PinnedSplit {
  version: 1;
  fanout: string;
  /** The workflowRef of the plan that made it: a split is only good for the workflow's structure it was made for. */
  workflowRef: string;
  count: number;
  shards: Shard[];
}

/** What a shard writes to the shared store when it ends. */
export interface ShardResult extends ShardSpec {
  version: 1;
  runId: string;
  /** Which attempt of a pinned fan-out wrote it (a job's re-run is a new attempt); absent otherwise. */
  attempt?: string;
  status: "success" | "failed" | "interrupted";
  startedAt: string;
  endedAt: string;
  /** The outcomes of the pairs this shard owns. */
  outcomes: PairOutcome[];
}
