/**
 * The graph's orders are those the model defines: a pair's wave is one past its deepest
 * dependency's, waves list pairs in file order, the topological order is the waves one after the
 * other; and a workflow with a cycle has no graph.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildGraph } from "../../src/graph/graph.js";

/** Pairs p0..pn-1 in a random file order, each requiring random others (cycles possible when `acyclic` is off). */
const workflow = (acyclic: boolean) =>
  fc.integer({ min: 1, max: 40 }).chain((n) =>
    fc
      .tuple(
        fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        fc.array(fc.array(fc.nat(n - 1), { maxLength: 4 }), { minLength: n, maxLength: n }),
      )
      .map(([fileOrder, deps]) =>
        fileOrder.map((i) => ({
          id: `p${i}`,
          // Acyclic: only pairs with a smaller number (the file order is shuffled, so not the earlier ones).
          requires: [...new Set(deps[i]!.filter((d) => d !== i && (!acyclic || d < i)))].map((d) => `p${d}`),
        })),
      ),
  );

describe("buildGraph", () => {
  it("gives each pair the wave one past its deepest dependency, in file order within a wave", () => {
    fc.assert(
      fc.property(workflow(true), (pairs) => {
        const { graph, issues } = buildGraph(pairs);
        expect(issues).toEqual([]);
        const byId = new Map(pairs.map((p) => [p.id, p]));
        const depth = (id: string): number => Math.max(-1, ...byId.get(id)!.requires.map(depth)) + 1;
        const waves: string[][] = [];
        for (const p of pairs) (waves[depth(p.id)] ??= []).push(p.id);
        expect(graph!.waves).toEqual(waves);
        expect(graph!.order).toEqual(waves.flat());
        for (const p of pairs) {
          expect(graph!.waveOf.get(p.id)).toBe(depth(p.id));
          expect(graph!.requires.get(p.id)).toEqual(p.requires);
          expect(graph!.dependents.get(p.id)).toEqual(pairs.filter((q) => q.requires.includes(p.id)).map((q) => q.id));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("has no graph exactly when some pairs require each other in a loop, and reports each loop", () => {
    fc.assert(
      fc.property(workflow(false), (pairs) => {
        const byId = new Map(pairs.map((p) => [p.id, p]));
        // A loop exists iff some pair reaches itself.
        const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
          byId.get(from)!.requires.some((d) => d === to || (!seen.has(d) && (seen.add(d), reaches(d, to, seen))));
        const looped = pairs.some((p) => reaches(p.id, p.id));
        const { graph, issues } = buildGraph(pairs);
        expect(graph === null).toBe(looped);
        expect(issues.length > 0).toBe(looped);
        for (const issue of issues) expect(issue.message).toMatch(/^dependency cycle: /);
      }),
      { numRuns: 300 },
    );
  });
});
