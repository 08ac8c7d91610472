import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, formatIssue } from "../src/model/errors.js";
import { loadWorkflow } from "../src/workspace/load.js";
import { planOf } from "./helpers/state.js";
import { FIXTURES, tempRepo } from "./helpers/fixtures.js";

/** The formatted problems a load reports, or [] when it loads. */
function problems(files: Record<string, string>, target = "."): string[] {
  const dir = tempRepo(files);
  try {
    loadWorkflow(target, dir);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map(formatIssue);
  }
}

const PROMPTS = "g_a:\n  task: Do a.\n";

describe("loading configuration", () => {
  const compat = ["atomicguard", "atomicguard-more"].flatMap((folder) =>
    readdirSync(path.join(FIXTURES, "compat", folder))
      .filter((d) => !d.includes(".") && d !== "LICENSE")
      .map((d) => path.join(folder, d)),
  );
  it.each(compat)("loads and plans the reference workflow %s unchanged", async (name) => {
    const dir = path.join(FIXTURES, "compat", name);
    const { plan, workflow } = await planOf(dir, { stateDir: tempRepo() });
    expect(workflow.pairs.size).toBeGreaterThan(0);
    expect(plan.pairs.every((p) => p.action === "run")).toBe(true);
    expect(workflow.promptsPath).toBe(path.join(dir, "prompts.json"));
  });

  it("loads and plans a reference workflow whose prompts file is shared with other workflows, warning of the entries it ignores", async () => {
    const workflow = {
      name: "swe",
      generator: "command",
      generator_config: { run: "cat" },
      action_pairs: { ap_localize: { guard: "json" }, ap_patch: { guard: "json", requires: ["ap_localize"] } },
    };
    // Another workflow's entries: two near misses of this one's pairs, one that is not, one pairflow's schema would refuse.
    const prompts = {
      ap_localize: { task: "Find the file." },
      ap_patch: { task: "Write the patch." },
      ap_gen_patch: { task: "Write a patch from the tests." },
      ap_localise: { task: "Find it." },
      ap_analysis: { task: "Analyse." },
      "ap singleshot": { task: ["one", "shot"], temperature: 0 },
    };
    const dir = tempRepo({ "workflow.json": JSON.stringify(workflow, null, 2), "prompts.json": JSON.stringify(prompts, null, 2) });
    const { loaded, plan } = await planOf(dir, { cwd: dir });
    expect(plan.pairs.map((p) => [p.id, p.action])).toEqual([
      ["ap_localize", "run"],
      ["ap_patch", "run"],
    ]);
    expect(loaded.warnings.map(formatIssue)).toEqual([
      'prompts.json:8:3: ap_gen_patch: entry "ap_gen_patch" names no pair of workflow.json, and is ignored; did you mean "ap_patch"?',
      'prompts.json:11:3: ap_localise: entry "ap_localise" names no pair of workflow.json, and is ignored; did you mean "ap_localize"?',
      'prompts.json:14:3: ap_analysis: entries "ap_analysis", "ap singleshot" name no pair of workflow.json, and are ignored',
    ]);
    // The same files in pairflow's own format: each entry for no pair is an error, the near misses with their hints.
    const own = problems({ "workflow.yml": JSON.stringify(workflow), "prompts.json": JSON.stringify(prompts, null, 2) });
    expect(own).toContain('prompts.json:8:3: ap_gen_patch: prompts entry "ap_gen_patch" names no pair of workflow.yml; did you mean "ap_patch"?');
    expect(own).toContain('prompts.json:11:3: ap_localise: prompts entry "ap_localise" names no pair of workflow.yml; did you mean "ap_localize"?');
  });

  it("names file, line, column, key, what was found and what is expected, for every problem at once", async () => {
    const out = problems({
      "workflow.yml": [
        "name: demo", // 1
        "rmax: three", // 2
        "action_pairs:", // 3
        "  g_a:", // 4
        "    gaurd: syntax", // 5
        "    requires: g_b", // 6
        "",
      ].join("\n"),
      "prompts.yml": "g_a:\n  task: Do a.\n  tsak: typo\n",
    });
    expect(out).toEqual([
      'prompts.yml:3:3: g_a.tsak: unknown key "tsak"; did you mean "task"?; expected one of: role, constraints, task, feedback_wrapper',
      'workflow.yml:2:7: rmax: found the text "three"; expected integer',
      'workflow.yml:5:5: action_pairs.g_a.gaurd: unknown key "gaurd"; did you mean "guard"?; expected one of: description, requires, guard, guard_config, guards, generator, generator_config, model, rmax, fresh, output, inputs, foreach, assembled_guard, carry_edits, adopt_existing, human_prompt_title (or an "x-" key for notes of your own)',
      'workflow.yml:6:15: action_pairs.g_a.requires: found the text "g_b"; expected array',
    ]);
  });

  it("stops an alias bomb with a positioned error, not a crash", async () => {
    let yaml = "name: bomb\na: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 0, prev = "a"; i < 6; prev = `b${i}`, i++) yaml += `b${i}: &b${i} [${Array(10).fill(`*${prev}`).join(", ")}]\n`;
    const found = problems({ "workflow.yml": yaml + "action_pairs:\n  a: {}\n" });
    // At an alias of the last line, which expands to a million values.
    expect(found).toContainEqual(expect.stringMatching(/^workflow\.yml:8:\d+: aliases expand this document to more than 1,000,000 values .*alias bomb/));
    expect(found).not.toContainEqual(expect.stringMatching(/missing required key/));
  });

  it("reports a missing required key at the mapping that lacks it", async () => {
    expect(problems({ "workflow.yml": "action_pairs:\n  g_a: {}\n" })).toEqual(['workflow.yml:1:1: missing required key "name"']);
  });

  it("allows x- keys for notes but no other unknown top-level key", async () => {
    expect(problems({ "workflow.yml": "name: n\nx-owner: docs team\naction_pairs:\n  g_a:\n    x-note: keep\n" })).toEqual([]);
    expect(problems({ "workflow.yml": "name: n\nmodle: gpt\naction_pairs:\n  g_a: {}\n" })[0]).toMatch(
      /^workflow\.yml:2:1: modle: unknown key "modle"; did you mean "model"\?/,
    );
  });

  it("rejects a prompts entry that names no pair, at its key, suggesting the likely one", async () => {
    expect(problems({ "workflow.yml": "name: n\naction_pairs:\n  g_impl: {}\n", "prompts.yml": "g_impl: {}\ng_imp:\n  task: x\n" })).toEqual([
      'prompts.yml:2:1: g_imp: prompts entry "g_imp" names no pair of workflow.yml; did you mean "g_impl"?',
    ]);
  });

  it("reports positions in JSON files too", async () => {
    const out = problems({
      "workflow.json": '{\n  "name": "n",\n  "action_pairs": {\n    "a": {"guard": 3}\n  }\n}\n',
    });
    expect(out).toEqual(["workflow.json:4:20: action_pairs.a.guard: found the number 3; expected string"]);
  });

  it("rejects duplicate pair ids with the id named", async () => {
    const out = problems({ "workflow.yml": "name: n\naction_pairs:\n  g_a: {}\n  g_a: {}\n" });
    expect(out).toEqual(['workflow.yml:4:3: duplicate key "g_a" (first at line 3); each key, and each pair id, may appear once']);
  });

  it("treats an empty prompts file as no prompts, but an empty workflow file as missing its keys", async () => {
    expect(problems({ "workflow.yml": "name: n\naction_pairs:\n  g_a: {}\n", "prompts.yml": "# nothing yet\n" })).toEqual([]);
    expect(problems({ "workflow.yml": "# nothing yet\n" })).toEqual([
      'workflow.yml:1:1: missing required key "action_pairs"',
      'workflow.yml:1:1: missing required key "name"',
    ]);
  });

  it("accepts anchors and aliases for shared settings", async () => {
    const pairs = Array.from({ length: 150 }, (_, i) => `  p${i}: {guard: regex, guard_config: *shared}`).join("\n");
    expect(problems({ "workflow.yml": `name: n\nx-shared: &shared {pattern: "^ok"}\naction_pairs:\n${pairs}\n` })).toEqual([]);
  });

  it("rejects pair ids that could not be a file name or cache key", async () => {
    const out = problems({ "workflow.yml": "name: n\naction_pairs:\n  'a,b': {}\n" });
    expect(out[0]).toMatch(/^workflow\.yml:3:3: action_pairs\.a,b: "a,b" is not a valid pair id/);
  });

  it("hints at quoting for text that contains ': '", async () => {
    const out = problems({ "workflow.yml": "name: n\naction_pairs:\n  g_a: {}\n", "prompts.yml": 'g_a:\n  task: end with "Verdict: ok" please\n' });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^prompts\.yml:2:9: .*put it in quotes or use a block scalar/);
  });

  it("keeps outputs and inputs inside the repository, and literal inputs must exist", async () => {
    const out = problems(
      {
        "wf/workflow.yml": "name: n\naction_pairs:\n  g_a:\n    output: ../../elsewhere.txt\n    inputs: ['../../**/*.py', 'missing.txt', 'src/*.md']\n",
      },
      "wf",
    );
    expect(out.map((l) => l.replace(/\(\/[^)]*\)/g, "(ROOT)"))).toEqual([
      'wf/workflow.yml:4:13: action_pairs.g_a.output: "../../elsewhere.txt" is outside the repository (ROOT); give a path inside it, relative to the workflow file',
      'wf/workflow.yml:5:14: action_pairs.g_a.inputs.0: "../../**/*.py" reaches outside the repository (ROOT); inputs are globs relative to the workflow file, inside the repository',
      'wf/workflow.yml:5:31: action_pairs.g_a.inputs.1: "missing.txt" does not exist (inputs are relative to the workflow file); fix the path, or write a glob if the file may be absent',
    ]);
  });

  it("finds the prompts file the workflow names, and says so when it is missing", async () => {
    expect(problems({ "workflow.yml": "name: n\nprompts: p/my.yml\naction_pairs:\n  g_a: {}\n", "p/my.yml": PROMPTS })).toEqual([]);
    expect(problems({ "workflow.yml": "name: n\nprompts: nope.yml\naction_pairs:\n  g_a: {}\n" })[0]).toMatch(
      /^workflow\.yml:2:10: prompts: file "nope\.yml" not found/,
    );
  });

  it("asks which workflow to use when a directory holds several", async () => {
    expect(problems({ "workflow.yml": "name: a\naction_pairs: {g: {}}\n", "workflow.json": "{}" })).toEqual([
      `${"."}:1:1: several workflow files here (workflow.yml, workflow.json); give the one to use`,
    ]);
  });
});

describe("the dependency graph", () => {
  it("rejects unknown requires targets and self-dependencies at the entry", async () => {
    const out = problems({ "workflow.yml": "name: n\naction_pairs:\n  g_test: {}\n  g_impl:\n    requires: [g_tset, g_impl]\n" });
    expect(out).toEqual([
      'workflow.yml:5:16: action_pairs.g_impl.requires.0: requires "g_tset", which is not a pair of this workflow; did you mean "g_test"?',
      'workflow.yml:5:24: action_pairs.g_impl.requires.1: "g_impl" requires itself; remove it from its own requires',
    ]);
  });

  it("rejects a cycle with its path", async () => {
    const out = problems({ "workflow.yml": "name: n\naction_pairs:\n  a: {requires: [c]}\n  b: {requires: [a]}\n  c: {requires: [b]}\n  d: {}\n" });
    expect(out).toEqual([
      "workflow.yml:3:18: action_pairs.a.requires.0: dependency cycle: a -> c -> b -> a (each pair requires the next); remove one of these requires entries",
    ]);
  });

  it("groups pairs into waves by topological level and lists dependents", async () => {
    const dir = tempRepo({
      "workflow.yml":
        "name: n\naction_pairs:\n  coder: {requires: [add, bdd]}\n  add: {requires: [config]}\n  config: {}\n  bdd: {requires: [config]}\n  docs: {}\n",
    });
    const { graph } = loadWorkflow(dir, dir);
    expect(graph.waves).toEqual([["config", "docs"], ["add", "bdd"], ["coder"]]);
    expect(graph.dependents.get("config")).toEqual(["add", "bdd"]);
    expect(graph.order.indexOf("coder")).toBeGreaterThan(graph.order.indexOf("bdd"));
  });
});
