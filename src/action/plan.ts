/**
 * Plan mode with the Actions cache. The local plan runs every pair with no accepted artifact in
 * the lock file or the local store; the cache may hold one, accepted by an earlier job. For each
 * pair the plan would run whose configRef is known, the cache is asked whether the entry exists
 * (a lookup: nothing is downloaded), and a pair found there is shown as skip.
 *
 * A lookup does not tell the entry's content hash, which is part of each dependent's configRef; so
 * the dependents of a pair found in the cache keep an unknown reference ("?") and stay `run`, with
 * a reason saying so. A run restores the entry and decides them with it (and may reuse them). A
 * committed lock file makes the plan exact without any lookup.
 */
import type { Plan, PlannedPair, Reason } from "../model/plan.js";
import type { RemoteStore } from "../model/ports.js";

/** Lookups in flight at once: each is one small request. */
const LOOKUPS_AT_ONCE = 8;

/** The pairs the plan runs whose accepted artifact is in the cache. */
export async function findInCache(plan: Plan, remote: RemoteStore): Promise<Set<string>> {
  const candidates = plan.pairs.filter((p) => p.action === "run" && p.configRef !== null);
  const found = new Set<string>();
  let next = 0;
  const worker = async () => {
    while (next < candidates.length) {
      const p = candidates[next++]!;
      if (await remote.has(p.id, p.configRef!)) found.add(p.id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, candidates.length) }, worker));
  return found;
}

/** The plan with the pairs found in the cache as skip, and their dependents' reasons updated. */
export function withCacheHits(plan: Plan, hits: ReadonlySet<string>): Plan {
  if (hits.size === 0) return plan;
  const pairs = plan.pairs.map((p): PlannedPair => {
    if (hits.has(p.id)) return { ...p, action: "skip", reasons: [], artifact: null };
    const cached = p.requires.filter((d) => hits.has(d));
    if (p.action !== "run" || cached.length === 0) return p;
    // The plan said "<dependency> will run"; it will be restored instead.
    const reasons = p.reasons.filter((r) => !(r.kind === "upstream" && cached.some((d) => r.detail.startsWith(`${d} `))));
    for (const d of cached) {
      reasons.push({ kind: "upstream", detail: `${d} is in the GitHub Actions cache; this pair's reference is known once a run restores it` } satisfies Reason);
    }
    return { ...p, reasons };
  });
  return { ...plan, pairs, byId: new Map(pairs.map((p) => [p.id, p])) };
}
