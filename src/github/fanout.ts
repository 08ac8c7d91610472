/**
 * Shards in the jobs of one GitHub Actions matrix meet through the Actions cache: each shard saves
 * its outbox (src/store/shared.ts) as a new immutable entry
 *
 *   <prefix>-fanout-<fan-out>-<I>of<N>-<sequence>
 *
 * and a shard waiting for another's pair restores the newest entry of that shard by the key prefix
 * `<prefix>-fanout-<fan-out>-<J>of<N>-`. An outbox is cumulative, so the newest entry is all a
 * reader needs, and the number of entries grows with the time a shard runs (one per interval), not
 * with its pairs.
 *
 * The plan job pins its split as one more entry, `<prefix>-fanout-<fan-out>-split`, and names the
 * fan-out in the matrix (its own run id and attempt). Shard jobs and the merge job given that name
 * restore the split instead of splitting the plan again, and share one exchange across the run's
 * attempts: a failed shard re-run after the merge (which changed the base state) executes the same
 * pairs, finds what the other shards accepted, and the merge run again finds every shard's outbox.
 * Without a pinned fan-out, the fan-out is the workflow run and its attempt: a re-run of the jobs
 * starts a fresh exchange, while the artifacts an earlier attempt accepted stay in the run's snapshot.
 */
import path from "node:path";
import type { ShardSpec } from "../model/shard.js";
import type { SharedStore, SharedSync, SplitSync } from "../store/shared.js";
import { restore, RetryBudget, save, type CallCounts } from "./cacheClient.js";

/** The two calls of the Actions cache a fan-out needs; failures are reported as values, never thrown. */
export interface CacheCalls {
  /** Restores the newest entry whose key starts with `prefix` into `paths`; whether one was found. */
  restoreNewest(paths: string[], prefix: string): Promise<boolean>;
  /** Saves `paths` under `key`; a failure is a warning (the shard's pairs then reach the others only through a later save). */
  save(paths: string[], key: string): Promise<void>;
}

export function cacheSync(calls: CacheCalls, prefix: string, fanout: string, workspace: string): (shared: SharedStore, self: ShardSpec) => SharedSync {
  const keyOf = (shard: ShardSpec) => `${prefix}-fanout-${fanout}-${shard.index}of${shard.count}-`;
  // The cache matches entries by their paths too: every job names an outbox by the same relative path.
  const pathOf = (shared: SharedStore, shard: ShardSpec) => path.relative(workspace, shared.outboxDir(shard)) || ".";
  let sequence = 0;
  return (shared, self) => ({
    async pull(owner) {
      await calls.restoreNewest([pathOf(shared, owner)], keyOf(owner));
    },
    async push() {
      // Sortable and unique across attempts of the same shard: the time, then a counter.
      const key = `${keyOf(self)}${Date.now().toString(36).padStart(9, "0")}-${++sequence}`;
      await calls.save([pathOf(shared, self)], key);
    },
  });
}

/** The pinned split of a fan-out, as one cache entry the plan job saves and the other jobs restore. */
export function cacheSplit(calls: CacheCalls, prefix: string, fanout: string, workspace: string): SplitSync {
  const key = `${prefix}-fanout-${fanout}-split`;
  const pathOf = (shared: SharedStore) => path.relative(workspace, shared.splitDir()) || ".";
  return {
    async push(shared) {
      await calls.save([pathOf(shared)], key);
    },
    async pull(shared) {
      await calls.restoreNewest([pathOf(shared)], key);
    },
  };
}

/**
 * The fan-out's calls on the Actions cache service, through the same client and the same waiting
 * out of 429s and 5xx as the workflow's snapshots; each call has its own budget of waiting. A
 * failure is one warning per kind: a shard that cannot publish is awaited until the others time out.
 */
export function actionsCacheCalls(options: { retryMs?: number; warn: (message: string) => void }): CacheCalls & { counts: CallCounts } {
  const counts: CallCounts = { uploads: 0, downloads: 0, retries: 0, waitedMs: 0 };
  const warned = new Set<string>();
  const warn = (what: string, reason: string) => {
    if (warned.has(what)) return;
    warned.add(what);
    options.warn(`the shards' exchange through the GitHub Actions cache could not ${what} (${reason}); going on`);
  };
  const budget = () => new RetryBudget(options.retryMs ?? 60_000);
  return {
    counts,
    async restoreNewest(paths, prefix) {
      const got = await restore(paths, prefix, [prefix], budget(), counts);
      if ("key" in got) return true;
      if (got.kind !== "missing") warn("restore another shard's artifacts", got.reason);
      return false;
    },
    async save(paths, key) {
      const done = await save(paths, key, budget(), counts);
      if (done.kind === "denied" || done.kind === "failed") warn("save this shard's artifacts", done.reason);
    },
  };
}
