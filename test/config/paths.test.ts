/**
 * The rule for every path the configuration names, over generated paths: a workflow that validates
 * names only places inside the repository after symbolic links, each a regular file where a file
 * is read or written (or nothing yet); anything else is an error at the setting, and nothing
 * outside the repository is ever shown.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../pr/repo.js";
import { copyToTempRepo, REPO } from "../helpers/fixtures.js";
import { isInside } from "../../src/config/paths.js";
import { scaled } from "../helpers/time.js";

const SEED = Number(process.env.PAIRFLOW_FUZZ_SEED ?? 13);
const WORKFLOW = readFileSync(path.join(REPO, "examples/tdd-stack/workflow.yml"), "utf8");
const SECRET = "PATH_SECRET_7731";

let outside: string;
beforeAll(() => {
  outside = mkdtempSync(path.join(tmpdir(), "pairflow-outside-"));
  writeFileSync(path.join(outside, "env.yml"), `${SECRET}: {task: x}\n`);
  writeFileSync(path.join(outside, "schema.json"), `{"title": "${SECRET}"}`);
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));

/** Paths built from parts that lead everywhere: up, out through a link, into a pipe, a directory, a file. */
const part = fc.constantFrom(
  "..",
  ".",
  "link-out",
  "fifo",
  "adir",
  "model.mjs",
  "prompts.yml",
  "env.yml",
  "schema.json",
  "new.txt",
  "*",
  "**",
  "{x,..}",
  "/etc",
  "/dev/zero",
);
const anyPath = fc.array(part, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
const field = fc.constantFrom("prompts" as const, "output" as const, "inputs" as const, "schema_file" as const);

function workflowNaming(key: "prompts" | "output" | "inputs" | "schema_file", named: string): string {
  const quoted = JSON.stringify(named);
  switch (key) {
    case "prompts":
      return `prompts: ${quoted}\n${WORKFLOW}`;
    case "output":
      return WORKFLOW.replace("output: out/test_stack.py", `output: ${quoted}`);
    case "inputs":
      return WORKFLOW.replace("output: out/test_stack.py", `output: out/test_stack.py\n    inputs: [${quoted}]`);
    case "schema_file":
      return WORKFLOW.replace(
        /guard: regex\n {4}guard_config:\n {6}pattern: "\^def test_"\n {6}flags: m/,
        `guard: json_schema\n    guard_config:\n      schema_file: ${quoted}`,
      );
  }
}

describe("paths the configuration names", () => {
  it(`a workflow that validates names only regular files inside the repository (seed ${SEED})`, { timeout: scaled(300_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(field, anyPath, async (key, named) => {
        const dir = copyToTempRepo(path.join(REPO, "examples/tdd-stack"), { "adir/a.txt": "a" });
        symlinkSync(outside, path.join(dir, "link-out"));
        spawnSync("mkfifo", [path.join(dir, "fifo")]);
        writeFileSync(path.join(dir, "workflow.yml"), workflowNaming(key, named));
        const result = await cli(["validate"], dir);
        const output = result.stdout + result.stderr;
        expect([0, 2], output).toContain(result.status);
        expect(output).not.toContain(SECRET);
        expect(output).not.toMatch(/^\s+at |TypeError|RangeError/m);
        if (result.status === 2) {
          expect(result.stderr).toMatch(/^error \S+:\d+:\d+: /m);
        } else if (key !== "inputs") {
          // Valid: what it names, as far as it exists, is inside the repository and no directory, pipe or device.
          const root = realpathSync(dir);
          let existing = path.resolve(dir, named);
          while (!existsSync(existing)) existing = path.dirname(existing);
          expect(isInside(root, realpathSync(existing)), `${key}: ${named}`).toBe(true);
          if (existing === path.resolve(dir, named)) expect(statSync(existing).isFile(), `${key}: ${named}`).toBe(true);
        }
        rmSync(dir, { recursive: true, force: true });
      }),
      { seed: SEED, numRuns: 80, endOnFailure: true },
    );
  });

  it("ordinary paths stay valid: an output in a folder not made yet, inputs that match nothing yet", async () => {
    const dir = copyToTempRepo(path.join(REPO, "examples/tdd-stack"));
    mkdirSync(path.join(dir, "docs"));
    writeFileSync(path.join(dir, "workflow.yml"), WORKFLOW.replace("output: out/test_stack.py", 'output: new/dir/test_stack.py\n    inputs: ["docs/**/*.md"]'));
    const result = await cli(["validate"], dir);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});
