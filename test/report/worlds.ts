/** Random plans and runs of them, for the properties every report keeps. */
import fc from "fast-check";
import type { Plan, PlannedPair, Reason } from "../../src/model/plan.js";
import type { PairOutcome, RunReport } from "../../src/model/run.js";

const OWN: Reason[] = [
  { kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } },
  { kind: "prompt", detail: "workflow specification changed", component: { kind: "context" as const, name: "specification" } },
  { kind: "model", detail: "model changed (was m1)" },
  { kind: "guard", detail: "guard changed" },
  { kind: "inputs", detail: "inputs changed: src/a.ts" },
  { kind: "new", detail: "never accepted" },
];

/** A random plan (pairs requiring earlier ones, some changed one of a few ways, what follows from them run) and which pairs fail. */
export const worlds: fc.Arbitrary<{ plan: Plan; report: RunReport }> = fc
  .array(
    fc.record({
      deps: fc.array(fc.nat(), { maxLength: 3 }),
      own: fc.option(fc.nat({ max: OWN.length - 1 }), { freq: 2 }),
      fails: fc.boolean(),
    }),
    { minLength: 45, maxLength: 150 },
  )
  .chain((specs) => fc.record({ specs: fc.constant(specs), failing: fc.boolean() }))
  .map(({ specs, failing }) => {
    const pairs: PlannedPair[] = [];
    for (const [i, spec] of specs.entries()) {
      const requires = i === 0 ? [] : [...new Set(spec.deps.map((d) => `p${d % i}`))];
      const running = requires.filter((d) => pairs[Number(d.slice(1))]!.action === "run");
      const reasons: Reason[] = [
        ...(spec.own === null ? [] : [OWN[spec.own]!]),
        ...running.map((d): Reason => ({ kind: "upstream", detail: `${d} will run`, component: { kind: "upstream" as const, name: d } })),
      ];
      const wave = 1 + Math.max(0, ...requires.map((d) => pairs[Number(d.slice(1))]!.wave));
      pairs.push({
        id: `p${i}`,
        wave,
        requires,
        configRef: null,
        action: reasons.length > 0 ? "run" : "skip",
        reasons,
        artifact: null,
      } as unknown as PlannedPair);
    }
    const waves = [...new Set(pairs.map((p) => p.wave))].sort((a, b) => a - b);
    const plan = {
      workflow: { name: "w", path: "/r/workflow.yml", pairs: new Map() },
      workflowRef: "ab".repeat(32),
      graph: { waves: waves.map((w) => pairs.filter((p) => p.wave === w).map((p) => p.id)) },
      pairs,
      byId: new Map(pairs.map((p) => [p.id, p])),
    } as unknown as Plan;
    const stopped = new Set<string>();
    const outcomes = pairs.map((p, i): PairOutcome => {
      const base = { id: p.id, configRef: null, contentHash: null, reasons: p.reasons, durationMs: 1_000, note: null };
      if (p.action === "skip") return { ...base, status: "reused", attempts: [], reasons: [] };
      if (p.requires.some((d) => stopped.has(d))) {
        stopped.add(p.id);
        return { ...base, status: "blocked", attempts: [], note: "blocked: a dependency failed" };
      }
      const attempts = [{ attempt: 1, accepted: true, feedback: "", tokens: null, durationMs: 1_000 }];
      if (!(failing && specs[i]!.fails && i % 3 === 0)) return { ...base, status: "executed", attempts };
      stopped.add(p.id);
      return { ...base, status: "failed", attempts: [{ ...attempts[0]!, accepted: false, feedback: "no" }], note: "rejected after 1 attempt: no" };
    });
    const count = (s: string) => outcomes.filter((o) => o.status === s).length;
    const report: RunReport = {
      version: 1,
      runId: "20260101T000000000Z-1a2b",
      workflowRef: plan.workflowRef,
      status: count("failed") > 0 ? "failed" : "success",
      pairs: outcomes,
      totals: {
        pairs: outcomes.length,
        executed: count("executed"),
        reused: count("reused"),
        failed: count("failed"),
        blocked: count("blocked"),
        interrupted: 0,
        tokens: { input: 0, output: 0 },
        durationMs: 1_000,
      },
    };
    return { plan, report };
  })
  .filter(({ plan }) => plan.pairs.some((p) => p.action === "run"));
