/**
 * The one report model (src/report/causes.ts) over random plans: every affected pair is accounted
 * for once as a changed pair, or as following from one; each edit is one cause, named by what
 * changed; and what a terminal shows of them stays within its lines, whatever the plan.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Plan, Reason } from "../../src/model/plan.js";
import { causesOf, changesFor, planNodes, type CauseNode } from "../../src/report/causes.js";
import { causeLines } from "../../src/report/causesText.js";
import { planText, SCREEN_LINES } from "../../src/report/plan.js";
import { styleFor } from "../../src/report/color.js";

const plain = styleFor({ isTTY: false });
const OWN: Reason[] = [
  { kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } },
  { kind: "prompt", detail: "workflow specification changed", component: { kind: "context" as const, name: "specification" } },
  { kind: "model", detail: "model changed (was m1)" },
  { kind: "new", detail: "never accepted" },
];

/** A random plan: pairs requiring earlier ones, some changed in one of a few ways, and what follows from them run. */
const plans = fc
  .array(fc.record({ deps: fc.array(fc.nat(), { maxLength: 3 }), own: fc.option(fc.nat({ max: OWN.length - 1 }), { freq: 3 }) }), {
    minLength: 1,
    maxLength: 120,
  })
  .map((specs) => {
    const nodes: (CauseNode & { action: "run" | "skip" })[] = [];
    for (const [i, spec] of specs.entries()) {
      const requires = i === 0 ? [] : [...new Set(spec.deps.map((d) => `p${d % i}`))];
      const running = requires.filter((d) => nodes[Number(d.slice(1))]!.action === "run");
      const own = spec.own === null ? [] : [OWN[spec.own]!];
      const action = own.length > 0 || running.length > 0 ? "run" : "skip";
      const reasons: Reason[] =
        action === "run"
          ? [...own, ...running.map((d): Reason => ({ kind: "upstream", detail: `${d} will run`, component: { kind: "upstream" as const, name: d } }))]
          : [];
      const wave = 1 + Math.max(0, ...requires.map((d) => nodes[Number(d.slice(1))]!.wave));
      nodes.push({ id: `p${i}`, requires, status: action, reasons, wave, action });
    }
    return nodes;
  });

describe("causes", () => {
  it("account for every affected pair: the changed ones as roots of the cause that names their edit, the rest downstream; a first run is one cause", () => {
    fc.assert(
      fc.property(plans, (nodes) => {
        const causes = causesOf(nodes);
        const changed = nodes.filter((n) => n.action === "run" && n.reasons.some((r) => r.kind !== "upstream"));
        const roots = causes.flatMap((c) => c.roots.map((r) => r.id));
        // Each changed pair is the root of exactly one cause (each has one edit here), and nothing else is.
        expect([...roots].sort()).toEqual(changed.map((n) => n.id).sort());
        // One cause per edit: no two causes are the same edit, nor read the same.
        expect(new Set(causes.map((c) => c.key)).size).toBe(causes.length);
        expect(new Set(causes.map((c) => c.why)).size).toBe(causes.length);
        for (const c of causes) {
          const own = nodes.find((n) => n.id === c.roots[0]!.id)!.reasons[0]!;
          if (own.component?.kind === "context") {
            // The workflow's specification is one thing, whoever it re-runs.
            expect(c.why).toBe("workflow specification");
          } else if (nodes.every((n) => n.reasons.length > 0 && n.reasons.every((r) => r.kind === "new" || r.kind === "upstream"))) {
            // Nothing was ever accepted (a first run): that is the one edit, whatever the pairs.
            expect(c.why).toBe("new: never accepted");
            expect(c.roots.map((r) => r.id).sort()).toEqual(changed.map((n) => n.id).sort());
          } else {
            // Any other edit here is a pair's own: one root, named in the cause.
            expect(c.roots).toHaveLength(1);
            expect(c.why).toContain(c.roots[0]!.id);
          }
        }
        // Every pair that runs is a root or follows from one; nothing that does not run is counted.
        const reached = new Set([...roots, ...causes.flatMap((c) => c.downstream)]);
        expect([...reached].sort()).toEqual(
          nodes
            .filter((n) => n.action === "run")
            .map((n) => n.id)
            .sort(),
        );
        for (const c of causes) {
          expect(c.downstream.some((id) => roots.includes(id))).toBe(false);
          expect(c.waves.first).toBeLessThanOrEqual(c.waves.last);
          // Roots that reach the most come first.
          for (let i = 1; i < c.roots.length; i++) expect(c.roots[i - 1]!.downstream).toBeGreaterThanOrEqual(c.roots[i]!.downstream);
        }
      }),
    );
  });

  it("fit the lines a terminal gives them, and a plan shown by cause fits a screen", () => {
    fc.assert(
      fc.property(plans, fc.integer({ min: 1, max: 40 }), (nodes, budget) => {
        const causes = causesOf(nodes);
        const lines = causeLines(causes, plain, budget);
        expect(lines.length).toBeLessThanOrEqual(budget);
        if (causes.length > 0) expect(lines.length).toBeGreaterThan(0);
        const plan = {
          workflow: { name: "w", path: "/r/workflow.yml", pairs: new Map() },
          graph: { waves: [...new Set(nodes.map((n) => n.wave))].map((w) => nodes.filter((n) => n.wave === w).map((n) => n.id)) },
          pairs: nodes.map((n) => ({ id: n.id, wave: n.wave, requires: n.requires, configRef: null, action: n.action, reasons: n.reasons, artifact: null })),
          byId: new Map(),
        } as unknown as Plan;
        expect(planText(plan, plain, "/r").trimEnd().split("\n").length).toBeLessThanOrEqual(SCREEN_LINES);
        expect(causesOf(planNodes(plan)).map((c) => c.why)).toEqual(causes.map((c) => c.why));
      }),
      { numRuns: 60 },
    );
  });

  it("are explained by the entries of the diff that changed them: the settings for the specification, each pair's prompt for its own", () => {
    const nodes: CauseNode[] = [
      {
        id: "a",
        requires: [],
        status: "run",
        reasons: [{ kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } }],
        wave: 1,
      },
      {
        id: "b",
        requires: [],
        status: "run",
        reasons: [{ kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } }],
        wave: 1,
      },
      { id: "t[x]", requires: ["a"], status: "run", reasons: [{ kind: "model", detail: "model changed (was m1)" }], wave: 2, template: "t" },
      {
        id: "c",
        requires: [],
        status: "run",
        reasons: [{ kind: "prompt", detail: "workflow specification changed", component: { kind: "context" as const, name: "specification" } }],
        wave: 1,
      },
    ];
    const changes = [
      { kind: "workflow" as const, id: null },
      { kind: "prompt" as const, id: "b" },
      { kind: "prompt" as const, id: "a" },
      { kind: "pair" as const, id: "a" },
    ];
    const causes = causesOf(nodes);
    const [task, model, spec] = [causes[0], causes.find((c) => c.key.startsWith("model")), causes.find((c) => c.key.startsWith("context"))];
    const templateOf = (id: string) => nodes.find((n) => n.id === id)?.template;
    // Each pair's prompt is its own edit, with its own diff.
    expect(task!.why).toBe("prompt of a (task)");
    expect(changesFor(task!, changes, templateOf)).toEqual([changes[2]]);
    expect(
      changesFor(
        causes.find((c) => c.why === "prompt of b (task)")!,
        changes,
        templateOf,
      ),
    ).toEqual([changes[1]]);
    // t's entry did not change: its model is the workflow's default, and the settings say how.
    expect(changesFor(model!, changes, templateOf)).toEqual([changes[0]]);
    expect(changesFor(spec!, changes, templateOf)).toEqual([changes[0]]);
  });
});
