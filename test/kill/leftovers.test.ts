/**
 * A plain run after a killed one does not run beside what the killed one left running: the
 * commands of the attempts it was making are stopped first, as `resume` stops them.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { running } from "../helpers/processes.js";
import { CLI } from "../helpers/package.js";
import { scaled } from "../helpers/time.js";
import { until } from "../helpers/wait.js";

/** The first call says its pid and takes ten minutes (longer than any test); every later call answers at once. */
const GENERATOR = `
import { existsSync, writeFileSync } from "node:fs";
if (!existsSync("first.pid")) {
  writeFileSync("first.pid", String(process.pid));
  await new Promise((r) => setTimeout(r, 600_000));
}
process.stdout.write("done\\n");
`;

describe.skipIf(!existsSync("/proc/self/stat"))("a run after a killed run", () => {
  it("stops the commands the killed run left running before it starts its own", { timeout: scaled(60_000) }, async () => {
    const dir = tempRepo({
      "gen.mjs": GENERATOR,
      "workflow.yml": "name: w\ngenerator: command\ngenerator_config: {run: node gen.mjs}\naction_pairs:\n  a: {guard: regex, guard_config: {pattern: done}}\n",
    });
    const killed = spawn(process.execPath, [CLI, "run"], { cwd: dir, detached: true, stdio: "ignore", env: { ...process.env, ...UNCONFINED } });
    const exited = new Promise((resolve) => killed.on("exit", resolve));
    const pidFile = path.join(dir, "first.pid");
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8") !== "", "the first call to start", killed);
    const leftover = Number(readFileSync(pidFile, "utf8"));
    // pairflow alone is killed, as a crash or an OOM kill would: its command goes on.
    process.kill(killed.pid!, "SIGKILL");
    await exited;
    expect(running(leftover)).toBe(true);

    const again = spawnSync(process.execPath, [CLI, "run"], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...UNCONFINED } });
    expect(again.status, again.stdout + again.stderr).toBe(0);
    expect(running(leftover)).toBe(false);
  });
});
