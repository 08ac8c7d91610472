/**
 * Provenance on real files: an output is pairflow's (it matches an accepted artifact pairflow
 * generated), a person's (it differs from every record pairflow holds: kept, never overwritten),
 * or unknown (no record at all: the pair runs). Hand edits never become the artifact of a reference.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLock } from "../src/lockfile/lockfile.js";
import type { RunReport } from "../src/model/run.js";
import { copyToTempRepo, REPO, tempRepo, writeFiles } from "./helpers/fixtures.js";
import { planOf, runOf } from "./helpers/state.js";
import { CLI } from "./helpers/package.js";
import { scaled } from "./helpers/time.js";
import { until } from "./helpers/wait.js";

const EXAMPLE = path.join(REPO, "examples/tdd-stack");
const executed = (report: RunReport) => report.pairs.filter((p) => p.status === "executed").map((p) => p.id);
const toRun = async (dir: string) => (await planOf(dir, { cwd: dir })).plan.pairs.filter((p) => p.action === "run").map((p) => p.id);

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(file, text.replace(from, to));
}

describe("provenance", () => {
  it("without a lock file or store, a prompt change after a run re-runs that pair: the outputs are pairflow's, not a person's", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    await runOf(dir, { cwd: dir });
    rmSync(path.join(dir, "workflow.lock.json"));
    rmSync(path.join(dir, ".pairflow"), { recursive: true });
    edit(path.join(dir, "prompts.yml"), "task: Implement the Stack class.", "task: Implement the Stack class with a list.");
    const { plan } = await planOf(dir, { cwd: dir });
    // Nothing records any of the three outputs: each is unknown, so each runs and the plan says so.
    expect(plan.pairs.map((p) => p.action)).toEqual(["run", "run", "run"]);
    expect(plan.byId.get("g_test")!.reasons).toEqual([
      {
        kind: "new",
        detail:
          "out/test_stack.py exists but pairflow has no record of producing it; running replaces it (to keep it instead, commit the lock file that records it)",
      },
    ]);
    const report = await runOf(dir, { cwd: dir });
    expect(executed(report)).toEqual(["g_test", "g_impl", "g_review"]);
    expect(Object.values(readLock(path.join(dir, "workflow.lock.json"))!.pairs).map((e) => e.source)).toEqual(["generated", "generated", "generated"]);
  });

  it("with the store but no lock file, outputs are still known as pairflow's: only the changed pair and its dependents run", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    await runOf(dir, { cwd: dir });
    rmSync(path.join(dir, "workflow.lock.json"));
    edit(path.join(dir, "prompts.yml"), "task: Implement the Stack class.", "task: Implement the Stack class with a list.");
    expect(await toRun(dir)).toEqual(["g_impl", "g_review"]);
    const report = await runOf(dir, { cwd: dir });
    expect(executed(report)).toEqual(["g_impl", "g_review"]);
    expect(readLock(path.join(dir, "workflow.lock.json"))!.pairs.g_test!.source).toBe("generated");
  });

  it("a CRLF copy of every output (a Windows checkout) plans as unchanged", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    await runOf(dir, { cwd: dir });
    for (const file of ["out/test_stack.py", "out/stack.py", "out/review.md"]) {
      const f = path.join(dir, file);
      writeFileSync(f, readFileSync(f, "utf8").replace(/\n/g, "\r\n"));
    }
    expect(await toRun(dir)).toEqual([]);
    const report = await runOf(dir, { cwd: dir });
    expect(executed(report)).toEqual([]);
    expect(readFileSync(path.join(dir, "out/stack.py"), "utf8")).toContain("\r\n"); // left as checked out
  });

  it("run; hand-edit; run; delete the output; run: the file is generated again, not the hand edit", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    await runOf(dir, { cwd: dir });
    const generated = readFileSync(path.join(dir, "out/test_stack.py"), "utf8");
    const impl = readFileSync(path.join(dir, "out/stack.py"), "utf8");
    writeFileSync(path.join(dir, "out/test_stack.py"), "def test_by_hand():\n    pass\n");
    const second = await runOf(dir, { cwd: dir });
    expect(executed(second)).toEqual(["g_impl", "g_review"]);
    rmSync(path.join(dir, "out/test_stack.py"));
    // g_test's generated artifact comes back, and with it the references of the first run, whose
    // artifacts the store still holds: nothing needs executing, every file is as the first run left it.
    expect(await toRun(dir)).toEqual([]);
    const third = await runOf(dir, { cwd: dir });
    expect(executed(third)).toEqual([]);
    expect(readFileSync(path.join(dir, "out/test_stack.py"), "utf8")).toBe(generated);
    expect(readFileSync(path.join(dir, "out/stack.py"), "utf8")).toBe(impl);
    expect(readLock(path.join(dir, "workflow.lock.json"))!.pairs.g_test!.source).toBe("generated");
  });

  it("two workflows with identically named pairs never receive each other's hand edits", async () => {
    const dir = tempRepo();
    for (const flow of ["flows/a", "flows/b"]) writeFiles(path.join(dir, flow), readDir(EXAMPLE));
    const a = path.join(dir, "flows/a");
    const b = path.join(dir, "flows/b");
    await runOf(a, { cwd: dir });
    writeFileSync(path.join(a, "out/test_stack.py"), "def test_by_hand():\n    pass\n");
    await runOf(a, { cwd: dir });
    const report = await runOf(b, { cwd: dir });
    // b reuses what pairflow generated for the same configuration, never a's hand edit.
    expect(report.pairs.find((p) => p.id === "g_test")!.status).toBe("reused");
    expect(readFileSync(path.join(b, "out/test_stack.py"), "utf8")).not.toContain("test_by_hand");
    expect(readLock(path.join(b, "workflow.lock.json"))!.pairs.g_test!.source).toBe("generated");
  });

  it("a SIGKILL at any moment of a run never turns generated output into a person's", { timeout: scaled(60_000) }, async () => {
    const dir = copyToTempRepo(EXAMPLE);
    // Kill the CLI at spread-out moments while it executes and accepts the three pairs: once its
    // trace has so many events, whatever the machine's speed. A run of the example writes 17: run
    // start, then per pair its start, attempt start, process, attempt end (accepted: the output,
    // store and lock entry are written next) and pair end, then run end.
    const traced = () => {
      const runs = path.join(dir, ".pairflow/runs");
      const trace = existsSync(runs) && readdirSync(runs).length > 0 ? path.join(runs, readdirSync(runs)[0]!, "trace.jsonl") : "";
      return trace && existsSync(trace) ? readFileSync(trace, "utf8").split("\n").length - 1 : 0;
    };
    for (const events of [1, 4, 5, 6, 10, 11, 15, 16]) {
      rmSync(path.join(dir, "out"), { recursive: true, force: true });
      rmSync(path.join(dir, "workflow.lock.json"), { force: true });
      rmSync(path.join(dir, ".pairflow"), { recursive: true, force: true });
      const child = spawn(process.execPath, [CLI, "run", "--json"], { cwd: dir, stdio: "ignore" });
      const exited = new Promise((r) => child.once("exit", r));
      await until(() => traced() >= events, `${events} events in the trace`, child);
      child.kill("SIGKILL");
      await exited;
      const { plan } = await planOf(dir, { cwd: dir });
      expect(
        plan.pairs.filter((p) => p.artifact?.edited).map((p) => p.id),
        `killed after ${events} events`,
      ).toEqual([]);
      expect(
        plan.pairs.flatMap((p) => p.reasons).filter((r) => r.detail.includes("no record")),
        `killed after ${events} events`,
      ).toEqual([]);
      const lock = existsSync(path.join(dir, "workflow.lock.json")) ? readLock(path.join(dir, "workflow.lock.json"))! : { pairs: {} };
      expect(Object.values(lock.pairs).filter((e) => e.source === "human")).toEqual([]);
    }
  });
});

function readDir(dir: string): Record<string, string> {
  return Object.fromEntries(["workflow.yml", "prompts.yml", "model.mjs"].map((f) => [f, readFileSync(path.join(dir, f), "utf8")]));
}

describe("what a killed write leaves behind", () => {
  it("is removed by the next run: temporary files of a writer that no longer runs, never another's", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    await runOf(dir, { cwd: dir });
    const gone = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
    const stale = path.join(dir, `.workflow.lock.json.${gone}.0a1b2c3d.tmp`);
    const staleOutput = path.join(dir, "out", `.stack.py.${gone}.0a1b2c3d.tmp`);
    const live = path.join(dir, `.workflow.lock.json.${process.pid}.0a1b2c3d.tmp`);
    for (const file of [stale, staleOutput, live]) writeFileSync(file, "half");
    await runOf(dir, { cwd: dir });
    expect([stale, staleOutput, live].map((f) => existsSync(f))).toEqual([false, false, true]);
  });
});
