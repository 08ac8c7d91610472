// What a foreach pair expands into, what its instances' references hold, and the errors and
// warnings a person gets for a foreach written wrong, each at its line.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { loadWorkflow } from "../../src/workspace/load.js";
import { ConfigError, type ConfigIssue } from "../../src/model/errors.js";
import { planOf, runOf } from "../helpers/state.js";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";

const TEMPLATE = `name: t
generator: command
action_pairs:
  translate:
    description: "{file} in French"
    foreach:
      files: docs/**/*.md
    output: out/{dir}/{stem}.fr{ext}
    inputs: ["glossary/{stem}.txt"]
    generator_config:
      run: cat {file}
      env:
        PAGE: "{name}"
    guard: contains
    guard_config:
      text: "{stem}"
`;
const PROMPTS = `translate:
  task: Translate {file} ({{file}} stays as written, {unknown} too).
`;

function pages(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "docs/intro.md": "# intro\n",
    "docs/guide/setup.md": "# setup\n",
    "glossary/intro.txt": "intro\n",
    "glossary/setup.txt": "setup\n",
    ...extra,
  };
}

function issuesOf(dir: string): ConfigIssue[] {
  try {
    loadWorkflow(dir, dir);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  throw new Error("expected the workflow to be rejected");
}

/** The workflow text with one pair's block replaced. */
function withPairs(pairs: string): string {
  return `name: t\ngenerator: command\naction_pairs:\n${pairs}`;
}

describe("foreach expansion", () => {
  it("makes one instance per matching file, by id, with every placeholder replaced and the file among its inputs", () => {
    const dir = tempRepo({ "workflow.yml": TEMPLATE, "prompts.yml": PROMPTS, ...pages() });
    const { workflow, warnings } = loadWorkflow(dir, dir);
    expect(warnings).toEqual([]);
    expect([...workflow.pairs.keys()]).toEqual(["translate[docs/guide/setup.md]", "translate[docs/intro.md]"]);
    const setup = workflow.pairs.get("translate[docs/guide/setup.md]")!;
    expect(setup).toMatchObject({
      template: "translate",
      item: "docs/guide/setup.md",
      description: "docs/guide/setup.md in French",
      output: "out/docs/guide/setup.fr.md",
      inputs: ["docs/guide/setup.md", "glossary/setup.txt"],
      generatorConfig: { run: "cat docs/guide/setup.md", env: { PAGE: "setup.md" } },
      guardConfig: { text: "setup" },
      prompt: { task: "Translate docs/guide/setup.md ({file} stays as written, {unknown} too)." },
    });
  });

  it("gives an instance the configRef of the same pair written out by hand, so its reference is the template's with the item filled in", async () => {
    const dir = tempRepo({ "workflow.yml": TEMPLATE, "prompts.yml": PROMPTS, ...pages() });
    const byHand = tempRepo({
      "workflow.yml": withPairs(`  intro:
    description: docs/intro.md in French
    output: out/docs/intro.fr.md
    inputs: [docs/intro.md, glossary/intro.txt]
    generator_config:
      run: cat docs/intro.md
      env:
        PAGE: intro.md
    guard: contains
    guard_config:
      text: intro
`),
      "prompts.yml": "intro:\n  task: Translate docs/intro.md ({file} stays as written, {unknown} too).\n",
      ...pages(),
    });
    const instance = (await planOf(dir, { cwd: dir })).plan.byId.get("translate[docs/intro.md]")!;
    const ordinary = (await planOf(byHand, { cwd: byHand })).plan.byId.get("intro")!;
    expect(instance.configRef).toBe(ordinary.configRef);
    expect(instance.components).toEqual(ordinary.components);
    expect(Object.keys(instance.components!)).toContain("input:docs/intro.md");
  });

  it("changes only the edited file's instance's configRef, whichever file is edited", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++) files[`docs/p${i}.md`] = `# ${i}\n`;
    const dir = tempRepo({
      "workflow.yml": withPairs(`  t:
    foreach:
      files: "docs/*.md"
    output: out/{stem}.txt
    generator_config:
      run: cat {file}
`),
      ...files,
    });
    const refs = async () => new Map((await planOf(dir, { cwd: dir })).plan.pairs.map((p) => [p.id, p.configRef]));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 7 }), fc.string({ minLength: 1 }), async (i, text) => {
        const before = await refs();
        writeFiles(dir, { [`docs/p${i}.md`]: readFileSync(path.join(dir, `docs/p${i}.md`), "utf8") + text + "\n" });
        const after = await refs();
        const changed = [...after].filter(([id, ref]) => before.get(id) !== ref).map(([id]) => id);
        expect(changed).toEqual([`t[docs/p${i}.md]`]);
      }),
      { numRuns: 10 },
    );
  });

  it("expands a list of values, with {value} and {item}", () => {
    const dir = tempRepo({
      "workflow.yml": withPairs(`  summary:
    foreach:
      values: [fr, de]
    output: out/summary.{value}.md
    generator_config:
      run: echo {item}
  all:
    requires: [summary]
    generator_config:
      run: echo all
`),
    });
    const { workflow } = loadWorkflow(dir, dir);
    expect([...workflow.pairs.keys()]).toEqual(["summary[fr]", "summary[de]", "all"]);
    expect(workflow.pairs.get("summary[de]")).toMatchObject({ output: "out/summary.de.md", inputs: [], generatorConfig: { run: "echo de" } });
    expect(workflow.pairs.get("all")!.requires).toEqual(["summary[fr]", "summary[de]"]);
  });

  it("resolves pair[{item}] to the instance with the same item, and a foreach pair's id to all its instances", () => {
    const dir = tempRepo({
      "workflow.yml": withPairs(`  a:
    foreach: { files: "docs/*.md" }
    output: out/a/{stem}
    generator_config: { run: "cat {file}" }
  b:
    foreach: { files: "docs/*.md" }
    requires: ["a[{item}]", c]
    output: out/b/{stem}
    generator_config: { run: "cat {file}" }
  c:
    generator_config: { run: "echo c" }
  d:
    requires: [b, "a[docs/x.md]"]
    generator_config: { run: "echo d" }
`),
      "docs/x.md": "x\n",
      "docs/y.md": "y\n",
    });
    const { workflow, graph } = loadWorkflow(dir, dir);
    expect(workflow.pairs.get("b[docs/y.md]")!.requires).toEqual(["a[docs/y.md]", "c"]);
    expect(workflow.pairs.get("d")!.requires).toEqual(["b[docs/x.md]", "b[docs/y.md]", "a[docs/x.md]"]);
    expect(graph.waves).toEqual([["a[docs/x.md]", "a[docs/y.md]", "c"], ["b[docs/x.md]", "b[docs/y.md]"], ["d"]]);
  });

  it("never takes a file pairflow writes as an item: its own outputs, other pairs' outputs, the lock file", async () => {
    const dir = tempRepo({
      "workflow.yml": withPairs(`  fr:
    foreach: { files: ["docs/*", "*.json"] }
    output: docs/{stem}.fr.md
    generator_config: { run: "cat {file}" }
  other:
    output: docs/other.md
    generator_config: { run: "echo other" }
`),
      "docs/a.md": "a\n",
      "data.json": "{}\n",
    });
    const ids = async () => [...(await planOf(dir, { cwd: dir })).plan.byId.keys()].sort();
    const before = await ids();
    expect(before).toEqual(["fr[data.json]", "fr[docs/a.md]", "other"]);
    const report = await runOf(dir, { cwd: dir, env: {} });
    expect(report.status).toBe("success");
    expect(existsSync(path.join(dir, "docs/a.fr.md"))).toBe(true);
    expect(existsSync(path.join(dir, "workflow.lock.json"))).toBe(true);
    expect(await ids()).toEqual(before);
    expect((await planOf(dir, { cwd: dir })).plan.pairs.filter((p) => p.action === "run")).toEqual([]);
  });

  it("puts a file into a command as one shell word, whatever its name holds", async () => {
    const page = "docs/it's $(touch pwned) `touch pwned2`; a b.md";
    const dir = tempRepo({
      "workflow.yml": withPairs(`  t:
    foreach: { files: "docs/*.md" }
    output: out/{stem}.txt
    generator_config: { run: "cat {file}" }
`),
      [page]: "the page\n",
    });
    const report = await runOf(dir, { cwd: dir, env: {} });
    expect(report.status).toBe("success");
    expect(readFileSync(path.join(dir, "out/it's $(touch pwned) `touch pwned2`; a b.txt"), "utf8")).toBe("the page\n");
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(existsSync(path.join(dir, "pwned2"))).toBe(false);
    // The file is its instance's input, glob characters and all.
    const { plan } = await planOf(dir, { cwd: dir });
    expect(plan.pairs.map((p) => [p.id, p.action])).toEqual([[`t[${page}]`, "skip"]]);
  });

  it("warns, and does not fail, when a glob matches nothing or a list is empty", () => {
    const dir = tempRepo({
      "workflow.yml": withPairs(`  t:
    foreach:
      files: "docs/*.md"
    output: out/{stem}.txt
    generator_config: { run: "cat {file}" }
  v:
    foreach:
      values: []
    output: out/{value}.txt
    generator_config: { run: "echo {value}" }
  index:
    requires: [t, v]
    generator_config: { run: "echo index" }
`),
    });
    const { workflow, warnings } = loadWorkflow(dir, dir);
    expect([...workflow.pairs.keys()]).toEqual(["index"]);
    expect(workflow.pairs.get("index")!.requires).toEqual([]);
    expect(warnings.map((w) => [w.line, w.severity, w.message])).toEqual([
      [6, "warning", 'matches no files, so pair "t" has no instances'],
      [11, "warning", 'lists no values, so pair "v" has no instances'],
    ]);
  });

  const cases: { name: string; pairs: string; line: number; message: RegExp }[] = [
    {
      name: "pair[{item}] in a pair without foreach",
      pairs: `  a:\n    foreach: { values: [x] }\n    output: "{value}"\n    generator_config: { run: "echo" }\n  b:\n    requires:\n      - "a[{item}]"\n    generator_config: { run: "echo" }\n`,
      line: 10,
      message: /names the instance with this pair's item, and this pair has no foreach; require "a"/,
    },
    {
      name: "pair[{item}] naming a pair without foreach",
      pairs: `  a:\n    generator_config: { run: "echo" }\n  b:\n    foreach: { values: [x, y, z] }\n    requires: ["a[{item}]"]\n    generator_config: { run: "echo" }\n`,
      line: 8,
      message: /"a" is not a foreach pair/,
    },
    {
      name: "pair[{item}] with no instance for the item",
      pairs: `  a:\n    foreach: { values: [x] }\n    generator_config: { run: "echo" }\n  b:\n    foreach: { values: [x, y] }\n    requires: ["a[{item}]"]\n    generator_config: { run: "echo" }\n`,
      line: 9,
      message: /"a" has no instance for "y", which "b" has/,
    },
    {
      name: "neither files nor values",
      pairs: `  a:\n    foreach: {}\n    output: "{item}"\n    generator_config: { run: "echo" }\n`,
      line: 5,
      message: /give foreach "files" .*"values" .*or both/,
    },
    {
      name: "a glob reaching outside the repository",
      pairs: `  a:\n    foreach:\n      files: ["../*.md"]\n    output: "{stem}"\n    generator_config: { run: "echo" }\n`,
      line: 6,
      message: /"..\/\*.md" reaches outside the repository/,
    },
    {
      name: "{value} over files",
      pairs: `  a:\n    foreach: { files: "*.md" }\n    output: out/{value}.md\n    generator_config: { run: "echo" }\n`,
      line: 6,
      message: /\{value\} is the value of a foreach over values/,
    },
    {
      name: "{stem} over values",
      pairs: `  a:\n    foreach: { values: [x] }\n    output: out/{value}.md\n    generator_config: { run: "echo {stem}" }\n`,
      line: 7,
      message: /\{stem\} is a part of a file's path, and this pair's foreach is over values/,
    },
    {
      name: "a placeholder inside quotes in a command",
      pairs: `  a:\n    foreach: { values: [x] }\n    output: out/{value}.md\n    generator_config:\n      run: echo "{value}"\n`,
      line: 8,
      message: /inside quotes in a shell command/,
    },
    {
      name: "an output every instance shares",
      pairs: `  a:\n    foreach: { values: [x, y] }\n    output: out/all.md\n    generator_config: { run: "echo" }\n`,
      line: 6,
      message: /every instance would write "out\/all.md"; put a placeholder in it/,
    },
    {
      name: "a foreach pair requiring its own item",
      pairs: `  a:\n    foreach: { values: [x, y] }\n    requires: ["a[{item}]"]\n    generator_config: { run: "echo" }\n`,
      line: 6,
      message: /"a\[\{item\}\]" is this pair itself/,
    },
    {
      name: "instances that would write one file",
      pairs: `  a:\n    foreach: { files: "docs/**" }\n    output: out/{dir}.md\n    generator_config: { run: "echo" }\n`,
      line: 6,
      message: /"out\/\{dir\}.md" gives "docs\/a.md" and "docs\/b.md" the same output, out\/docs.md; use placeholders that tell them apart/,
    },
    {
      name: "an unknown pair in a template's requires",
      pairs: `  a:\n    foreach: { values: [x, y] }\n    output: "{value}"\n    requires: [nope]\n    generator_config: { run: "echo" }\n`,
      line: 7,
      message: /requires "nope", which is not a pair of this workflow/,
    },
  ];
  for (const c of cases) {
    it(`rejects ${c.name}, at its line`, () => {
      const dir = tempRepo({ "workflow.yml": withPairs(c.pairs), "a.md": "a\n", "docs/a.md": "a\n", "docs/b.md": "b\n" });
      const issues = issuesOf(dir);
      expect(issues.map((i) => `${i.file}:${i.line}: ${i.message}`).join("\n")).toMatch(c.message);
      // Once, however many instances the pair has.
      const found = issues.filter((i) => c.message.test(i.message));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ file: "workflow.yml", line: c.line });
    });
  }
});
