// Everything that can change what a pair produces is in its reference: the files its generator
// and guards read, non-secret headers, an explicit env, pairflow's own prompt layout. And what
// cannot (a secret header, the order of requires, formatting) changes nothing.
import { readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ConfigError } from "../src/model/errors.js";
import type { PlannedPair, Reason } from "../src/model/plan.js";
import { plannedComponents } from "../src/plan/plan.js";
import { PROMPT_LAYOUT } from "../src/prompt/render.js";
import { loadWorkflow } from "../src/workspace/load.js";
import { InputHasher } from "../src/workspace/inputs.js";
import { commandWords, PairFileHasher } from "../src/workspace/pairFiles.js";
import { acceptAll, planOf } from "./helpers/state.js";
import { copyToTempRepo, REPO, tempRepo, writeFiles } from "./helpers/fixtures.js";

const WORKFLOW = `name: sound
model: m-1
action_pairs:
  a:
    generator: command
    generator_config:
      run: node gen.mjs --verbose "lib/quoted.txt" $HOME/x *.md ../outside.sh > out.log 2>&1
      files: ["data/*.json"]
      env: {MODE: fast}
    guard: command
    guard_config:
      run: sh check.sh
      env: {LEVEL: "1"}
      files: [rules.txt]
  b:
    requires: [a]
    generator: command
    generator_config: {run: node gen.mjs}
    guard: json_schema
    guard_config: {schema_file: schemas/b.json}
  c:
    requires: [b]
    generator: openai
    generator_config:
      headers: {X-Beta: tools-1, Authorization: "Bearer sk-live-9f8e7d", X-Api-Key: sk-key-1a2b3c}
    guard: composite
    guards: [json, {guard: command, guard_config: {run: ./sub.sh}}]
  d:
    guard: json
  e:
    requires: [a, d]
    generator: command
    generator_config: {run: cat}
`;
const PROMPTS = `a: {task: ta}
b: {task: tb}
c: {task: tc}
d: {task: td}
e: {task: te}
`;
const BASE: Record<string, string> = {
  "workflow.yml": WORKFLOW,
  "prompts.yml": PROMPTS,
  "gen.mjs": "console.log('v1')\n",
  "lib/quoted.txt": "quoted\n",
  "data/one.json": "{}\n",
  "out.log": "written by the command\n",
  "README.md": "not named: a glob\n",
  "check.sh": "exit 0\n",
  "rules.txt": "rule 1\n",
  "schemas/b.json": '{"type": "object"}\n',
  "sub.sh": "exit 0\n",
};
const ALL = ["a", "b", "c", "d", "e"];

function repo(files: Record<string, string> = BASE): string {
  const root = tempRepo();
  // The workflow sits one level down, so that ../outside.sh is in the repository but not a file.
  writeFiles(path.join(root, "wf"), files);
  return path.join(root, "wf");
}

async function refs(dir: string): Promise<Record<string, string>> {
  const lock = await acceptAll(dir);
  return Object.fromEntries(Object.entries(lock.pairs).map(([id, e]) => [id, e.configRef]));
}

async function planned(dir: string): Promise<Record<string, PlannedPair>> {
  const { plan } = await planOf(dir);
  return Object.fromEntries(plan.pairs.map((p) => [p.id, p]));
}

function edit(files: Record<string, string>, file: string, from: string, to: string): Record<string, string> {
  if (!files[file]!.includes(from)) throw new Error(`${file} lacks ${from}`);
  return { ...files, [file]: files[file]!.replace(from, to) };
}

describe("files a pair's generator and guards read", () => {
  let base: Record<string, string>;
  beforeAll(async () => {
    base = await refs(repo());
  });

  it("are components named by who reads them, paths relative to the workflow file", async () => {
    const p = await planned(repo());
    expect(p.a!.own.files).toEqual({
      generator: { "data/one.json": expect.any(String), "gen.mjs": expect.any(String), "lib/quoted.txt": expect.any(String) },
      guard: { "check.sh": expect.any(String), "rules.txt": expect.any(String) },
    });
    expect(Object.keys(plannedComponents(p.a!)!).filter((k) => k.includes("_file:"))).toEqual([
      "generator_file:data/one.json",
      "generator_file:gen.mjs",
      "generator_file:lib/quoted.txt",
      "guard_file:check.sh",
      "guard_file:rules.txt",
    ]);
    const b = await refs(repo());
    expect(b).toEqual(base);
  });

  // [what, files after the change, pairs whose reference changes, the changed pair's reason]
  it.each<[string, Record<string, string>, string[], [string, Reason]]>([
    [
      "a command generator's script",
      { ...BASE, "gen.mjs": "console.log('v2')\n" },
      ["a", "b", "c", "e"],
      ["a", { kind: "generator", detail: "gen.mjs changed" }],
    ],
    [
      "a quoted file on the command line",
      { ...BASE, "lib/quoted.txt": "other\n" },
      ["a", "b", "c", "e"],
      ["a", { kind: "generator", detail: "lib/quoted.txt changed" }],
    ],
    [
      "a file of generator_config.files",
      { ...BASE, "data/one.json": "[]\n" },
      ["a", "b", "c", "e"],
      ["a", { kind: "generator", detail: "data/one.json changed" }],
    ],
    [
      "a new file matching generator_config.files",
      { ...BASE, "data/two.json": "{}\n" },
      ["a", "b", "c", "e"],
      ["a", { kind: "generator", detail: "data/two.json added" }],
    ],
    ["a command guard's script", { ...BASE, "check.sh": "exit 1\n" }, ["a", "b", "c", "e"], ["a", { kind: "guard", detail: "check.sh changed" }]],
    ["a file of guard_config.files", { ...BASE, "rules.txt": "rule 2\n" }, ["a", "b", "c", "e"], ["a", { kind: "guard", detail: "rules.txt changed" }]],
    [
      "a json_schema guard's schema_file",
      { ...BASE, "schemas/b.json": '{"type": "array"}\n' },
      ["b", "c"],
      ["b", { kind: "guard", detail: "schemas/b.json changed" }],
    ],
    ["a composite's command sub-guard's script", { ...BASE, "sub.sh": "exit 2\n" }, ["c"], ["c", { kind: "guard", detail: "sub.sh changed" }]],
    [
      "generator_config.env",
      edit(BASE, "workflow.yml", "MODE: fast", "MODE: slow"),
      ["a", "b", "c", "e"],
      ["a", { kind: "generator", detail: "generator_config.env.MODE changed" }],
    ],
    [
      "a variable added to generator_config.env",
      edit(BASE, "workflow.yml", "MODE: fast", "MODE: fast, SEED: '7'"),
      ["a", "b", "c", "e"],
      ["a", { kind: "generator", detail: "generator_config.env.SEED added" }],
    ],
    [
      "guard_config.env",
      edit(BASE, "workflow.yml", 'LEVEL: "1"', 'LEVEL: "2"'),
      ["a", "b", "c", "e"],
      ["a", { kind: "guard_config", detail: "guard_config.env.LEVEL changed" }],
    ],
    [
      "a non-secret header",
      edit(BASE, "workflow.yml", "X-Beta: tools-1", "X-Beta: tools-2"),
      ["c"],
      ["c", { kind: "generator", detail: "generator_config.headers.x-beta changed" }],
    ],
  ])("%s: changes that pair and everything downstream, and the plan names it", async (_what, files, changed, [id, reason]) => {
    const after = await refs(repo(files));
    expect(ALL.filter((p) => after[p] !== base[p])).toEqual(changed);

    // The same change made after every pair was accepted: the plan says what changed.
    const dir = repo();
    await acceptAll(dir);
    writeFiles(dir, files);
    const p = await planned(dir);
    expect(ALL.filter((x) => p[x]!.action === "run")).toEqual(changed);
    expect(p[id]!.reasons).toContainEqual(expect.objectContaining(reason));
  });

  it.each([
    ["an output file the command writes (> out.log)", { ...BASE, "out.log": "written again\n" }],
    ["a file only a glob on the command line matches (*.md)", { ...BASE, "README.md": "changed\n" }],
    ["a new file beside the scripts", { ...BASE, "notes.txt": "not read\n" }],
    ["the order of requires", edit(BASE, "workflow.yml", "requires: [a, d]", "requires: [d, a]")],
    ["the case of a header's name", edit(BASE, "workflow.yml", "X-Beta: tools-1", "x-beta: tools-1")],
    ["a secret header's value", edit(BASE, "workflow.yml", "Bearer sk-live-9f8e7d", "Bearer sk-live-000000")],
    ["an API key header's value", edit(BASE, "workflow.yml", "X-Api-Key: sk-key-1a2b3c", "X-Api-Key: sk-key-zzzzzz")],
    ["a new secret header", edit(BASE, "workflow.yml", "X-Beta: tools-1,", "X-Beta: tools-1, X-Auth-Token: t0k3n, Cookie: s=1,")],
    [
      "formatting of env and files",
      edit(
        edit(BASE, "workflow.yml", "      env: {MODE: fast}\n", '      env:\n        MODE: "fast"   # a comment\n'),
        "workflow.yml",
        'files: ["data/*.json"]',
        "files:\n        - 'data/*.json'",
      ),
    ],
  ])("%s changes no reference", async (_what, files) => {
    expect(await refs(repo(files))).toEqual(base);
  });

  it("never hashes, records or plans with a secret header", async () => {
    const dir = repo();
    await acceptAll(dir);
    const p = await planned(dir);
    expect(p.c!.own.generator!.config).toEqual({ headers: { "x-beta": "tools-1" } });
    expect(Object.keys(plannedComponents(p.c!)!).filter((k) => k.startsWith("generator_config."))).toEqual(["generator_config.headers.x-beta"]);
    const written = [path.join(dir, "workflow.lock.json"), ...filesUnder(path.join(dir, "..", ".pairflow"))].map((f) => readFileSync(f, "utf8")).join("\n");
    expect(written).toContain("x-beta");
    for (const secret of ["sk-live-9f8e7d", "sk-key-1a2b3c", "authorization", "x-api-key"]) expect(written.toLowerCase()).not.toContain(secret);
  });

  it("pairs that name no generator hash no layout; the others do", async () => {
    const p = await planned(repo());
    expect(ALL.filter((id) => p[id]!.own.layout === PROMPT_LAYOUT)).toEqual(["a", "b", "c", "e"]);
    expect(Object.keys(p.d!.own).sort()).toEqual(["guard", "guard_config", "model", "prompt"]);
  });

  it("leave out words outside the repository and files reached through links that leave it", async () => {
    const outside = tempRepo({ "escape.sh": "outside\n" });
    const dir = repo({ ...BASE, "workflow.yml": WORKFLOW.replace("run: sh check.sh", `run: sh linked.sh ${outside}/escape.sh ../../escape.sh`) });
    symlinkSync(path.join(outside, "escape.sh"), path.join(dir, "linked.sh"));
    const p = await planned(dir);
    expect(Object.keys(p.a!.own.files!.guard!)).toEqual(["rules.txt"]);
  });

  it("refuse a schema_file outside the repository", async () => {
    const dir = repo(edit(BASE, "workflow.yml", "schema_file: schemas/b.json", "schema_file: /etc/hostname"));
    // A configuration error at the setting, found when the workflow loads.
    await expect(planOf(dir)).rejects.toThrow(ConfigError);
    await expect(planOf(dir)).rejects.toThrow(/action_pairs\.b\.guard_config\.schema_file: "\/etc\/hostname" is outside the repository/);
  });

  it("are hashed once per invocation, however many pairs read them", () => {
    const dir = repo();
    const { workflow } = loadWorkflow(dir);
    const files = new PairFileHasher(workflow, new InputHasher(workflow));
    const first = files.hashes(workflow.pairs.get("a")!).generator["gen.mjs"];
    writeFileSync(path.join(dir, "gen.mjs"), "changed while planning\n");
    expect(files.hashes(workflow.pairs.get("b")!).generator["gen.mjs"]).toBe(first);
  });
});

describe("commandWords", () => {
  it.each([
    ["node model.mjs", ["node", "model.mjs"]],
    ["python3 -m pytest --tb=short tests/test_a.py", ["python3", "pytest", "tests/test_a.py"]],
    [`sh 'a b.sh' "c.sh" d"e".sh`, ["sh", "a b.sh", "c.sh", "de.sh"]],
    ['node "$DIR/x.mjs" $HOME/y ~/z *.py a?.txt [ab].sh {a,b}.sh "$(cat list)"', ["node"]],
    ['sh a\\ b.sh "c\\"d.sh" ~x/../e.sh', ["sh", "a b.sh", 'c"d.sh']],
    [
      "node gen.mjs > out.txt 2>&1 >> log.txt && cat < in.txt | wc -l; echo done # tail.sh",
      ["node", "gen.mjs", "2", "1", "cat", "in.txt", "wc", "echo", "done"],
    ],
    ['pytest -q "tests/"\t# tab', ["pytest", "tests/"]],
    ["a.sh\nb.sh # c.sh\nd.sh", ["a.sh", "b.sh", "d.sh"]],
    ["sh 'unclosed.sh", ["sh"]],
  ])("%s", (command, words) => {
    expect(commandWords(command)).toEqual(words);
  });
});

describe("pairflow's prompt layout", () => {
  afterEach(() => {
    vi.doUnmock("../src/prompt/render.js");
    vi.resetModules();
  });

  it("a new layout re-runs every pair with a generator, and only those", async () => {
    const dir = repo();
    await acceptAll(dir);
    vi.resetModules();
    vi.doMock("../src/prompt/render.js", async (original) => ({ ...(await original<object>()), PROMPT_LAYOUT: PROMPT_LAYOUT + 1 }));
    const upgraded = await import("./helpers/state.js");
    const { plan } = await upgraded.planOf(dir);
    const p = Object.fromEntries(plan.pairs.map((x) => [x.id, x]));
    expect(ALL.filter((id) => p[id]!.action === "run")).toEqual(["a", "b", "c", "e"]);
    expect(p.a!.reasons).toEqual([{ kind: "prompt", detail: "pairflow's prompt layout changed", component: { kind: "layout", name: "" } }]);
  });
});

describe("the example tdd-stack, through its real files", () => {
  it("editing model.mjs re-runs every pair, naming model.mjs", async () => {
    const dir = copyToTempRepo(path.join(REPO, "examples/tdd-stack"));
    await acceptAll(dir);
    expect((await planned(dir)).g_test!.action).toBe("skip");
    writeFileSync(path.join(dir, "model.mjs"), readFileSync(path.join(dir, "model.mjs"), "utf8") + "\n// tuned\n");
    const p = await planned(dir);
    for (const id of ["g_test", "g_impl", "g_review"]) {
      expect(p[id]!.action).toBe("run");
      expect(p[id]!.reasons).toContainEqual({ kind: "generator", detail: "model.mjs changed", component: { kind: "generator_file", name: "model.mjs" } });
    }
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}
