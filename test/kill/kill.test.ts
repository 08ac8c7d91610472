/**
 * Killed at any moment, resumed to the end: the built CLI runs a 30-pair workflow four at a time
 * and is SIGKILLed 15 times (its own pid only, never its children: they are pairflow's to stop),
 * during `run` and during `resume` itself, as it starts up and in the middle of attempts. Each
 * time it is resumed. At the end the outputs and lock entries are byte for byte those of an
 * uninterrupted run, no pair accepted before a kill was generated again, nothing half-written is
 * left anywhere in the repository, and nothing pairflow started still runs.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readLock } from "../../src/lockfile/lockfile.js";
import { readLockWithJournal } from "../../src/lockfile/journal.js";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { scaled } from "../helpers/time.js";
import { until } from "../helpers/wait.js";

const PAIRS = 30;
const KILLS = 15;

/**
 * Counts its calls, leaves a process behind in its group (pairflow must stop it), takes a moment,
 * and answers from the prompt it got: dependencies' content and earlier feedback included, so a
 * lost or repeated piece of history changes the output. Every fourth pair's first attempt is bad.
 */
const GENERATOR = `pair=$PAIRFLOW_PAIR attempt=$PAIRFLOW_ATTEMPT
echo "$pair $attempt" >> calls.log
sleep 600 </dev/null >/dev/null 2>&1 &
hash=$(sha256sum | cut -d " " -f 1)
# 60 to 150 ms, about what a Node script took to start and answer: the kills' moments stay spread over the run.
sleep "$(printf "0.%03d" $((60 + $$ % 90)))"
n=\${pair#p}
if [ $((\${n#0} % 4)) -eq 0 ] && [ "$attempt" = 1 ]; then word=BAD; else word=GOOD; fi
echo "$word $pair $hash"
`;

/** A command guard for some pairs: takes a moment, leaves a process behind, rejects what starts with BAD. */
const GUARD = `sleep 600 >/dev/null 2>&1 &
sleep 0.05
if head -c 3 "$PAIRFLOW_ARTIFACT" | grep -q BAD; then echo "it says BAD"; exit 1; fi
`;

/** A fixed random DAG, some four pairs wide: each pair requires up to two of the pairs 4 to 11 before it. */
function workflow(): string {
  const random = lcg(13);
  const lines = ["name: killed", "generator: command", "generator_config: {run: sh gen.sh}", "rmax: 2", "action_pairs:"];
  for (let i = 0; i < PAIRS; i++) {
    const id = `p${String(i).padStart(2, "0")}`;
    const requires = new Set<string>();
    if (i >= 4 && random() < 0.75) {
      const count = 1 + Math.floor(random() * 2);
      for (let k = 0; k < count; k++) requires.add(`p${String(Math.max(0, i - 4 - Math.floor(random() * 8))).padStart(2, "0")}`);
    }
    lines.push(`  ${id}:`);
    if (requires.size > 0) lines.push(`    requires: [${[...requires].sort().join(", ")}]`);
    lines.push(`    output: out/${id}.txt`);
    if (i % 6 === 0) lines.push("    guard: command", "    guard_config: {run: sh guard.sh}");
    else lines.push("    guard: regex", '    guard_config: {pattern: "^GOOD"}');
  }
  return lines.join("\n") + "\n";
}

function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function repo(): string {
  return tempRepo({ "gen.sh": GENERATOR, "guard.sh": GUARD, "workflow.yml": workflow() });
}

interface Started {
  pid: number;
  exited: Promise<number | null>;
  /** What it wrote to stdout and stderr. */
  output: () => string;
}

/** `pairflow <args>` from the built CLI, in its own process group, with `mark` in its environment. */
function cli(dir: string, args: string[], mark: string): Started {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: { ...process.env, ...UNCONFINED, PAIRFLOW_KILL_TEST: mark, NO_COLOR: "1" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { pid: child.pid!, exited, output: () => output };
}

function calls(dir: string): Map<string, number> {
  const counts = new Map<string, number>();
  const file = path.join(dir, "calls.log");
  if (!existsSync(file)) return counts;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const id = line.split(" ")[0];
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

function callLines(dir: string): number {
  const file = path.join(dir, "calls.log");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").length - 1 : 0;
}

/** Accepted pairs, as the lock file says; a lock file a kill left unreadable says none. */
function accepted(dir: string): string[] {
  try {
    // The lock file as pairflow reads it: with the journal of acceptances since its last checkpoint.
    return Object.keys(readLockWithJournal(path.join(dir, "workflow.lock.json"), "workflow.lock.json")?.pairs ?? {});
  } catch {
    return [];
  }
}

/** Every file under dir, relative, with its bytes. */
function files(dir: string, under = ""): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  for (const entry of readdirSync(path.join(dir, under), { withFileTypes: true })) {
    const rel = path.join(under, entry.name);
    if (entry.isDirectory()) for (const [k, v] of files(dir, rel)) found.set(k, v);
    else found.set(rel, readFileSync(path.join(dir, rel)));
  }
  return found;
}

/** Processes still running (zombies aside) with `mark` in their environment. */
function marked(mark: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      if (readFileSync(`/proc/${name}/environ`).includes(`PAIRFLOW_KILL_TEST=${mark}`)) found.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Whether pairflow says the run is complete: it completed it, or it had been completed before a kill. */
function ended(code: number | null, output: string): boolean {
  return code === 0 || (code === 2 && /the latest run of each workflow finished|already finished \(success\)/.test(output));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The lock entries as far as they do not depend on the clock. */
function lockShape(dir: string) {
  const lock = readLock(path.join(dir, "workflow.lock.json"), "workflow.lock.json")!;
  return Object.fromEntries(
    Object.entries(lock.pairs).map(([id, e]) => [id, { configRef: e.configRef, contentHash: e.contentHash, source: e.source, attempts: e.attempts }]),
  );
}

describe.skipIf(!existsSync("/proc/self/stat"))("SIGKILL at any moment, then resume", { timeout: scaled(120_000) }, () => {
  it("ends exactly as an uninterrupted run, generating no accepted pair again, leaving no temporary file and no process", async () => {
    const mark = randomUUID();
    const reference = repo();
    // The uninterrupted run goes on beside the killed one: they share nothing but the machine.
    const whole = cli(reference, ["run", "--concurrency", "4"], mark);

    const dir = repo();
    // A seeded plan of kills, so that a failure can be replayed: when to kill each time.
    const plan = fc.sample(
      fc.record({
        // When to kill: some time after it starts (while the CLI starts, plans, resumes and kills
        // what was left, or later), once the generators have been called `count` more times (in
        // the middle of attempts), or once `count` more pairs were accepted (between records).
        by: fc.constantFrom("time", "calls", "accepted"),
        afterMs: fc.integer({ min: 0, max: 800 }),
        count: fc.integer({ min: 1, max: 2 }),
        extraMs: fc.integer({ min: 0, max: 40 }),
      }),
      { numRuns: 3 * KILLS, seed: 4242 },
    );
    const history: { accepted: string[]; calls: Map<string, number> }[] = [];
    let kills = 0;
    let finished = false;
    for (const when of plan) {
      if (kills === KILLS) break;
      // A run killed before it recorded anything is started again; one that did is resumed.
      const recorded = existsSync(path.join(dir, ".pairflow/runs")) && readdirSync(path.join(dir, ".pairflow/runs")).length > 0;
      const started = cli(dir, [recorded ? "resume" : "run", "--concurrency", "4"], mark);
      let done = false;
      void started.exited.then(() => (done = true));
      // Each round gets a little further (a pair or two), whatever the machine's speed, so that
      // there are as many kills as asked before the run completes.
      const before = accepted(dir).length;
      if (when.by === "time") {
        const until = Date.now() + when.afterMs;
        while (!done && Date.now() < until && accepted(dir).length === before) await sleep(10);
      } else {
        const progress = when.by === "calls" ? () => callLines(dir) : () => accepted(dir).length;
        const target = progress() + when.count;
        while (!done && progress() < target) await sleep(10);
        await sleep(when.extraMs);
      }
      if (done) {
        // It finished first (or the run had finished just before the last kill): that is the end.
        finished = ended(await started.exited, started.output());
        expect(finished, started.output()).toBe(true);
        if (finished) break;
        continue;
      }
      process.kill(started.pid, "SIGKILL");
      await started.exited;
      kills++;
      history.push({ accepted: accepted(dir), calls: calls(dir) });
    }
    expect(kills).toBeGreaterThanOrEqual(15);
    if (!finished) {
      const last = cli(dir, ["resume", "--concurrency", "4"], mark);
      const code = await last.exited;
      expect(ended(code, last.output()), last.output()).toBe(true);
    }

    expect(await whole.exited, whole.output()).toBe(0);
    // The outputs and the lock entries are those of the uninterrupted run.
    const want = files(path.join(reference, "out"));
    const got = files(path.join(dir, "out"));
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [name, bytes] of want) expect(Buffer.compare(got.get(name)!, bytes), name).toBe(0);
    expect(lockShape(dir)).toEqual(lockShape(reference));
    expect(Object.values(lockShape(dir)).every((e) => e.source === "generated")).toBe(true);

    // A pair accepted before a kill was never generated again.
    const final = calls(dir);
    for (const { accepted: ids, calls: before } of history) {
      for (const id of ids) expect(final.get(id), `generator calls of ${id}`).toBe(before.get(id));
    }
    // Nothing half-written anywhere, the state directory included.
    expect([...files(dir).keys()].filter((name) => name.endsWith(".tmp"))).toEqual([]);
    // Nothing pairflow started still runs: not the generators' leftovers, not an orphaned attempt.
    await until(() => marked(mark).length === 0, "every process pairflow started to be gone");
  });
});
