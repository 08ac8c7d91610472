/**
 * `pairflow explain` through the installed CLI: after a run, an unchanged pair is skipped with
 * every component as accepted; an edited prompt, and an edited helper a generator's script
 * imports, are each named as the component that changed, with the plan's decision to run; a
 * foreach instance is explained by its own id; an unknown id is a usage error with a suggestion;
 * and --json is the versioned object schemas/explain.schema.json describes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { Explanation } from "../../src/model/explain.js";
import { COMPONENT_KINDS } from "../../src/model/component.js";
import { REASON_KINDS } from "../../src/model/plan.js";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { pairflow } from "./built.js";

const WORKFLOW = `name: explained
rmax: 0
generator: command
generator_config: {run: node gen.mjs}
action_pairs:
  outline:
    output: out/outline.md
    guard: contains
    guard_config: {text: one}
  draft:
    requires: [outline]
    output: out/draft.md
  page:
    foreach: {files: docs/*.md}
    output: out/{stem}.txt
    generator_config: {run: "node gen.mjs {file}"}
`;

const FILES = {
  "workflow.yml": WORKFLOW,
  "prompts.yml": "outline: {task: Outline it.}\ndraft: {task: Draft it.}\npage: {task: Translate the page.}\n",
  "gen.mjs": 'import { word } from "./lib/helper.mjs";\nconsole.log(`${process.env.PAIRFLOW_PAIR} ${word}`);\n',
  "lib/helper.mjs": 'export const word = "one";\n',
  "docs/a.md": "A.\n",
};

const schema = JSON.parse(readFileSync(path.join(REPO, "schemas/explain.schema.json"), "utf8")) as {
  $defs: { componentKind: { enum: string[] }; reason: { properties: { kind: { enum: string[] } } } };
};
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);

function explainJson(dir: string, pair: string): Explanation {
  const r = pairflow(["explain", pair, "--json"], { cwd: dir });
  expect(r.status, r.stderr).toBe(0);
  const json = JSON.parse(r.stdout) as Explanation;
  expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
  return json;
}

const changed = (e: Explanation) => e.components.filter((c) => c.status !== "same").map((c) => [c.kind, c.name, c.status]);

describe("pairflow explain", () => {
  let dir: string;
  beforeAll(() => {
    dir = tempRepo(FILES);
    const run = pairflow(["run"], { cwd: dir });
    expect(run.status, run.stderr).toBe(0);
  }, scaled(60_000));

  it("says an unchanged pair is skipped, every component as accepted, its artifact from the lock file", { timeout: scaled(60_000) }, () => {
    const e = explainJson(dir, "draft");
    expect(e).toMatchObject({ version: 1, pair: "draft", workflow: { name: "explained", path: "workflow.yml" }, decision: { action: "skip", reasons: [] } });
    expect(e.configRef).toBe(e.accepted!.configRef);
    expect(changed(e)).toEqual([]);
    expect(e.components.map((c) => `${c.kind} ${c.name}`)).toEqual(
      expect.arrayContaining(["prompt task", "generator_file gen.mjs", "generator_file lib/helper.mjs", "upstream outline", "artifact outline"]),
    );
    expect(e.artifact).toEqual({ from: "lock", content: "output", contentHash: e.accepted!.contentHash });
    expect(e.requestKey).toMatch(/^[0-9a-f]{64}$/);
    expect(e.prompt).toBe("pairflow prompt draft");
    expect(pairflow(["prompt", "draft"], { cwd: dir }).status).toBe(0);

    const text = pairflow(["explain", "draft"], { cwd: dir });
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^draft {2}skip\n/);
    expect(text.stdout).toContain("none changed");
    expect(text.stdout).toContain("prompt     pairflow prompt draft\n");
  });

  it("names an edited prompt as the component that changed, and the decision is to run", { timeout: scaled(60_000) }, () => {
    const edited = tempRepo({ ...FILES });
    expect(pairflow(["run"], { cwd: edited }).status).toBe(0);
    writeFileSync(path.join(edited, "prompts.yml"), FILES["prompts.yml"].replace("Draft it.", "Draft it well."));
    const e = explainJson(edited, "draft");
    expect(e.decision).toEqual({ action: "run", reasons: [{ kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt", name: "task" } }] });
    expect(changed(e)).toEqual([["prompt", "task", "changed"]]);
    expect(e.artifact.from).toBe("generator");
    // The plan says the same.
    const plan = JSON.parse(pairflow(["plan", "--json"], { cwd: edited }).stdout) as { pairs: { id: string; action: string; reasons: unknown[] }[] };
    expect(plan.pairs.find((p) => p.id === "draft")).toMatchObject({ action: e.decision.action, reasons: e.decision.reasons });
    const text = pairflow(["explain", "draft", "."], { cwd: edited }).stdout;
    expect(text).toMatch(/^draft {2}run\n {2}prompt: prompt\.task changed\n/);
    expect(text).toMatch(/\n {2}prompt +task +[0-9a-f]{12} {2}[0-9a-f]{12} {2}changed\n/);
    expect(text).toContain("prompt     pairflow prompt draft .\n");
  });

  it("names a helper file the generator's script imports, for each pair whose command reaches it", { timeout: scaled(60_000) }, () => {
    const edited = tempRepo({ ...FILES });
    expect(pairflow(["run"], { cwd: edited }).status).toBe(0);
    writeFileSync(path.join(edited, "lib/helper.mjs"), 'export const word = "two";\n');
    const outline = explainJson(edited, "outline");
    expect(outline.decision).toEqual({
      action: "run",
      reasons: [{ kind: "generator", detail: "lib/helper.mjs changed", component: { kind: "generator_file", name: "lib/helper.mjs" } }],
    });
    expect(changed(outline)).toEqual([["generator_file", "lib/helper.mjs", "changed"]]);
    // Its dependent runs after it: its own part changed too, its dependency's are not known yet.
    const draft = explainJson(edited, "draft");
    expect(draft.decision.action).toBe("run");
    expect(draft.configRef).toBeNull();
    expect(draft.requestKey).toBeNull();
    expect(changed(draft)).toEqual([
      ["artifact", "outline", "unknown"],
      ["generator_file", "lib/helper.mjs", "changed"],
      ["upstream", "outline", "unknown"],
    ]);
    expect(pairflow(["explain", "draft"], { cwd: edited }).stdout).toContain("upstream: outline will run");
  });

  it("explains a foreach instance by its own id, and suggests one for an unknown id", { timeout: scaled(60_000) }, () => {
    const e = explainJson(dir, "page[docs/a.md]");
    expect(e).toMatchObject({ pair: "page[docs/a.md]", template: "page", decision: { action: "skip" } });
    expect(e.prompt).toBe("pairflow prompt 'page[docs/a.md]'");
    const wrong = pairflow(["explain", "page[docs/b.md]"], { cwd: dir });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('no pair "page[docs/b.md]" in explained; did you mean "page[docs/a.md]"?');
    const typo = pairflow(["explain", "drafft", "--json"], { cwd: dir });
    expect([typo.status, typo.stdout]).toEqual([2, ""]);
    expect(typo.stderr).toContain('did you mean "draft"?');
  });

  it("its schema lists every reason kind and every component kind", () => {
    expect(schema.$defs.reason.properties.kind.enum).toEqual([...REASON_KINDS]);
    expect(schema.$defs.componentKind.enum).toEqual([...COMPONENT_KINDS]);
  });
});
