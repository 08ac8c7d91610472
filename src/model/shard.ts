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

/** What a shard writes to the shared store when it ends. */
export interface ShardResult extends ShardSpec {
  version: 1;
  runId: string;
  status: "success" | "failed" | "interrupted";
  startedAt: string;
  endedAt: string;
  /** The outcomes of the pairs this shard owns. */
  outcomes: PairOutcome[];
}
