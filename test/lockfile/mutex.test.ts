/**
 * The run mutex: one per workflow whatever path reaches it and whatever the state directory, and a
 * takeover of a dead holder that never admits two holders, tried with real processes racing; a
 * holder record that cannot be a run here (another host's, or one a checkout put there) never makes
 * a run wait; and nothing of it is ever written outside the repository.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { buildSync } from "esbuild";
import { describe, expect, it } from "vitest";
import { acquireRunLock, currentHolder, LockBusyError, lockPath } from "../../src/records/mutex.js";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { cli, commitAll, git, gitRepo } from "../pr/repo.js";
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
    // Bundled once, so that each contender is a plain Node start rather than a TypeScript loader's.
    const contender = path.join(dir, "contend.mjs");
    buildSync({
      entryPoints: [path.join(REPO, "test/lockfile/contend.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: contender,
      logLevel: "warning",
    });
    const children = Array.from({ length: contenders }, () => {
      const child = spawn(process.execPath, [contender, workflow, log, String(rounds), String(dead), go], {
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

  it("waits for a holder only when it can be a live run of this file here, and takes over any other with one warning", async () => {
    // Every case of: the holder's host, whether its process is alive, whether git tracks the
    // file, and whether the file was written when the record says (a run) or long after (a checkout).
    const cases = [false, true].flatMap((foreign) =>
      [false, true].flatMap((alive) => [false, true].flatMap((tracked) => [false, true].map((checkedOut) => ({ foreign, alive, tracked, checkedOut })))),
    );
    const dead = deadPid();
    for (const c of cases) {
      const dir = gitRepo({ "workflow.yml": WORKFLOW });
      const workflow = path.join(dir, "workflow.yml");
      const since = new Date(Date.now() - (c.checkedOut ? 3 * 3600_000 : 0)).toISOString();
      const host = c.foreign ? `ci-${hostname()}-job-7` : hostname();
      writeFileSync(lockPath(workflow), JSON.stringify({ pid: c.alive ? process.pid : dead, host, runId: "other", workflow, since }));
      if (c.tracked) git(dir, "add", "-f", path.basename(lockPath(workflow)));
      const warnings: string[] = [];
      const taking = acquireRunLock(workflow, { runId: "me", wait: false, onWarn: (m) => warnings.push(m) });
      const label = JSON.stringify(c);
      if (!c.foreign && c.alive && !(c.tracked && c.checkedOut)) {
        await expect(taking, label).rejects.toBeInstanceOf(LockBusyError);
        expect(warnings, label).toEqual([]);
        continue;
      }
      const release = await taking;
      expect(currentHolder(workflow)?.runId, label).toBe("me");
      release();
      // A dead holder of this host is taken over quietly, as ever; the others are a mistake to fix.
      if (!c.foreign && !c.alive) expect(warnings, label).toEqual([]);
      else {
        expect(warnings, label).toHaveLength(1);
        expect(warnings[0], label).toContain(lockPath(workflow));
        expect(warnings[0], label).toMatch(/git rm --cached .*\.workflow\.lock\.json\.mutex.*\.gitignore/);
      }
    }
  }, 60_000);

  it("lets a run start at once, with one warning, in a clone where a run's mutex was committed", async () => {
    // `git add -A` during a run on another host: every clone gets the holder record.
    const dir = gitRepo({ "workflow.yml": WORKFLOW });
    const workflow = path.join(dir, "workflow.yml");
    const record = {
      pid: 4242,
      host: "fv-az123-456",
      runId: "20260101T000000000Z-ab12",
      workflow: "/home/runner/work/repo/workflow.yml",
      since: "2026-01-01T00:00:00.000Z",
    };
    writeFileSync(lockPath(workflow), JSON.stringify(record));
    commitAll(dir, "everything, by accident");
    const run = await cli(["run", "--no-wait"], dir); // waiting would be for ever: fail instead
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const said = (run.stdout + run.stderr).split("\n").filter((line) => line.includes(".workflow.lock.json.mutex"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/fv-az123-456.*ignored.*git rm --cached/);
    expect(existsSync(path.join(dir, "a.txt"))).toBe(true);
  }, 30_000);

  it("still waits for a live run here when the mutex's path is tracked by git", async () => {
    // The mistake was committed once; a run of this clone took the mutex since, and is alive.
    const dir = gitRepo({ "workflow.yml": WORKFLOW });
    const workflow = path.join(dir, "workflow.yml");
    writeFileSync(lockPath(workflow), JSON.stringify({ pid: deadPid(), host: hostname(), runId: "old", workflow, since: "2026-01-01T00:00:00.000Z" }));
    commitAll(dir, "everything, by accident");
    const first = await acquireRunLock(workflow, { runId: "first", wait: false });
    const warnings: string[] = [];
    await expect(acquireRunLock(workflow, { runId: "second", wait: false, onWarn: (m) => warnings.push(m) })).rejects.toThrow(/another run \(first,/);
    expect(warnings).toEqual([]);
    first();
  });

  it("is never written outside the repository, even for a lock file that is a link leading out of it", async () => {
    // A pull request's lock file, a link to a real file elsewhere: the mutex and the journal stay
    // beside the link. The generator lists that directory while the run holds its mutex.
    const outside = mkdtempSync(path.join(tmpdir(), "pairflow-outside-"));
    writeFileSync(path.join(outside, "target.json"), '{"version": 1, "workflow": "w", "pairs": {}}\n');
    const dir = tempRepo({ "workflow.yml": `name: w\ngenerator: command\ngenerator_config: {run: "ls -A ${outside}"}\naction_pairs:\n  a: {output: a.txt}\n` });
    symlinkSync(path.join(outside, "target.json"), path.join(dir, "workflow.lock.json"));
    const workflow = path.join(dir, "workflow.yml");
    expect(lockPath(workflow)).toBe(path.join(realpathSync(dir), ".workflow.lock.json.mutex"));
    const run = await cli(["run"], dir);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("target.json\n");
    expect(readdirSync(outside)).toEqual(["target.json"]);
    expect(readFileSync(path.join(outside, "target.json"), "utf8")).toBe('{"version": 1, "workflow": "w", "pairs": {}}\n');
  }, 30_000);
});
