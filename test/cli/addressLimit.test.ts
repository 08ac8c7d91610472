/**
 * pairflow under an address-space limit (`ulimit -v`, as shared machines and some CI containers
 * set): the installed CLI starts, validates and plans, and still finds what a Node script imports.
 * WebAssembly reserves far more address space than such a limit allows, so nothing pairflow loads
 * may instantiate it on the way.
 */
import { spawnSync } from "node:child_process";
import { cpSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Reason } from "../../src/model/plan.js";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { CLI } from "./built.js";

/** 2 GiB of address space, in KiB. */
const LIMIT = 2_097_152;

function limited(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete env.PAIRFLOW_STATE_DIR;
  delete env.CI;
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const r = spawnSync("bash", ["-c", `ulimit -v ${LIMIT} && exec ${quoted}`], { cwd, env, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Linux: macOS keeps no limit of address space (its ulimit -v cannot be set).
describe.runIf(process.platform === "linux")(`the installed CLI under ulimit -v ${LIMIT}`, () => {
  it("validates and plans the example", { timeout: scaled(60_000) }, () => {
    const dir = tempRepo({});
    cpSync(path.join(REPO, "examples/tdd-stack"), path.join(dir, "tdd-stack"), { recursive: true });
    const validate = limited(["validate", "tdd-stack"], dir);
    expect(validate.stderr).not.toMatch(/Wasm|WebAssembly/);
    expect(validate).toMatchObject({ status: 0, stdout: expect.stringContaining("valid (3 pairs in 3 waves") });
    const plan = limited(["plan", "tdd-stack", "--json"], dir);
    expect(plan.stderr).not.toMatch(/Wasm|WebAssembly/);
    expect(plan.status).toBe(0);
    expect((JSON.parse(plan.stdout) as { totals: { run: number } }).totals.run).toBe(3);
  });

  it("finds the modules a Node script imports", { timeout: scaled(60_000) }, () => {
    const dir = tempRepo({
      "workflow.yml": "name: reads\nrmax: 0\ngenerator: command\naction_pairs:\n  imports:\n    generator_config: {run: node gen.mjs}\n",
      "gen.mjs":
        'import { createRequire } from "node:module";\nimport { word } from "./lib/helper.mjs";\nconst require = createRequire(import.meta.url);\nconst { other } = require("./lib/other.cjs");\nconsole.log(word, other);\n',
      "lib/helper.mjs": 'export const word = "one";\n',
      "lib/other.cjs": 'exports.other = "x";\n',
    });
    const plan = () => {
      const r = limited(["plan", "--json"], dir);
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { pairs: { id: string; action: string; reasons: Reason[] }[] }).pairs;
    };
    const run = limited(["run"], dir);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(plan().map((p) => p.action)).toEqual(["skip"]);
    writeFileSync(path.join(dir, "lib/helper.mjs"), 'export const word = "two";\n');
    expect(plan()).toMatchObject([{ id: "imports", action: "run", reasons: [{ kind: "generator", detail: "lib/helper.mjs changed" }] }]);
    writeFileSync(path.join(dir, "lib/helper.mjs"), 'export const word = "one";\n');
    writeFileSync(path.join(dir, "lib/other.cjs"), 'exports.other = "y";\n');
    expect(plan()).toMatchObject([{ id: "imports", action: "run", reasons: [{ kind: "generator", detail: "lib/other.cjs changed" }] }]);
  });
});
