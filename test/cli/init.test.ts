import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { CLI, pairflow } from "./built.js";
import { scaled } from "../helpers/time.js";

const TARGETS = ["flow/workflow.yml", "flow/prompts.yml", ".github/workflows/pairflow.yml"];

/** Every file under dir, relative, sorted. */
function files(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

describe("pairflow init", () => {
  it("writes a starter that validates and runs offline, and a GitHub workflow that runs it", () => {
    const dir = tempRepo();
    const r = pairflow(["init", "flow"], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("wrote flow/workflow.yml\nwrote flow/prompts.yml\nwrote .github/workflows/pairflow.yml\n");
    expect(files(dir)).toEqual(TARGETS.slice().sort());

    const github = readFileSync(path.join(dir, ".github/workflows/pairflow.yml"), "utf8");
    expect(github).toMatch(/^ {10}workflow: flow$/m);
    expect(github).toMatch(/^ {6}- "flow\/\*\*"$/m);

    expect(pairflow(["validate", "flow"], { cwd: dir })).toMatchObject({ status: 0, stderr: "" });
    const run = pairflow(["run", "flow"], { cwd: dir });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^2 executed, 0 reused, 0 failed, 0 blocked/m);
    // review's prompt holds draft's accepted artifact, which is draft's own prompt (the generator is cat).
    const draft = readFileSync(path.join(dir, "flow/out/draft.md"), "utf8");
    expect(readFileSync(path.join(dir, "flow/out/review.md"), "utf8")).toContain("## draft\n\n```\n" + draft);
  });

  it("points $schema at the schemas the package ships, installed in the repository", () => {
    // The published package's layout: dist/, schemas/ and package.json under node_modules/pairflow.
    const dir = tempRepo();
    const pkg = path.join(dir, "node_modules/pairflow");
    mkdirSync(path.join(pkg, "dist"), { recursive: true });
    // The CLI and the chunks it loads on demand, as package.json's `files` publishes them.
    for (const file of readdirSync(path.dirname(CLI)).filter((f) => /^cli(-.*)?\.js$/.test(f)))
      cpSync(path.join(path.dirname(CLI), file), path.join(pkg, "dist", file));
    cpSync(path.join(REPO, "schemas"), path.join(pkg, "schemas"), { recursive: true });
    cpSync(path.join(REPO, "package.json"), path.join(pkg, "package.json"));
    const r = pairflow(["init", "pairflow/flow"], { cwd: dir, cli: path.join(pkg, "dist/cli.js") });
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain("note:");
    const pairs: [string, string][] = [
      ["workflow.yml", "workflow.schema.json"],
      ["prompts.yml", "prompts.schema.json"],
    ];
    for (const [file, schema] of pairs) {
      const first = readFileSync(path.join(dir, "pairflow/flow", file), "utf8").split("\n")[0]!;
      expect(first).toBe(`# yaml-language-server: $schema=../../node_modules/pairflow/schemas/${schema}`);
      const target = path.resolve(dir, "pairflow/flow", first.split("$schema=")[1]!);
      expect(readFileSync(target, "utf8")).toBe(readFileSync(path.join(REPO, "schemas", schema), "utf8"));
    }
  });

  it("says where $schema points when pairflow is not installed in the repository", () => {
    const dir = tempRepo();
    const r = pairflow(["init"], { cwd: dir });
    expect(r.status).toBe(0);
    expect(readFileSync(path.join(dir, "workflow.yml"), "utf8")).toMatch(
      /^# yaml-language-server: \$schema=node_modules\/pairflow\/schemas\/workflow\.schema\.json$/m,
    );
    expect(r.stdout).toContain("npm install --save-dev pairflow");
    expect(readFileSync(path.join(dir, ".github/workflows/pairflow.yml"), "utf8")).toMatch(/^ {10}workflow: \.$/m);
  });

  it("never overwrites: with any target present it exits 2 naming it and writes nothing at all", { timeout: scaled(90_000) }, () => {
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
