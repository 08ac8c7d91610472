/**
 * One set of numbers: the graph counts the pairs blocked behind the failed pairs it folds together
 * as a set, each once however many failures it follows; and a pair whose generator calls no model
 * is never said to spare a model call, nor counted with the pairs that do.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Plan, PlannedPair, ReuseForecast } from "../../src/model/plan.js";
import type { Pair } from "../../src/model/workflow.js";
import { mermaidGraph, planSummaryMarkdown, type GraphNode } from "../../src/report/summary.js";
import { planListText } from "../../src/report/plan.js";
import { styleFor } from "../../src/report/color.js";

const plain = styleFor({ isTTY: false });

/** 9 to 20 failed pairs, and blocked pairs each behind one to three of them. */
const runs = fc
  .tuple(fc.integer({ min: 9, max: 20 }), fc.array(fc.uniqueArray(fc.nat({ max: 19 }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 80 }))
  .map(([failures, behind]) => {
    const failed: GraphNode[] = Array.from({ length: failures }, (_, i) => ({ id: `f${i}`, requires: [], status: "failed", wave: 1 }));
    const blocked: GraphNode[] = behind.map((deps, i) => ({
      id: `b${i}`,
      requires: [...new Set(deps.map((d) => `f${d % failures}`))],
      status: "blocked",
      wave: 2,
    }));
    return [...failed, ...blocked];
  });

describe("one set of numbers", () => {
  it("the graph counts the pairs blocked behind the failures it folds together once each", () => {
    fc.assert(
      fc.property(runs, (nodes) => {
        const graph = mermaidGraph(nodes, { maxNodes: 2 });
        expect(graph.condensed).toBe(true);
        const text = graph.text!;
        const shown = [...text.matchAll(/^ {2}f\d+\{\{"✖ FAILED (\S+)"\}\}/gm)].map((m) => m[1]!);
        const rest = new Set(nodes.filter((n) => n.status === "failed" && !shown.includes(n.id)).map((n) => n.id));
        expect(rest.size).toBeGreaterThan(0);
        const behind = nodes.filter((n) => n.status === "blocked" && n.requires.some((d) => rest.has(d))).length;
        const folded = /^ {2}fxb\(\["⊘ ([\d,]+) blocked/m.exec(text);
        expect(folded === null ? 0 : Number(folded[1]!.replace(/,/g, ""))).toBe(behind);
        // No figure of blocked pairs is more than there are.
        const all = nodes.filter((n) => n.status === "blocked").length;
        for (const m of text.matchAll(/⊘ ([\d,]+) blocked/g)) expect(Number(m[1]!.replace(/,/g, ""))).toBeLessThanOrEqual(all);
      }),
      { numRuns: 100 },
    );
  });

  it("a pair that calls no model is never said to spare a model call, nor counted among those that do", () => {
    const reuses: fc.Arbitrary<ReuseForecast | undefined> = fc.constantFrom(
      undefined,
      { kind: "unless" as const, deps: ["a"] },
      { kind: "rejudge" as const, from: "x", at: "t" },
      { kind: "request" as const, from: "x", at: "t" },
    );
    const pairs = fc.array(
      fc.record({ generator: fc.constantFrom("command", "openai", "anthropic", null), model: fc.option(fc.constant("m1")), reuse: reuses }),
      {
        minLength: 1,
        maxLength: 12,
      },
    );
    fc.assert(
      fc.property(pairs, (specs) => {
        const workflowPairs = new Map<string, Pair>();
        const planned: PlannedPair[] = specs.map((s, i) => {
          const id = `p${i}`;
          workflowPairs.set(id, {
            id,
            requires: [],
            generator: s.generator,
            generatorConfig: {},
            model: s.model,
            guard: null,
            guardConfig: {},
          } as unknown as Pair);
          return {
            id,
            wave: 1,
            requires: [],
            configRef: null,
            action: "run",
            reasons: [{ kind: "new", detail: "never accepted" }],
            artifact: null,
            ...(s.reuse ? { reuse: s.reuse } : {}),
          } as unknown as PlannedPair;
        });
        const plan = {
          workflow: { name: "w", path: "/r/workflow.yml", pairs: workflowPairs },
          graph: { waves: [planned.map((p) => p.id)] },
          pairs: planned,
          byId: new Map(planned.map((p) => [p.id, p])),
        } as unknown as Plan;
        const text = planListText(plan, plain, "/r");
        for (const [i, s] of specs.entries()) {
          const line = text.split("\n").find((l) => l.startsWith(`  run   p${i} `))!;
          const calls = s.model !== null || s.generator === "openai" || s.generator === "anthropic";
          expect(line.includes("no model call")).toBe(calls && s.reuse !== undefined);
        }
        // The count of pairs with no model call is of those that would make one, in every medium.
        const spared = specs.filter(
          (s) => (s.model !== null || s.generator === "openai" || s.generator === "anthropic") && (s.reuse?.kind === "request" || s.reuse?.kind === "rejudge"),
        ).length;
        const said = (t: string) => Number(/\((\d+) with no model call/.exec(t)?.[1] ?? 0);
        expect(said(text)).toBe(spared);
        expect(said(planSummaryMarkdown(plan))).toBe(spared);
      }),
      { numRuns: 100 },
    );
  });
});
