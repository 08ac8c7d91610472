/**
 * Never paying twice, as a property: over random workflows and random sequences of the changes
 * that leave a request as it was (a role that does not change a pair's output, so its dependents
 * ask again what they asked before; a guard loosened or tightened; a change and its revert), no
 * generator call is ever made for a request that already has an artifact the pair's current guard
 * accepts; a request the plan says was answered before makes no call; and the outputs are always
 * those a run from scratch of the same workflow gives.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Guard, Generator } from "../../src/model/ports.js";
import type { Plan } from "../../src/model/plan.js";
import { sha256Hex } from "../../src/refs/hash.js";
import { scaled } from "../helpers/time.js";
import { World, workflowOf, type PairSpec } from "./world.js";

const TASKS = ["write it", "write it well", "write it short"];
const ROLES = [undefined, "an editor", "a careful editor"];
/** Each guard rejects content whose digest starts with one of these. */
const FORBID = ["", "0123", "89ab", "cdef", "01234567"];

/**
 * The artifact: the pair's id and a digest of its prompt without its role (so a role changes the
 * pair's reference, and its request, but not its output).
 */
const deterministic: Generator = async ({ pairId, prompt }) => {
  const core = prompt.replace(/^# Role\n\n[^\n]*\n\n/m, "");
  return { content: `${pairId} ${sha256Hex(core).slice(0, 12)}\n` };
};

function accepts(forbid: string, content: string): boolean {
  const digest = content.split(" ")[1] ?? "";
  return !forbid.includes(digest[0] ?? "");
}

type Step = { kind: "task" | "role" | "guard"; pair: number; variant: number } | { kind: "revert"; back: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom("task" as const, "role" as const, "guard" as const), pair: fc.nat(), variant: fc.nat() }),
  fc.record({ kind: fc.constant("revert" as const), back: fc.integer({ min: 1, max: 4 }) }),
);

const scenarioArb = fc.record({
  pairs: fc.integer({ min: 2, max: 5 }).chain((n) =>
    fc.tuple(
      ...Array.from({ length: n }, (_, i) =>
        fc.subarray(
          Array.from({ length: i }, (__, j) => `p${j}`),
          { maxLength: Math.min(2, i) },
        ),
      ),
    ),
  ),
  rmax: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 5, maxLength: 5 }),
  steps: fc.array(stepArb, { minLength: 2, maxLength: 8 }),
});

/** A pair's settings the steps change: its task, role, and what its guard forbids. */
interface Settings {
  task: number;
  role: number;
  forbid: number;
}

function build(requires: string[][], rmax: number[], settings: Settings[]): World {
  const specs: PairSpec[] = requires.map((deps, i) => ({ id: `p${i}`, requires: deps, output: i % 2 === 0 }));
  const { workflow, graph } = workflowOf(specs);
  const world = new World(workflow, graph);
  apply(world, rmax, settings);
  return world;
}

function apply(world: World, rmax: number[], settings: Settings[]): void {
  settings.forEach((s, i) => {
    const pair = world.workflow.pairs.get(`p${i}`)!;
    const role = ROLES[s.role];
    pair.prompt = role === undefined ? { task: TASKS[s.task]! } : { task: TASKS[s.task]!, role };
    pair.guard = "mem";
    pair.guardConfig = { forbid: FORBID[s.forbid]! };
    pair.rmax = rmax[i]!;
  });
}

/** The accepted content of every pair the plan reuses as it is: what the workflow's outputs are now. */
const acceptedState = (plan: Plan) => Object.fromEntries(plan.pairs.filter((p) => p.action === "skip").map((p) => [p.id, p.artifact!.contentHash]));

describe("request reuse", () => {
  it(
    "never calls a generator for a request whose artifact the current guard accepts, and ends as a run from scratch does",
    { timeout: scaled(120_000) },
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb, async ({ pairs: requires, rmax, steps }) => {
          const n = requires.length;
          let settings: Settings[] = Array.from({ length: n }, () => ({ task: 0, role: 0, forbid: 0 }));
          const history: Settings[][] = [];
          const world = build(requires, rmax, settings);

          // What the generator returned for each request, as a test that knows nothing of pairflow's index sees it.
          const generated = new Map<string, Set<string>>();
          const violations: string[] = [];
          world.generate = async (request) => {
            const key = JSON.stringify([request.pairId, request.attempt, request.prompt]);
            const forbid = world.workflow.pairs.get(request.pairId)!.guardConfig.forbid as string;
            for (const earlier of generated.get(key) ?? []) {
              if (accepts(forbid, earlier))
                violations.push(`${request.pairId} attempt ${request.attempt} called again for a request whose artifact its guard accepts`);
            }
            const result = await deterministic(request);
            generated.set(key, (generated.get(key) ?? new Set()).add(result.content as string));
            return result;
          };
          const judge: Guard = async ({ content, config }) =>
            accepts(config.forbid as string, content)
              ? { accepted: true, feedback: "" }
              : { accepted: false, feedback: `forbidden start: ${content.split(" ")[1]}` };
          world.judge = judge;

          await world.run();
          for (const step of steps) {
            history.push(settings);
            if (step.kind === "revert") settings = history[Math.max(0, history.length - 1 - step.back)]!;
            else {
              settings = settings.map((s) => ({ ...s }));
              const s = settings[step.pair % n]!;
              if (step.kind === "task") s.task = step.variant % TASKS.length;
              if (step.kind === "role") s.role = step.variant % ROLES.length;
              if (step.kind === "guard") s.forbid = step.variant % FORBID.length;
            }
            apply(world, rmax, settings);

            world.calls = [];
            const { plan } = await world.run();
            // A request the plan says was answered before (accepted by the same guard) makes no call.
            for (const p of plan.pairs.filter((q) => q.reuse?.kind === "request")) expect(world.calls, `${p.id} was answered before`).not.toContain(p.id);
            expect(violations).toEqual([]);

            // The same workflow run from scratch accepts the same contents, and the run left nothing to do.
            const oracle = build(requires, rmax, settings);
            oracle.generate = deterministic;
            oracle.judge = judge;
            await oracle.run();
            const after = await world.plan();
            expect(after.pairs.filter((p) => p.action === "run").map((p) => p.id)).toEqual(
              (await oracle.plan()).pairs.filter((p) => p.action === "run").map((p) => p.id),
            );
            expect(acceptedState(after)).toEqual(acceptedState(await oracle.plan()));
          }
        }),
        { numRuns: 60, seed: 20261126 },
      );
    },
  );

  it("makes no call for a dependent whose dependency changed its reference but not its content, nor after a guard-only change or a revert", async () => {
    const world = build(
      [[], ["p0"], ["p1"]],
      [0, 0, 0],
      [0, 1, 2].map(() => ({ task: 0, role: 0, forbid: 0 })),
    );
    world.generate = deterministic;
    world.judge = async ({ content, config }) => ({ accepted: accepts(config.forbid as string, content), feedback: "no" });
    await world.run();
    const runWith = async (change: (w: World) => void) => {
      change(world);
      world.calls = [];
      const { plan, report } = await world.run();
      return { plan, report, calls: [...world.calls] };
    };

    // p0's role changes its reference, not its output: p1 and p2 run under new references, with no call.
    const role = await runWith((w) => (w.workflow.pairs.get("p0")!.prompt = { task: TASKS[0]!, role: "an editor" }));
    expect(role.calls).toEqual(["p0"]);
    expect(role.report.pairs.map((p) => [p.id, p.status])).toEqual([
      ["p0", "executed"],
      ["p1", "executed"],
      ["p2", "executed"],
    ]);
    expect(role.report.pairs[1]!.note).toMatch(/^request reused: no model call \(generated for p1 at /);
    // p1's guard loosened: judged again, accepted, no call; the plan said so.
    const guard = await runWith((w) => (w.workflow.pairs.get("p1")!.guardConfig = { forbid: "x" }));
    expect(guard.plan.byId.get("p1")!.reuse).toMatchObject({ kind: "rejudge", from: "p1" });
    expect(guard.calls).toEqual([]);
    expect(guard.report.pairs[1]!.note).toMatch(/^request reused; guard re-judged: no model call/);
    // A task changed and changed back: the revert costs nothing. (Here the store still has the
    // first reference's record; without it, the request index answers: see the lost-store case.)
    await runWith((w) => (w.workflow.pairs.get("p2")!.prompt = { task: TASKS[1]! }));
    world.records.clear();
    const revert = await runWith((w) => (w.workflow.pairs.get("p2")!.prompt = { task: TASKS[0]! }));
    expect(revert.plan.byId.get("p2")!.reuse).toMatchObject({ kind: "request" });
    expect(revert.calls).toEqual([]);
  });
});
