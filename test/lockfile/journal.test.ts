/**
 * The journal of lock-file changes: what a run accepted is known to every reader at once and
 * survives a kill, the lock file is rewritten only at checkpoints, and a checkpoint keeps entries
 * written meanwhile by others.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { foldJournal, journalPath, LockWriter, readLockWithJournal } from "../../src/lockfile/journal.js";
import { readLock } from "../../src/lockfile/lockfile.js";
import { decoded } from "../helpers/lock.js";
import { serializeLock } from "../../src/lockfile/write.js";
import { lockEntry, type LockEntry, type LockFile } from "../../src/model/records.js";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { scaled } from "../helpers/time.js";
import { release, until } from "../helpers/wait.js";

function entry(n: number): LockEntry {
  return {
    configRef: String(n).padStart(64, "0"),
    contentHash: String(n).padStart(64, "f"),
    source: "generated",
    model: null,
    components: { prompt: String(n) },
    attempts: 1,
    tokens: { input: n, output: n },
    durationMs: n,
    acceptedAt: "2026-01-01T00:00:00.000Z",
  };
}

describe("LockWriter and the journal", () => {
  it("journals each change at once, rewrites the lock file only at checkpoints, and leaves no journal when closed", () => {
    const dir = tempRepo();
    const file = path.join(dir, "workflow.lock.json");
    const writer = new LockWriter(file, "w", { every: 3, intervalMs: 1e9 });
    writer.record("a", entry(1));
    writer.record("b", entry(2));
    expect(existsSync(file)).toBe(false);
    expect(decoded(readLockWithJournal(file)?.pairs)).toEqual({ a: entry(1), b: entry(2) });
    writer.record("c", entry(3)); // the third: a checkpoint
    expect(decoded(readLock(file)?.pairs)).toEqual({ a: entry(1), b: entry(2), c: entry(3) });
    writer.record("a", null);
    expect(readLock(file)?.pairs).toHaveProperty("a");
    expect(decoded(readLockWithJournal(file)?.pairs)).toEqual({ b: entry(2), c: entry(3) });
    writer.close();
    expect(readFileSync(file, "utf8")).toBe(serializeLock({ version: 1, workflow: "w", pairs: { b: entry(2), c: entry(3) } }));
    expect(existsSync(journalPath(file))).toBe(false);
    expect(readdirSync(dir).filter((n) => n !== ".git")).toEqual(["workflow.lock.json"]);
  });

  it("ignores a last line cut short and lines that are not changes, and treats odd pair ids as plain keys", () => {
    const dir = tempRepo();
    const file = path.join(dir, "workflow.lock.json");
    writeFileSync(
      journalPath(file),
      [
        JSON.stringify({ journal: 1, workflow: "w" }),
        JSON.stringify({ id: "a", entry: entry(1) }),
        "not json",
        JSON.stringify({ id: "b", entry: { configRef: 5 } }),
        JSON.stringify({ id: "__proto__", entry: entry(2) }),
        '{"id":"c","entry":{"configRef"',
      ].join("\n"),
    );
    const lock = readLockWithJournal(file)!;
    expect(Object.keys(lock.pairs)).toEqual(["a", "__proto__"]);
    expect(lockEntry(lock, "__proto__")).toEqual(entry(2));
    expect(lockEntry(lock, "constructor")).toBeUndefined();
    foldJournal(file);
    expect(Object.keys(readLock(file)!.pairs).sort()).toEqual(["__proto__", "a"]);
    expect(existsSync(journalPath(file))).toBe(false);
  });

  it("under any sequence of changes, checkpoints, kills and outside writes, loses nothing and keeps others' entries", () => {
    type Step =
      { kind: "record"; id: number; value: number | null } | { kind: "checkpoint" } | { kind: "kill" } | { kind: "outside"; id: number; value: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant("record" as const),
          id: fc.integer({ min: 0, max: 5 }),
          value: fc.option(fc.integer({ min: 1, max: 99 }), { nil: null }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("checkpoint" as const) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("kill" as const) }) },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant("outside" as const), id: fc.integer({ min: 0, max: 2 }), value: fc.integer({ min: 100, max: 199 }) }),
      },
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), (steps, every) => {
        const dir = tempRepo();
        const file = path.join(dir, "workflow.lock.json");
        const expected: Record<string, LockEntry> = {};
        let writer = new LockWriter(file, "w", { every, intervalMs: 1e9 });
        for (const s of steps) {
          if (s.kind === "record") {
            // The run's own pairs: p0..p5.
            writer.record(`p${s.id}`, s.value === null ? null : entry(s.value));
            if (s.value === null) delete expected[`p${s.id}`];
            else expected[`p${s.id}`] = entry(s.value);
          } else if (s.kind === "checkpoint") writer.checkpoint();
          else if (s.kind === "kill") {
            // The process dies without closing; the next run folds what it left, then goes on.
            foldJournal(file);
            writer = new LockWriter(file, "w", { every, intervalMs: 1e9 });
          } else {
            // Someone else (a checkout, a pull) writes the lock file, for pairs this run never touches.
            const lock: LockFile = readLock(file) ?? { version: 1, workflow: "w", pairs: {} };
            lock.pairs[`x${s.id}`] = entry(s.value);
            writeFileSync(file, serializeLock(lock));
            expected[`x${s.id}`] = entry(s.value);
          }
          expect(decoded(readLockWithJournal(file)?.pairs ?? {})).toEqual(expected);
        }
        writer.close();
        expect(decoded(readLock(file)?.pairs ?? {})).toEqual(expected);
        expect(existsSync(journalPath(file))).toBe(false);
      }),
      { numRuns: 100 },
    );
  });
});

// Logs "<pair> start"; the pair HOLD names answers only once the test writes release.<pair>.
const SCRIPT = `
import { appendFileSync, existsSync, readFileSync } from "node:fs";
const pair = process.env.PAIRFLOW_PAIR;
appendFileSync("calls.log", pair + " start\\n");
readFileSync(0, "utf8");
if (process.env.HOLD === pair) while (!existsSync("release." + pair)) await new Promise((r) => setTimeout(r, 10));
process.stdout.write("content of " + pair + "\\n");
`;
const WORKFLOW = `name: chain
generator: command
generator_config: {run: node gen.mjs}
action_pairs:
  a: {output: out/a.txt}
  b: {requires: [a], output: out/b.txt}
  c: {requires: [b], output: out/c.txt}
  d: {requires: [c], output: out/d.txt}
`;

const cli = (dir: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...UNCONFINED, ...env } });
const started = (dir: string) => (existsSync(path.join(dir, "calls.log")) ? readFileSync(path.join(dir, "calls.log"), "utf8").trim().split("\n") : []);

function start(dir: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1", ...UNCONFINED, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let said = ""; // progress and notices alike
  for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (d) => (said += d));
  const err = () => said;
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return Object.assign(child, { err, exited });
}

describe("runs and the journal", () => {
  it("a killed run's acceptances are seen by the next plan and kept by the next run, which removes the journal", { timeout: scaled(60_000) }, async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW, "gen.mjs": SCRIPT });
    const run = start(dir, ["run"], { HOLD: "c" });
    await until(() => started(dir).includes("c start"), "c to start", run);
    run.kill("SIGKILL");
    await run.exited;
    release(dir, "c"); // the killed run's call, should it still be there
    // a and b were accepted; the lock file was not rewritten for them, the journal has them.
    expect(existsSync(path.join(dir, ".workflow.lock.json.journal"))).toBe(true);
    expect(readLock(path.join(dir, "workflow.lock.json"))?.pairs ?? {}).not.toHaveProperty("a");
    const plan = JSON.parse(cli(dir, ["plan", "--json"]).stdout) as { pairs: { id: string; action: string }[] };
    expect(plan.pairs.map((p) => `${p.id}:${p.action}`)).toEqual(["a:skip", "b:skip", "c:run", "d:run"]);

    const again = cli(dir, ["run", "--json"]);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).totals).toMatchObject({ executed: 2, reused: 2 });
    expect(started(dir)).toEqual(["a start", "b start", "c start", "c start", "d start"]);
    expect(Object.keys(readLock(path.join(dir, "workflow.lock.json"))!.pairs)).toEqual(["a", "b", "c", "d"]);
    expect(readdirSync(dir).filter((n) => n.startsWith(".workflow") || n.endsWith(".tmp"))).toEqual([]);
  });

  it("never counts the journal, the mutex or their temporary files as a pair's inputs", { timeout: scaled(30_000) }, () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW.replace("b: {requires: [a],", 'b: {requires: [a], inputs: [".*"],'), "gen.mjs": SCRIPT, ".notes": "x" });
    expect(cli(dir, ["run"]).status).toBe(0);
    // b was decided during the run, while the journal and the mutex existed; a plan after it agrees.
    const plan = JSON.parse(cli(dir, ["plan", "--json"]).stdout) as { pairs: { id: string; action: string }[] };
    expect(plan.pairs.map((p) => `${p.id}:${p.action}`)).toEqual(["a:skip", "b:skip", "c:skip", "d:skip"]);
  });

  it("says what to do, without a stack trace, when the journal's place holds a directory", () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW, "gen.mjs": SCRIPT });
    mkdirSync(path.join(dir, ".workflow.lock.json.journal"));
    const plan = cli(dir, ["plan"]);
    expect(plan.status).toBe(2);
    expect(plan.stderr).toMatch(/\.workflow\.lock\.json\.journal is not a file .*; remove it/);
    expect(plan.stderr).not.toMatch(/\n\s+at /);
  });

  it("runs with different state directories wait for each other and keep each other's entries", { timeout: scaled(60_000) }, async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW, "gen.mjs": SCRIPT });
    // The first run holds the workflow until the test lets a's call answer, once the second waits.
    const first = start(dir, ["run", "--state-dir", "s1"], { HOLD: "a" });
    await until(() => started(dir).includes("a start"), "the first run to start", first);
    const busy = cli(dir, ["run", "--no-wait", "--state-dir", "s2"]);
    expect(busy.status).toBe(75);
    expect(busy.stderr).toMatch(/another run \(\S+, pid \d+ on .+\) is using .*workflow\.yml/);
    const second = start(dir, ["run", "--state-dir", "s2"], {});
    await until(() => second.err().includes("waiting for run"), "the second run to wait", second);
    release(dir, "a");
    expect(await first.exited).toBe(0);
    expect(await second.exited).toBe(0);
    expect(started(dir)).toEqual(["a start", "b start", "c start", "d start"]); // nothing ran twice
    expect(Object.keys(readLock(path.join(dir, "workflow.lock.json"))!.pairs)).toEqual(["a", "b", "c", "d"]);
    // A later run of part of the workflow from another state directory keeps the other entries.
    appendFileSync(path.join(dir, "workflow.yml"), "  e: {output: out/e.txt}\n");
    expect(cli(dir, ["run", "--state-dir", "s3"]).status).toBe(0);
    expect(Object.keys(readLock(path.join(dir, "workflow.lock.json"))!.pairs)).toEqual(["a", "b", "c", "d", "e"]);
  });
});
