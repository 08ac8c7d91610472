import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { Reason } from "../src/model/plan.js";
import { acceptAll, planOf } from "./helpers/state.js";
import { tempRepo, writeFiles } from "./helpers/fixtures.js";

const WORKFLOW = `name: three
model: m-1
generator: command
generator_config: {run: "node gen.mjs"}
action_pairs:
  g_test:
    output: out/test.py
    guard: regex
    guard_config: {pattern: "def test_"}
    inputs: ["spec/*.md"]
  g_impl:
    requires: [g_test]
    output: out/impl.py
    guard: contains
    guard_config: {text: "class"}
  g_review:
    requires: [g_impl]
    guard: contains
    guard_config: {text: "Verdict:"}
`;
const PROMPTS = `g_test: {role: Tester, task: Write tests.}
g_impl: {role: Developer, task: Implement.}
g_review: {task: Review.}
`;

let dir: string;
const plan = async () => {
  const { plan } = await planOf(dir);
  return Object.fromEntries(plan.pairs.map((p) => [p.id, p]));
};
const reasons = async (id: string): Promise<Reason[]> => (await plan())[id]!.reasons;
const actions = async () => Object.fromEntries(Object.values(await plan()).map((p) => [p.id, p.action]));
const edit = (file: string, from: string, to: string) => {
  const f = path.join(dir, file);
  const text = readFileSync(f, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(f, text.replace(from, to));
};

beforeEach(async () => {
  dir = tempRepo({ "workflow.yml": WORKFLOW, "prompts.yml": PROMPTS, "spec/stack.md": "A stack.\n" });
});

describe("the plan", () => {
  it("run 1: every pair is new; references downstream of a pair that will run are unknown", async () => {
    const p = await plan();
    expect(p.g_test!.reasons).toEqual([{ kind: "new", detail: "never accepted" }]);
    expect(p.g_test!.configRef).toMatch(/^[0-9a-f]{64}$/);
    expect(p.g_impl!.configRef).toBeNull();
    expect(p.g_impl!.reasons).toEqual([
      { kind: "new", detail: "never accepted" },
      { kind: "upstream", detail: "g_test will run", component: { kind: "upstream", name: "g_test" } },
    ]);
    expect(p.g_review!.wave).toBe(3);
  });

  it("run 2: nothing changed, nothing runs", async () => {
    await acceptAll(dir);
    expect(await actions()).toEqual({ g_test: "skip", g_impl: "skip", g_review: "skip" });
  });

  it("run 3: a prompt change re-runs that pair and cascades, naming the changed part", async () => {
    await acceptAll(dir);
    edit("prompts.yml", "task: Implement.", "task: Implement it.");
    expect(await actions()).toEqual({ g_test: "skip", g_impl: "run", g_review: "run" });
    expect(await reasons("g_impl")).toEqual([{ kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt", name: "task" } }]);
    expect(await reasons("g_review")).toEqual([{ kind: "upstream", detail: "g_impl will run", component: { kind: "upstream", name: "g_impl" } }]);
  });

  it("run 4: a hand edit of an output is kept and re-runs only its dependents", async () => {
    await acceptAll(dir);
    writeFileSync(path.join(dir, "out/test.py"), "def test_by_hand(): pass\n");
    const p = await plan();
    expect(p.g_test!.action).toBe("skip");
    expect(p.g_test!.artifact?.edited).toBe(true);
    expect(p.g_impl!.reasons).toEqual([
      { kind: "upstream_artifact", detail: "g_test's output was edited by hand", component: { kind: "artifact", name: "g_test" } },
    ]);
    expect(p.g_review!.reasons).toEqual([{ kind: "upstream", detail: "g_impl will run", component: { kind: "upstream", name: "g_impl" } }]);
  });

  it("a deleted output file falls back to the recorded content and changes nothing", async () => {
    await acceptAll(dir);
    rmSync(path.join(dir, "out/test.py"));
    expect(await actions()).toEqual({ g_test: "skip", g_impl: "skip", g_review: "skip" });
  });

  it.each([
    [
      "model",
      () => edit("workflow.yml", "model: m-1", "model: m-2"),
      "g_test",
      { kind: "model", detail: "model changed (was m-1)", component: { kind: "model", name: "" } },
    ],
    [
      "guard",
      () => edit("workflow.yml", "guard: regex", "guard: contains"),
      "g_test",
      { kind: "guard", detail: "guard changed", component: { kind: "guard", name: "" } },
    ],
    [
      "guard_config",
      () => edit("workflow.yml", '{pattern: "def test_"}', '{pattern: "def test_", flags: m}'),
      "g_test",
      { kind: "guard_config", detail: "guard_config.flags added", component: { kind: "guard_config", name: "flags" } },
    ],
    [
      "generator",
      () => edit("workflow.yml", "node gen.mjs", "node gen2.mjs"),
      "g_test",
      { kind: "generator", detail: "generator_config.run changed", component: { kind: "generator_config", name: "run" } },
    ],
    [
      "inputs changed",
      () => writeFileSync(path.join(dir, "spec/stack.md"), "A queue.\n"),
      "g_test",
      { kind: "inputs", detail: "spec/stack.md changed", component: { kind: "input", name: "spec/stack.md" } },
    ],
    [
      "inputs added",
      () => writeFileSync(path.join(dir, "spec/more.md"), "More.\n"),
      "g_test",
      { kind: "inputs", detail: "spec/more.md added", component: { kind: "input", name: "spec/more.md" } },
    ],
    [
      "prompt key removed",
      () => edit("prompts.yml", "{role: Tester, task: Write tests.}", "{task: Write tests.}"),
      "g_test",
      { kind: "prompt", detail: "prompt.role removed", component: { kind: "prompt", name: "role" } },
    ],
  ])("says which part changed: %s", async (_name, change, id, reason) => {
    await acceptAll(dir);
    change();
    expect(await reasons(id)).toEqual([reason]);
  });

  it("a workflow-level context change is a prompt change of every pair", async () => {
    await acceptAll(dir);
    edit("workflow.yml", "model: m-1", "model: m-1\nspecification: Now with a spec.");
    expect(await reasons("g_test")).toEqual([
      { kind: "prompt", detail: "workflow specification added", component: { kind: "context", name: "specification" } },
    ]);
    expect(await reasons("g_impl")).toEqual([
      { kind: "prompt", detail: "workflow specification added", component: { kind: "context", name: "specification" } },
      { kind: "upstream", detail: "g_test will run", component: { kind: "upstream", name: "g_test" } },
    ]);
  });

  it("reuses an accepted artifact from the store when a change is reverted", async () => {
    await acceptAll(dir);
    edit("prompts.yml", "task: Write tests.", "task: Write more tests.");
    await acceptAll(dir, (id) => (id === "g_test" ? "def test_more(): pass\n" : `artifact of ${id}\n`));
    edit("prompts.yml", "task: Write more tests.", "task: Write tests.");
    writeFileSync(path.join(dir, "out/test.py"), "artifact of g_test\n"); // the revert restores the file too
    const p = await plan();
    expect(p.g_test!.action).toBe("skip");
    expect(p.g_test!.artifact?.source).toBe("store");
    // g_impl's own config is unchanged and its earlier artifact for this reference is in the store.
    expect(p.g_impl!.action).toBe("skip");
  });

  it("names an upstream reference change when the upstream's content stayed the same", async () => {
    await acceptAll(dir);
    edit("prompts.yml", "task: Write tests.", "task: Write tests!");
    // The dependency re-ran and produced byte-identical content; its reference still changed.
    await acceptAll(dir, () => "artifact of g_test\n", { only: (id) => id === "g_test" });
    expect((await plan()).g_impl!.reasons).toEqual([
      { kind: "upstream", detail: "g_test's reference changed", component: { kind: "upstream", name: "g_test" } },
    ]);
  });

  it("says when the last attempt for this reference was rejected", async () => {
    const { plan: p, store } = await planOf(dir);
    const g = p.byId.get("g_test")!;
    store.putRecord({
      pair: "g_test",
      configRef: g.configRef!,
      status: "rejected",
      feedback: "no test functions\nmore detail",
      components: g.components!,
      at: "2026-01-01T00:00:00Z",
    });
    expect(await reasons("g_test")).toEqual([
      { kind: "new", detail: "never accepted" },
      { kind: "rejected", detail: "last attempt rejected: no test functions" },
    ]);
  });

  it("never takes the lock file or an output as an input, so a pair whose globs match them settles", async () => {
    // g_test's globs match its own output, g_impl's (its dependent) and the lock file, which each
    // run rewrites: were they inputs, its reference would change on every run.
    edit("workflow.yml", 'inputs: ["spec/*.md"]', 'inputs: ["spec/*.md", "**/*.py", "*.json"]');
    let calls = 0;
    await acceptAll(dir, (id) => {
      if (++calls > 10) throw new Error("the workflow never settles");
      return `${id}, attempt ${calls}\n`;
    });
    expect(await actions()).toEqual({ g_test: "skip", g_impl: "skip", g_review: "skip" });
    writeFiles(dir, { "src/helper.py": "x = 1\n" });
    expect(await reasons("g_test")).toEqual([{ kind: "inputs", detail: "src/helper.py added", component: { kind: "input", name: "src/helper.py" } }]);
  });

  it("forces every pair when asked", async () => {
    await acceptAll(dir);
    const { plan: p } = await planOf(dir, { selection: { force: true } });
    expect(p.pairs.map((x) => [x.id, x.action, x.reasons])).toEqual([
      ["g_test", "run", [{ kind: "forced", detail: "--force" }]],
      [
        "g_impl",
        "run",
        [
          { kind: "upstream", detail: "g_test will run", component: { kind: "upstream", name: "g_test" } },
          { kind: "forced", detail: "--force" },
        ],
      ],
      [
        "g_review",
        "run",
        [
          { kind: "upstream", detail: "g_impl will run", component: { kind: "upstream", name: "g_impl" } },
          { kind: "forced", detail: "--force" },
        ],
      ],
    ]);
  });
});
