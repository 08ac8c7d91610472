/**
 * Where pairflow may make cgroups (root on cgroup v1, delegated v2), each command runs in one of
 * its own. Cgroups are used again by later commands once free: a command must never be told of a
 * limit an earlier one hit, nor lose a process to an earlier one's leftovers, and whatever a command
 * left hiding is killed when it ends.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCommand } from "../../src/processes/children.js";
import { DEFAULT_LIMITS } from "../../src/processes/limits.js";
import type { CommandLimits } from "../../src/model/ports.js";
import { tempRepo } from "../helpers/fixtures.js";
import { until } from "../helpers/wait.js";

const v1 = existsSync("/sys/fs/cgroup/pids/cgroup.procs") && existsSync("/sys/fs/cgroup/memory/cgroup.procs");
const canMake = process.platform === "linux" && process.getuid?.() === 0 && v1 && process.env.PAIRFLOW_CGROUPS !== "off";

function command(dir: string, run: string, limits: CommandLimits) {
  return runCommand({
    command: run,
    cwd: dir,
    env: { PATH: process.env.PATH },
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    collectStdout: true,
    tailBytes: 1024,
    limits,
  });
}

/** The cgroups this process made for commands (v1: under the pids controller). */
function commandCgroups(): string[] {
  const own = readFileSync("/proc/self/cgroup", "utf8")
    .split("\n")
    .map((l) => l.split(":"))
    .find((l) => (l[1] ?? "").split(",").includes("pids"))?.[2];
  const base = path.join("/sys/fs/cgroup/pids", own ?? "/");
  const run = readdirSync(base).find((name) => name.startsWith(`pairflow-${process.pid}-`));
  return run === undefined
    ? []
    : readdirSync(path.join(base, run), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
}

const alive = (pid: number) => {
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
};

describe.skipIf(!canMake)("cgroups used again by later commands", () => {
  const limits: CommandLimits = { ...DEFAULT_LIMITS, processes: 16 };

  it("hold the command from its first instruction: it is born in its own cgroup of each controller", { timeout: 60_000 }, async () => {
    const dir = tempRepo({});
    const own = (await command(dir, "cat /proc/self/cgroup", limits)).stdout.toString();
    for (const controller of ["pids", "memory"]) {
      const line = own.split("\n").find((l) => (l.split(":")[1] ?? "").split(",").includes(controller));
      expect(line).toMatch(new RegExp(`/pairflow-${process.pid}-[0-9a-f]+/c\\d+$`));
    }
  });

  it("never tell a command of a limit an earlier one hit, and still tell the next one that hits it", { timeout: 60_000 }, async () => {
    const dir = tempRepo({});
    const bomb = "i=0; while [ $i -lt 40 ]; do sleep 5 & i=$((i+1)); done; wait";
    expect((await command(dir, bomb, limits)).limit).toBe("processes");
    for (let i = 0; i < 5; i++) expect((await command(dir, "true", limits)).limit).toBeUndefined();
    expect((await command(dir, bomb, limits)).limit).toBe("processes");
  });

  it("kill what a command left hiding when it ends, and the next command runs whole", { timeout: 60_000 }, async () => {
    const dir = tempRepo({});
    const left = await command(dir, "setsid sh -c 'echo $$ > hidden.pid; exec sleep 600' > /dev/null 2>&1 < /dev/null & sleep 0.2", limits);
    expect(left.code).toBe(0);
    const hidden = Number(readFileSync(path.join(dir, "hidden.pid"), "utf8"));
    await until(() => !alive(hidden), "the hidden process is killed");
    for (let i = 0; i < 5; i++) {
      const next = await command(dir, "sleep 0.05; echo done", limits);
      expect(next.stdout.toString()).toBe("done\n");
    }
  });

  it("a run of many commands keeps no more cgroups than it ran at once", { timeout: 60_000 }, async () => {
    const dir = tempRepo({});
    const before = commandCgroups().length;
    for (let round = 0; round < 10; round++) {
      const outcomes = await Promise.all([1, 2, 3, 4].map(() => command(dir, "true", limits)));
      expect(outcomes.map((o) => o.code)).toEqual([0, 0, 0, 0]);
    }
    expect(commandCgroups().length - before).toBeLessThanOrEqual(4);
  });
});
