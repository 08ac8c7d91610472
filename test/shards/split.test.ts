/** The split of a plan into shards, as a rule over random workflows: pure and in memory. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseShard, shardPlan } from "../../src/plan/shards.js";
import { World, workflowOf, type PairSpec } from "../core/world.js";

/** A random DAG: each pair may require any of the pairs before it. */
const dags = fc
  .array(fc.array(fc.nat(), { maxLength: 3 }), { minLength: 1, maxLength: 40 })
  .map((deps): PairSpec[] => deps.map((d, i) => ({ id: `p${i}`, requires: i === 0 ? [] : [...new Set(d.map((n) => `p${n % i}`))] })));

describe("splitting a plan into shards", () => {
  it("gives every pair that runs to exactly one of at most N non-empty shards, records every crossing, and is deterministic", async () => {
    await fc.assert(
      fc.asyncProperty(
        dags,
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 40, maxLength: 40 }),
        async (specs, n, ws) => {
          const { workflow, graph } = workflowOf(specs);
          const plan = await new World(workflow, graph).plan();
          const weigh = (id: string) => ws[Number(id.slice(1))]!;
          const shards = shardPlan(plan, n, weigh);
          expect(shardPlan(plan, n, weigh)).toEqual(shards);
          expect(shards.length).toBeLessThanOrEqual(n);
          expect(shards.every((s) => s.pairs.length > 0 && s.count === n && s.index >= 1 && s.index <= n)).toBe(true);
          expect(new Set(shards.map((s) => s.index)).size).toBe(shards.length);
          const owned = shards.flatMap((s) => s.pairs);
          expect(owned.sort()).toEqual(plan.pairs.map((p) => p.id).sort());
          const ownerOf = new Map(shards.flatMap((s) => s.pairs.map((id) => [id, s.index] as const)));
          for (const s of shards) {
            const crossings = Object.fromEntries(
              s.pairs.flatMap((id) =>
                plan.byId
                  .get(id)!
                  .requires.filter((d) => ownerOf.get(d) !== s.index)
                  .map((d) => [d, ownerOf.get(d)!]),
              ),
            );
            expect(s.awaits).toEqual(crossings);
          }
          // No shard holds much more than its share: at most the share with its slack, or one pair over the average.
          const total = plan.pairs.reduce((sum, p) => sum + weigh(p.id), 0);
          const heaviest = Math.max(...plan.pairs.map((p) => weigh(p.id)));
          for (const s of shards) expect(s.weight).toBeLessThanOrEqual(Math.max((total / n) * 1.15, total / n + heaviest) + 1e-9);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps independent chains whole when they balance", async () => {
    const specs: PairSpec[] = [];
    for (const chain of ["a", "b", "c"]) for (let i = 0; i < 10; i++) specs.push({ id: `${chain}${i}`, requires: i === 0 ? [] : [`${chain}${i - 1}`] });
    const { workflow, graph } = workflowOf(specs);
    const shards = shardPlan(await new World(workflow, graph).plan(), 3, () => 1);
    expect(shards.map((s) => new Set(s.pairs.map((id) => id[0])).size)).toEqual([1, 1, 1]);
    expect(shards.every((s) => Object.keys(s.awaits).length === 0)).toBe(true);
  });

  it("leaves out pairs that will not run, and yields no shard at all when nothing runs", async () => {
    const { workflow, graph } = workflowOf([{ id: "a" }, { id: "b", requires: ["a"] }]);
    const world = new World(workflow, graph);
    await world.run();
    expect(shardPlan(await world.plan(), 4, () => 1)).toEqual([]);
  });

  it("reads I/N and refuses anything else", () => {
    expect(parseShard("2/3")).toEqual({ index: 2, count: 3 });
    for (const bad of ["0/3", "4/3", "3", "a/b", "1/0", "-1/2"]) expect(() => parseShard(bad)).toThrow(/expected I\/N/);
  });
});
