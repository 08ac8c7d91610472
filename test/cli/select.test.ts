/** --only in every spelling, with the path after it, and run --dry-run as the plan of that run. */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { copySources, copyToTempRepo, REPO, tempRepo } from "../helpers/fixtures.js";
import { pairflow } from "./built.js";
import { scaled } from "../helpers/time.js";

const EXAMPLE = path.join(REPO, "examples/tdd-stack");

describe("--only", () => {
  it("leaves the path after it to the command, comma-separated or repeated alike", { timeout: scaled(90_000) }, () => {
    const cwd = tempRepo();
    copySources(EXAMPLE, path.join(cwd, "flow"));
    expect(pairflow(["run", "flow"], { cwd }).status).toBe(0);
    const plans = [
      ["plan", "--only", "g_test,g_impl", "flow", "--json"],
      ["plan", "--only", "g_test", "--only", "g_impl", "flow", "--json"],
      ["plan", "flow", "--only=g_test, g_impl", "--json"],
    ].map((args) => pairflow(args, { cwd }));
    for (const p of plans) expect(p).toMatchObject({ status: 0, stderr: "" });
    expect(new Set(plans.map((p) => p.stdout)).size).toBe(1);
    const json = JSON.parse(plans[0]!.stdout);
    expect(json.pairs.filter((p: { action: string }) => p.action === "run").map((p: { id: string }) => p.id)).toEqual(["g_test", "g_impl"]);

    const run = pairflow(["run", "--only", "g_impl", "flow"], { cwd });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^start +g_impl/m);
    expect(run.stdout).not.toMatch(/^start +g_(test|review)/m);
  });

  it("exits 2 on an empty list", () => {
    const r = pairflow(["plan", "--only", ",", "examples/tdd-stack"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("expected one or more pair ids");
  });
});

describe("run --dry-run", () => {
  it("prints exactly what plan prints with the same flags, and executes nothing", { timeout: scaled(90_000) }, () => {
    const dir = copyToTempRepo(EXAMPLE);
    const flagSets = [[], ["--from", "g_impl", "--json"], ["--only", "g_test,g_impl"]];
    for (const flags of flagSets) {
      const plan = pairflow(["plan", ...flags], { cwd: dir });
      const dry = pairflow(["run", "--dry-run", ...flags], { cwd: dir });
      expect(dry).toEqual(plan);
    }
    expect(existsSync(path.join(dir, "workflow.lock.json"))).toBe(false);
    expect(existsSync(path.join(dir, "out"))).toBe(false);
    expect(existsSync(path.join(dir, ".pairflow/runs")) ? readdirSync(path.join(dir, ".pairflow/runs")) : []).toEqual([]);
  });
});
