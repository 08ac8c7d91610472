import { beforeAll, describe, expect, it } from "vitest";
import { acceptAll } from "./helpers/state.js";
import { tempRepo } from "./helpers/fixtures.js";

/** Every pair's configRef once every pair is accepted with `content`. */
async function refs(files: Record<string, string>, content?: (id: string) => string): Promise<Record<string, string>> {
  const lock = await acceptAll(tempRepo(files), content);
  return Object.fromEntries(Object.entries(lock.pairs).map(([id, e]) => [id, e.configRef]));
}

const WORKFLOW = `# a comment
name: refs
description: not hashed
model: m-1
rmax: 2
specification: Build a stack.
generator: command
generator_config:
  run: echo hi
  api_key_env: SOME_KEY
action_pairs:
  a:
    guard: regex
    guard_config: {pattern: "x", flags: m, threshold: 1.0}
    inputs: ["src/*.txt"]
  b:
    requires: [a]
    guard: composite
    guards: [json, {guard: regex, guard_config: {pattern: y}}]
    model: m-2
  c:
    requires: [b]
    guard: contains
    generator: openai
    generator_config: {temperature: 0.5}
  d:
    guard: json
`;
const PROMPTS = `a: {role: r, constraints: c, task: t, feedback_wrapper: "F {feedback}"}
b: {task: tb}
c: {task: tc}
d: {task: td}
`;
const BASE = { "workflow.yml": WORKFLOW, "prompts.yml": PROMPTS, "src/one.txt": "one\n" };

describe("formatting never changes a reference", () => {
  let expected: Record<string, string>;
  beforeAll(async () => {
    expected = await refs(BASE);
  });

  it("gives the same references for reordered keys, other quoting, comments and block style", async () => {
    const reformatted = `action_pairs:
  d: {guard: 'json'}   # the last pair first
  c:
    generator_config:
      temperature: 0.50
    generator: "openai"
    guard: contains
    requires:
      - b
  b:
    model: 'm-2'
    guards:
      - json
      - guard_config:
          pattern: "y"
        guard: regex
    guard: composite
    requires: [a]
  a:
    inputs:
      - 'src/*.txt'
    guard_config:
      threshold: 1.00
      flags: "m"
      pattern: 'x'
    guard: regex
generator_config: {api_key_env: SOME_KEY, run: "echo hi"}
generator: command
specification: "Build a stack."
rmax: 2
model: m-1
name: "refs"
`;
    const prompts = `d:
  task: td
c: {task: "tc"}
b:
  task: >-
    tb
a:
  feedback_wrapper: 'F {feedback}'
  task: t
  constraints: c
  role: r
`;
    expect(await refs({ ...BASE, "workflow.yml": reformatted, "prompts.yml": prompts })).toEqual(expected);
  });

  it("gives the same references for the same workflow written as JSON", async () => {
    const workflow = {
      name: "refs",
      description: "not hashed",
      model: "m-1",
      rmax: 2,
      specification: "Build a stack.",
      generator: "command",
      generator_config: { run: "echo hi", api_key_env: "SOME_KEY" },
      action_pairs: {
        a: { guard: "regex", guard_config: { pattern: "x", flags: "m", threshold: 1.5 }, inputs: ["src/*.txt"] },
        b: { requires: ["a"], guard: "composite", guards: ["json", { guard: "regex", guard_config: { pattern: "y" } }], model: "m-2" },
        c: { requires: ["b"], guard: "contains", generator: "openai", generator_config: { temperature: 0.5 } },
        d: { guard: "json" },
      },
    };
    // JSON.stringify writes 1.5 as 1.5; an integral float has to be spelled out to stay a float.
    const json = JSON.stringify(workflow, null, 2).replace('"threshold": 1.5', '"threshold": 1.0');
    const prompts = JSON.stringify({
      a: { role: "r", constraints: "c", task: "t", feedback_wrapper: "F {feedback}" },
      b: { task: "tb" },
      c: { task: "tc" },
      d: { task: "td" },
    });
    expect(await refs({ "workflow.json": json, "prompts.json": prompts, "src/one.txt": "one\n" })).toEqual(expected);
  });

  it("gives the same references whatever the order of requires", async () => {
    const twoDeps = (requires: string) => ({ ...BASE, "workflow.yml": WORKFLOW.replace("requires: [a]", `requires: ${requires}`) });
    expect(await refs(twoDeps("[d, a]"))).toEqual(await refs(twoDeps("[a, d]")));
  });

  it("gives the same references for files with CRLF line endings, block scalars included", async () => {
    const crlf = (text: string) => text.replace(/\n/g, "\r\n");
    const prompts = PROMPTS.replace("b: {task: tb}", "b:\n  task: |\n    tb\n    on two lines\n");
    expect(await refs({ ...BASE, "workflow.yml": crlf(WORKFLOW), "prompts.yml": crlf(prompts) })).toEqual(await refs({ ...BASE, "prompts.yml": prompts }));
  });

  it("tells an integral float from an integer, as the reference does", async () => {
    expect((await refs({ ...BASE, "workflow.yml": WORKFLOW.replace("threshold: 1.0", "threshold: 1") })).a).not.toBe(expected.a);
  });
});

describe("changing one hashed component changes that pair's reference and every reference downstream, and nothing else", () => {
  let base: Record<string, string>;
  beforeAll(async () => {
    base = await refs(BASE);
  });
  const edit = (from: string, to: string, file = "workflow.yml") => {
    const source = BASE[file as keyof typeof BASE];
    if (!source.includes(from)) throw new Error(`fixture lacks ${from}`);
    return { ...BASE, [file]: source.replace(from, to) };
  };
  const all = ["a", "b", "c", "d"];

  it.each([
    ["a's prompt role", edit("role: r", "role: r2", "prompts.yml"), ["a", "b", "c"]],
    ["a's feedback_wrapper", edit('"F {feedback}"', '"G {feedback}"', "prompts.yml"), ["a", "b", "c"]],
    ["b's task", edit("task: tb", "task: tb2", "prompts.yml"), ["b", "c"]],
    ["d's prompt added key", edit("d: {task: td}", "d: {task: td, role: x}", "prompts.yml"), ["d"]],
    ["b's model", edit("model: m-2", "model: m-3"), ["b", "c"]],
    ["the workflow's default model", edit("model: m-1", "model: m-9"), all],
    ["a's guard", edit("guard: regex\n    guard_config", "guard: contains\n    guard_config"), ["a", "b", "c"]],
    ["a's guard_config", edit('pattern: "x"', 'pattern: "z"'), ["a", "b", "c"]],
    ["b's composite guards", edit("guards: [json,", "guards: [contains,"), ["b", "c"]],
    ["c's generator", edit("generator: openai", "generator: anthropic"), ["c"]],
    ["c's generator_config", edit("temperature: 0.5", "temperature: 0.7"), ["c"]],
    ["the workflow's generator_config (inherited by a, b, d)", edit("run: echo hi", "run: echo bye"), all],
    ["the workflow's specification", edit("Build a stack.", "Build a queue."), all],
    ["a's input file content", { ...BASE, "src/one.txt": "uno\n" }, ["a", "b", "c"]],
    ["a new file matching a's input glob", { ...BASE, "src/two.txt": "two\n" }, ["a", "b", "c"]],
    ["a's input globs", edit('inputs: ["src/*.txt"]', 'inputs: ["src/*.txt", "workflow.yml"]'), ["a", "b", "c"]],
    ["b's requires (now also d)", edit("requires: [a]", "requires: [a, d]"), ["b", "c"]],
  ])("%s", async (_name, files, changed) => {
    const after = await refs(files);
    const differing = all.filter((id) => after[id] !== base[id]).sort();
    expect(differing).toEqual([...changed].sort());
  });

  it("a's accepted content changes b and c, not a", async () => {
    const after = await refs(BASE, (id) => (id === "a" ? "different content\n" : `artifact of ${id}\n`));
    expect(all.filter((id) => after[id] !== base[id])).toEqual(["b", "c"]);
  });

  it.each([
    ["description", edit("description: not hashed", "description: changed")],
    ["rmax", edit("rmax: 2", "rmax: 5")],
    ["the name of the key variable (never the key)", edit("api_key_env: SOME_KEY", "api_key_env: OTHER_KEY")],
    ["an endpoint's rate limit", edit("{temperature: 0.5}", "{temperature: 0.5, rate_limit: {tokens_per_minute: 30000}}")],
    ["an x- note", edit("  d:\n    guard: json", "  d:\n    x-owner: docs\n    guard: json")],
  ])("%s changes no reference", async (_name, files) => {
    expect(await refs(files)).toEqual(base);
  });
});
