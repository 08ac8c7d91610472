/**
 * The run mutex: one per workflow whatever path reaches it and whatever the state directory, and a
 * takeover of a dead holder that never admits two holders, tried with real processes racing.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { acquireRunLock, currentHolder, LockBusyError, lockPath } from "../../src/records/mutex.js";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { until } from "../helpers/wait.js";

const WORKFLOW = "name: w\ngenerator: command\ngenerator_config: {run: cat}\naction_pairs:\n  a: {output: a.txt}\n";

/** The pid of a process that has exited and been reaped. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
}

describe("the run mutex", () => {
  it("is one mutex for a workflow reached through a symlinked directory or a symlinked file", async () => {
    const dir = tempRepo({ "flows/workflow.yml": WORKFLOW });
    symlinkSync(path.join(dir, "flows"), path.join(dir, "via-dir"));
    symlinkSync(path.join(dir, "flows/workflow.yml"), path.join(dir, "via-file.yml"));
    const real = path.join(dir, "flows/workflow.yml");
    const release = await acquireRunLock(real, { runId: "first", wait: false });
    for (const other of [path.join(dir, "via-dir/workflow.yml"), path.join(dir, "via-file.yml")]) {
      expect(lockPath(other)).toBe(lockPath(real));
      await expect(acquireRunLock(other, { runId: "second", wait: false })).rejects.toBeInstanceOf(LockBusyError);
      expect(currentHolder(other)?.runId).toBe("first");
    }
    release();
    expect(currentHolder(real)).toBeUndefined();
    const again = await acquireRunLock(path.join(dir, "via-file.yml"), { runId: "second", wait: false });
    again();
  });

  it("lives beside the lock file, not in a state directory: runs with different state directories share it", () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW });
    expect(lockPath(path.join(dir, "workflow.yml"))).toBe(path.join(realpathSync(dir), ".workflow.lock.json.mutex"));
  });

  it("takes over a dead holder, and of many processes racing for it only one ever holds it", { timeout: scaled(60_000) }, async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW });
    const workflow = path.join(dir, "workflow.yml");
    const log = path.join(dir, "holders.log");
    const go = path.join(dir, "go");
    const dead = deadPid();
    // A holder that died: everyone starts by racing to take it over.
    writeFileSync(lockPath(workflow), JSON.stringify({ pid: dead, host: hostname(), runId: "dead", workflow, since: "" }));
    const contenders = 8;
    const rounds = 50;
    const children = Array.from({ length: contenders }, () => {
      const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO, "test/lockfile/contend.ts"), workflow, log, String(rounds), String(dead), go], {
        cwd: REPO,
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      return new Promise<number>((resolve, reject) =>
        child.on("exit", (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`contender exited with ${code}`)))),
      );
    });
    // All of them started and waiting before any takes the mutex, so they race from the first round.
    const ready = () => (existsSync(`${go}.ready`) ? readFileSync(`${go}.ready`, "utf8").trim().split("\n").length : 0);
    await until(() => ready() === contenders, `${contenders} contenders to be ready`);
    writeFileSync(go, "");
    const abandoned = (await Promise.all(children)).reduce((a, b) => a + b, 0);

    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines).toHaveLength(2 * contenders * rounds);
    for (let i = 0; i < lines.length; i += 2) {
      // Every holder leaves before the next one enters: never two at once.
      const [enter, leave] = [lines[i]!.split(" "), lines[i + 1]!.split(" ")];
      expect([enter[0], leave[0], leave[1]]).toEqual(["enter", "leave", enter[1]]);
    }
    expect(abandoned).toBeGreaterThan(contenders * rounds * 0.2); // the takeovers did happen, many times
    // Nothing left behind but the mutex itself (a dead holder's, if the last one abandoned it).
    expect(readdirSync(dir).filter((name) => name.includes(".tmp") || name.includes("takeover"))).toEqual([]);
  });

  it("takes over a takeover left by a process that died in the middle of it", async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW });
    const workflow = path.join(dir, "workflow.yml");
    const dead = deadPid();
    const holder = JSON.stringify({ pid: dead, host: hostname(), runId: "dead", workflow, since: "" });
    writeFileSync(lockPath(workflow), holder);
    // What a process killed while taking it over leaves: the guard named after the holder's record.
    const { createHash } = await import("node:crypto");
    const guard = `${lockPath(workflow)}.takeover-${createHash("sha256").update(holder).digest("hex").slice(0, 16)}`;
    writeFileSync(guard, JSON.stringify({ pid: dead, host: hostname(), runId: "dead too", workflow, since: "" }));
    const release = await acquireRunLock(workflow, { runId: "alive", wait: false });
    expect(currentHolder(workflow)?.runId).toBe("alive");
    release();
    expect(readdirSync(dir).filter((name) => name.startsWith(".workflow"))).toEqual([]);
  });

  it("refuses, rather than waiting forever, when something that is not a holder record sits where the mutex belongs", async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW });
    const workflow = path.join(dir, "workflow.yml");
    mkdirSync(lockPath(workflow));
    await expect(acquireRunLock(workflow, { runId: "me", wait: true })).rejects.toThrow(/cannot be read as pairflow's run mutex \(EISDIR\); remove it/);
  });

  it("never takes over a live holder, nor one on another machine", async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW });
    const workflow = path.join(dir, "workflow.yml");
    writeFileSync(lockPath(workflow), JSON.stringify({ pid: deadPid(), host: `not-${hostname()}`, runId: "elsewhere", workflow, since: "" }));
    await expect(acquireRunLock(workflow, { runId: "me", wait: false })).rejects.toThrow(/another run \(elsewhere, pid \d+ on not-/);
  });
});
