/**
 * The planner and the engine on an in-memory world: what the plan says about where content comes
 * from, and the rule plan = run over random workflows and random sequences of changes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../src/model/plan.js";
import type { RunReport, Selection } from "../../src/model/run.js";
import { sha256Hex, textHashes } from "../../src/refs/hash.js";
import { scaled } from "../helpers/time.js";
import { MemoryRemote, World, workflowOf, type PairSpec } from "./world.js";

const CHAIN: PairSpec[] = [
  { id: "a", output: true },
  { id: "b", requires: ["a"] },
  { id: "c", requires: ["b"], output: true },
];

const actions = (plan: Plan) => Object.fromEntries(plan.pairs.map((p) => [p.id, p.action]));
const byStatus = (report: RunReport, status: string) => report.pairs.filter((p) => p.status === status).map((p) => p.id);

function fromSpecs(specs: PairSpec[], remote?: MemoryRemote): World {
  const { workflow, graph } = workflowOf(specs);
  const world = new World(workflow, graph);
  world.remote = remote;
  return world;
}

async function acceptedWorld(specs = CHAIN): Promise<World> {
  const world = fromSpecs(specs);
  await world.run();
  world.calls = [];
  return world;
}

describe("where the plan finds accepted content", () => {
  it("reuses a pair whose output file and store copy are gone only when nothing needs its content", async () => {
    const world = await acceptedWorld();
    world.objects.clear(); // the local store's contents are gone; the lock file still records every pair
    expect(actions(await world.plan())).toEqual({ a: "skip", b: "skip", c: "skip" });
    const b = (await world.plan()).byId.get("b")!;
    expect(b.artifact).toMatchObject({ source: "lock", content: null });
  });

  it("runs a pair again whose output file is missing and whose content is nowhere, and says why", async () => {
    const world = await acceptedWorld();
    world.objects.clear();
    world.files.delete("a");
    const plan = await world.plan();
    expect(actions(plan)).toEqual({ a: "run", b: "run", c: "run" });
    expect(plan.byId.get("a")!.reasons).toEqual([{ kind: "new", detail: "accepted content is not available here; running again to restore it" }]);
    expect(plan.byId.get("a")!.configRef).not.toBeNull(); // its reference is unchanged
    const { report } = await world.run();
    // The deterministic generator gives a the same bytes again, so b keeps its reference; but b's
    // content is nowhere either and c was to run, so b runs too; then c is reused (early cutoff).
    expect(byStatus(report, "executed")).toEqual(["a", "b"]);
    expect(report.pairs.find((p) => p.id === "c")!.note).toBe("early cutoff: b re-ran with identical content");
    expect(world.files.has("a")).toBe(true);
  });

  it("runs a dependency whose content a running dependent needs and which exists nowhere", async () => {
    const world = await acceptedWorld();
    world.objects.clear(); // b has no output file: its content was only in the store
    world.workflow.pairs.get("c")!.prompt = { task: "changed" };
    const plan = await world.plan();
    expect(actions(plan)).toEqual({ a: "skip", b: "run", c: "run" });
    const { report } = await world.run();
    expect(byStatus(report, "executed").sort()).toEqual(["b", "c"]);
  });

  it("takes content from the remote store when it is nowhere else, and the run restores it", async () => {
    const remote = new MemoryRemote();
    const source = fromSpecs(CHAIN, remote);
    await source.run();
    const accepted = source.lock!;
    // Another machine: the same workflow and the remote store, nothing else.
    const fresh = fromSpecs(CHAIN, remote);
    const plan = await fresh.plan();
    expect(actions(plan)).toEqual({ a: "skip", b: "skip", c: "skip" });
    expect(plan.byId.get("a")!.artifact).toMatchObject({ source: "remote", content: "remote" });
    expect(plan.pairs.map((p) => p.configRef)).toEqual(["a", "b", "c"].map((id) => accepted.pairs[id]!.configRef));
    const { report } = await fresh.run();
    expect(byStatus(report, "reused")).toEqual(["a", "b", "c"]);
    expect(fresh.calls).toEqual([]);
    expect(sha256Hex(fresh.files.get("c")!)).toBe(accepted.pairs.c!.contentHash);
  });

  it("with --only, refuses a dependency that would have to run, naming it, and accepts one the remote store holds", async () => {
    const remote = new MemoryRemote();
    const world = fromSpecs(CHAIN, remote);
    await expect(world.plan({ only: ["c"] })).rejects.toThrow(
      "--only c: these dependencies cannot be reused as they are and would have to run first: a (never accepted), b (never accepted; a will run)",
    );
    await fromSpecs(CHAIN, remote).run();
    const plan = await world.plan({ only: ["c"] });
    expect(actions(plan)).toEqual({ a: "skip", b: "skip", c: "run" });
  });

  it("keeps a hand-edited output as accepted and runs its dependents", async () => {
    const world = await acceptedWorld();
    world.files.set("a", Buffer.from("written by a person\n"));
    const plan = await world.plan();
    expect(actions(plan)).toEqual({ a: "skip", b: "run", c: "run" });
    expect(plan.byId.get("a")!.artifact).toMatchObject({ edited: true, content: "output" });
    expect(plan.byId.get("b")!.reasons).toEqual([
      { kind: "upstream_artifact", detail: "a's output was edited by hand", component: { kind: "artifact", name: "a" } },
    ]);
    await world.run();
    expect(world.files.get("a")!.toString()).toBe("written by a person\n");
    expect(world.lock!.pairs.a!.source).toBe("human");
  });
});

// ---------------------------------------------------------------------------------------------
// The rule, over random workflows and random sequences of changes

type Change =
  | { kind: "prompt" | "model" | "handEdit" | "deleteOutput" | "input" | "crlf" | "strayFile"; at: number }
  | { kind: "dropStore" | "dropLock" | "freshMachine" }
  | { kind: "only" | "from"; at: number }
  | { kind: "force" };

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constantFrom("prompt", "model", "handEdit", "deleteOutput", "input", "crlf", "strayFile"), at: fc.nat() }) as fc.Arbitrary<Change>,
  fc.record({ kind: fc.constantFrom("dropStore", "dropLock", "freshMachine") }) as fc.Arbitrary<Change>,
  fc.record({ kind: fc.constantFrom("only", "from"), at: fc.nat() }) as fc.Arbitrary<Change>,
  fc.constant<Change>({ kind: "force" }),
);

const workflowArb = fc.integer({ min: 10, max: 60 }).chain((n) =>
  fc
    .tuple(
      fc.array(fc.array(fc.nat(), { maxLength: 4 }), { minLength: n, maxLength: n }),
      fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    )
    .map(([deps, outputs, inputs]) =>
      deps.map((d, i): PairSpec => ({
        id: `p${i}`,
        requires: i === 0 ? [] : [...new Set(d.map((x) => `p${x % i}`))],
        output: outputs[i],
        inputs: inputs[i],
      })),
    ),
);

/**
 * A pair of which neither the lock file nor the store holds any record: its hand edit is then a
 * file of unknown provenance, which the pair replaces (the plan says so).
 */
function forgetEditsWithoutRecords(world: World, edits: Map<string, Buffer>): void {
  for (const id of edits.keys()) {
    const recorded = world.lock?.pairs[id] !== undefined || [...world.records.values()].some((r) => r.pair === id && r.status === "accepted");
    if (!recorded) edits.delete(id);
  }
}

function apply(world: World, change: Change, ids: string[], edits: Map<string, Buffer>): Selection {
  const id = "at" in change ? ids[change.at % ids.length]! : "";
  const pair = id ? world.workflow.pairs.get(id)! : undefined;
  switch (change.kind) {
    case "prompt":
      pair!.prompt = { task: `${pair!.prompt?.task} again` };
      break;
    case "model":
      pair!.model = pair!.model === "m1" ? "m2" : "m1";
      break;
    case "input":
      world.inputs.set(id, `${world.inputs.get(id) ?? ""}more `);
      break;
    case "handEdit":
      if (pair!.output !== undefined && world.files.has(id)) {
        const edit = Buffer.from(`edited ${id} by hand ${edits.size}\n`);
        world.files.set(id, edit);
        edits.set(id, edit);
      }
      break;
    case "crlf":
      // A Windows checkout of the same text: not an edit.
      if (world.files.has(id) && !edits.has(id)) world.files.set(id, Buffer.from(world.files.get(id)!.toString().replace(/\n/g, "\r\n")));
      break;
    case "strayFile":
      // A file where a pair's output goes that pairflow has no record of at all: the pair runs and replaces it.
      if (pair!.output !== undefined) {
        world.records.clear();
        world.objects.clear();
        world.files.clear();
        world.lock = null;
        world.remote = undefined;
        edits.clear();
        world.files.set(id, Buffer.from(`stray ${id}\n`));
      }
      break;
    case "deleteOutput":
      world.files.delete(id);
      edits.delete(id);
      break;
    case "dropStore":
      world.records.clear();
      world.objects.clear();
      forgetEditsWithoutRecords(world, edits);
      break;
    case "dropLock":
      world.lock = null;
      forgetEditsWithoutRecords(world, edits);
      break;
    case "freshMachine":
      // A new runner: the committed files only (outputs are not committed here), and the remote store.
      world.records.clear();
      world.objects.clear();
      world.files.clear();
      world.lock = null;
      edits.clear();
      break;
    case "only":
      return { only: [id] };
    case "from":
      return { from: id };
    case "force":
      return { force: true };
  }
  return {};
}

/**
 * Runs with a selection and checks that the run did what its plan said. The run plans with the one
 * planner `pairflow plan` uses, over the same state: in memory its plan is the plan `plan` shows
 * (planning a second time to compare would only compare the planner with itself).
 */
async function planEqualsRun(world: World, selection: Selection, edits: Map<string, Buffer>, unique: boolean): Promise<void> {
  // What was accepted anywhere this run can see, before it runs.
  const known = new Set(
    [...world.records.values(), ...[...(world.remote?.entries.values() ?? [])].map((a) => a.record)]
      .filter((r) => r.status === "accepted")
      .map((r) => `${r.pair} ${r.configRef}`),
  );
  for (const [id, e] of Object.entries(world.lock?.pairs ?? {})) known.add(`${id} ${e.configRef}`);
  let plan: Plan;
  let report: RunReport;
  try {
    ({ plan, report } = await world.run(selection));
  } catch (err) {
    // A refused selection is refused by plan too, with the same words.
    const refused = await world.plan(selection).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(refused?.message, `the run failed: ${(err as Error).message}`).toBe((err as Error).message);
    return;
  }
  const planned = plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
  const executed = byStatus(report, "executed");
  const cutoff = report.pairs.filter((p) => p.status === "reused" && plan.byId.get(p.id)!.action === "run");
  expect([...executed, ...cutoff.map((p) => p.id)].sort()).toEqual([...planned].sort());
  // Per-pair rules are gathered and asserted once: an expect per pair and step made most of this
  // property's time, and one list of every broken rule also says more than the first failure.
  const broken: string[] = [];
  for (const p of cutoff) {
    if (unique) broken.push(`${p.id} was cut off early though every execution's content is unique`); // early cutoff needs byte-identical content
    if (plan.byId.get(p.id)!.configRef !== null) broken.push(`${p.id} was cut off early though the plan knew its reference`);
    if (!p.note?.startsWith("early cutoff: ")) broken.push(`${p.id} was cut off early with the note ${JSON.stringify(p.note)}`);
  }
  for (const p of byStatus(report, "failed")) broken.push(`${p} failed`);
  // Nothing executes that was accepted under its reference and could be had, unless asked to.
  for (const p of report.pairs.filter((p) => p.status === "executed")) {
    const why = p.reasons.map((r) => r.detail).join("; ");
    if (p.reasons.some((r) => r.kind === "forced" || r.detail.startsWith("accepted content is not available"))) continue;
    if (known.has(`${p.id} ${p.configRef}`)) broken.push(`${p.id} executed (${why}) though accepted under its reference`);
  }
  for (const p of report.pairs) {
    const pair = world.workflow.pairs.get(p.id)!;
    if (pair.output === undefined) continue;
    const bytes = world.files.get(p.id);
    if (bytes === undefined) broken.push(`${p.id}'s output is missing`);
    else if (edits.has(p.id)) {
      if (!bytes.equals(edits.get(p.id)!)) broken.push(`${p.id}'s hand edit was not kept`);
    } else {
      const file = textHashes(bytes);
      if (p.contentHash !== file.raw && p.contentHash !== file.text) broken.push(`${p.id}'s output is not its accepted content`);
    }
  }
  expect(broken).toEqual([]);
}

/** The rule, from a fresh run through a random sequence of changes, each step run twice. */
const planEqualsRunRule = fc.asyncProperty(
  workflowArb,
  fc.array(fc.tuple(changeArb, fc.boolean()), { minLength: 3, maxLength: 8 }),
  fc.boolean(),
  async (specs, changes, unique) => {
    const { workflow, graph } = workflowOf(specs);
    const world = new World(workflow, graph);
    world.unique = unique;
    const remote = new MemoryRemote();
    const ids = specs.map((s) => s.id);
    const edits = new Map<string, Buffer>();
    await world.run();
    for (const [change, withRemote] of changes) {
      // Some steps see the remote store (and save to it), some do not; a new machine always does.
      world.remote = withRemote || change.kind === "freshMachine" ? remote : undefined;
      const selection = apply(world, change, ids, edits);
      // Line endings are not content: a CRLF copy of an output is the same artifact.
      if (change.kind === "crlf") expect((await world.plan()).pairs.filter((p) => p.action === "run").map((p) => p.id)).toEqual([]);
      await planEqualsRun(world, selection, edits, unique);
      // --only leaves what depends on the selected pair for a later run: that run follows the rule too.
      if (selection.only) await planEqualsRun(world, {}, edits, unique);
      // The second run's plan is the plan of the world as the first run left it.
      const lockBefore = JSON.stringify(world.lock);
      world.calls = [];
      const { plan: again, report: second } = await world.run();
      expect(again.pairs.filter((p) => p.action === "run").map((p) => p.id)).toEqual([]);
      expect(byStatus(second, "executed")).toEqual([]);
      expect(world.calls).toEqual([]);
      expect(JSON.stringify(world.lock)).toBe(lockBefore);
    }
  },
);

const RUNS = Number(process.env.PAIRFLOW_PROPERTY_RUNS ?? 300);
const SEED = Number(process.env.PAIRFLOW_PROPERTY_SEED ?? 20261122);
/**
 * The runs are made in parts, each a test with a seed of its own (SEED + part): the same number of
 * random cases, but no one test with all of the property's computing to do before its time limit.
 */
const PARTS = 3;

describe("plan = run, over random workflows and changes (in memory)", () => {
  for (let part = 0; part < PARTS; part++) {
    const seed = SEED + part;
    it(
      `the pairs planned to run are the pairs executed, outputs exist afterwards, and a second run executes nothing (seed ${seed})`,
      { timeout: scaled(120_000) },
      () => fc.assert(planEqualsRunRule, { numRuns: Math.ceil(RUNS / PARTS), seed }),
    );
  }
});
