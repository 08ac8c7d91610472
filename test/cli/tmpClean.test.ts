/**
 * A run leaves nothing behind in the temporary directory it was given: the prompt directories of
 * its commands, removed while the run goes on, are all gone once the process has exited, confined
 * or not, whether the run ends by itself or is interrupted.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { probeSandbox } from "../../src/processes/sandbox.js";
import { tempRepo } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { until } from "../helpers/wait.js";

const pairs = (n: number, run: string) =>
  [
    "name: t",
    "action_pairs:",
    ...Array.from(
      { length: n },
      (_, i) => `  p${i}:\n    generator: command\n    generator_config: {run: ${JSON.stringify(run)}}\n    guard: contains\n    guard_config: {text: answer}`,
    ),
  ].join("\n") + "\n";

const sandboxes = probeSandbox(process.env).available ? ["off", "on"] : ["off"];

describe("the temporary directory of a run", () => {
  it.each(sandboxes)("holds nothing of the run's once it has exited (--sandbox %s)", (sandbox) => {
    const dir = tempRepo({ "workflow.yml": pairs(30, "cat > /dev/null; echo answer") });
    const tmp = mkdtempSync(path.join(os.tmpdir(), "pairflow-tmpdir-"));
    const r = spawnSync(process.execPath, [CLI, "run", "--json", "--sandbox", sandbox === "on" ? "required" : "off"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, TMPDIR: tmp, NO_COLOR: "1" },
    });
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { pairs: { status: string }[] }).pairs.every((p) => p.status === "executed")).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("holds nothing of the run's after it is interrupted while commands run", async () => {
    const dir = tempRepo({ "workflow.yml": pairs(12, "cat > /dev/null; echo started >> started.txt; sleep 30; echo answer") });
    const tmp = mkdtempSync(path.join(os.tmpdir(), "pairflow-tmpdir-"));
    const child = spawn(process.execPath, [CLI, "run", "--sandbox", "off", "--concurrency", "4"], {
      cwd: dir,
      env: { ...process.env, TMPDIR: tmp, NO_COLOR: "1" },
      stdio: "ignore",
    });
    await until(() => readdirSync(dir).includes("started.txt"), "a command started", child);
    // Ctrl-C twice: stop now, with commands in flight.
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill("SIGINT");
    await exited;
    expect(readdirSync(tmp)).toEqual([]);
  });
});
