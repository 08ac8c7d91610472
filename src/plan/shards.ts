/**
 * Splitting the pairs a plan will run into shards that separate jobs execute. Pure and
 * deterministic: every shard job computes the same split from the same plan, so no shard file has
 * to be passed between jobs.
 *
 * Pairs are taken in plan order (dependencies first). Each goes to the shard that already holds
 * most of the weight of its running dependencies, so connected work stays together and few
 * artifacts cross between shards, unless that shard is already over its fair share; then it goes
 * to the lightest shard. Shards that receive nothing are left out.
 */
import type { Plan } from "../model/plan.js";
import { UsageError } from "../model/errors.js";
import type { Shard, ShardSpec } from "../model/shard.js";
import { dict } from "../model/dict.js";

/** How much a pair is expected to take; any positive unit, used only relative to the others. */
export type Weigh = (id: string) => number;

/** "2/3" -> {index: 2, count: 3}. */
export function parseShard(text: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) throw new UsageError(`--shard ${text}: expected I/N with 1 <= I <= N, e.g. --shard 2/3`);
  return { index, count };
}

/** Slack over the ideal share before a pair leaves its dependencies' shard: balance against fewer crossings. */
const SLACK = 1.15;

/** The non-empty shards of the pairs `plan` runs, at most `count` of them, numbered 1..count. */
export function shardPlan(plan: Plan, count: number, weigh: Weigh): Shard[] {
  if (!Number.isInteger(count) || count < 1) throw new UsageError(`--shards ${count}: expected a whole number of at least 1`);
  const running = plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
  const weight = new Map(running.map((id) => [id, Math.max(weigh(id), 1e-9)]));
  const total = running.reduce((sum, id) => sum + weight.get(id)!, 0);
  const share = (total / count) * SLACK;
  const loads: number[] = Array(count).fill(0);
  const owner = new Map<string, number>();
  for (const id of running) {
    const w = weight.get(id)!;
    const pull: number[] = Array(count).fill(0);
    for (const dep of plan.byId.get(id)!.requires) {
      const s = owner.get(dep);
      if (s !== undefined) pull[s] = pull[s]! + weight.get(dep)!;
    }
    let best = -1;
    for (let s = 0; s < count; s++) if (pull[s]! > 0 && loads[s]! + w <= share && (best < 0 || pull[s]! > pull[best]!)) best = s;
    if (best < 0) best = lightest(loads);
    owner.set(id, best);
    loads[best] = loads[best]! + w;
  }
  const shards: Shard[] = loads.map((load, s) => ({ index: s + 1, count, pairs: [], weight: load, awaits: dict<number>() }));
  for (const id of running) {
    const shard = shards[owner.get(id)!]!;
    shard.pairs.push(id);
    for (const dep of plan.byId.get(id)!.requires) {
      const s = owner.get(dep);
      if (s !== undefined && s !== owner.get(id)) shard.awaits[dep] = s + 1;
    }
  }
  return shards.filter((s) => s.pairs.length > 0);
}

function lightest(loads: number[]): number {
  let best = 0;
  for (let s = 1; s < loads.length; s++) if (loads[s]! < loads[best]!) best = s;
  return best;
}

/** The owning shard of every pair the plan runs, by pair id. */
export function owners(shards: readonly Shard[]): Map<string, ShardSpec> {
  const map = new Map<string, ShardSpec>();
  for (const s of shards) for (const id of s.pairs) map.set(id, { index: s.index, count: s.count });
  return map;
}

/**
 * The shards as GitHub Actions' `strategy.matrix` wants them: one entry per shard, none when nothing
 * runs; with the fan-out whose pinned split they are, when there is one.
 */
export function matrixOf(shards: readonly Shard[], fanout?: string): { include: { shard: string; fanout?: string }[] } {
  return { include: shards.map((s) => ({ shard: `${s.index}/${s.count}`, ...(fanout !== undefined ? { fanout } : {}) })) };
}
