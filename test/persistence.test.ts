/**
 * Runs that persist: real child processes, real signals. The generator is a script that logs
 * every call, so the tests can count what ran and prove nothing finished ran twice.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hostname } from "node:os";
import { lockPath } from "../src/records/mutex.js";
import { readLock } from "../src/lockfile/lockfile.js";
import { tempRepo, UNCONFINED } from "./helpers/fixtures.js";
import { CLI } from "./helpers/package.js";
import { running } from "./helpers/processes.js";
import { scaledSeconds } from "./helpers/time.js";
import { release, until } from "./helpers/wait.js";

// Logs "<pair> <attempt> start|end" and its pid, answers ANSWER_<pair>_<attempt>. A call HOLD names
// ("<pair><attempt>", space-separated) answers only once the test writes release.<pair>: a test
// acts while a call is in flight by holding it, never by hoping a delay outlasts what it does.
const SCRIPT = `pair=$PAIRFLOW_PAIR attempt=$PAIRFLOW_ATTEMPT
echo "$pair $attempt start $$" >> calls.log
bytes=$(tee -a "prompt.$pair.$attempt.txt" | wc -c)
case " \${HOLD-} " in *" $pair$attempt "*)
  while [ ! -e "release.$pair" ]; do sleep 0.01; done
esac
echo "$pair $attempt end $$" >> calls.log
answer=ANSWER_\${pair}_$attempt
if eval "[ -n \\"\\\${$answer+set}\\" ]"; then eval "printf %s \\"\\$$answer\\""; else echo "content of $pair from $bytes prompt bytes"; fi
`;

const WORKFLOW = `name: chain
rmax: 2
generator: command
generator_config: {run: sh gen.sh}
action_pairs:
  a: {output: out/a.txt}
  b: {requires: [a], output: out/b.txt, guard: regex, guard_config: {pattern: "^content"}}
  c: {requires: [b], output: out/c.txt}
  d: {requires: [c], output: out/d.txt}
`;

function project(): string {
  return tempRepo({ "workflow.yml": WORKFLOW, "gen.sh": SCRIPT, "prompts.yml": "b: {task: Write b., feedback_wrapper: 'FIX: {feedback}'}\n" });
}

const calls = (dir: string): string[][] =>
  existsSync(path.join(dir, "calls.log"))
    ? readFileSync(path.join(dir, "calls.log"), "utf8")
        .trim()
        .split("\n")
        .map((l) => l.split(" "))
    : [];
const starts = (dir: string) =>
  calls(dir)
    .filter((c) => c[2] === "start")
    .map((c) => `${c[0]}${c[1]}`);

function start(
  dir: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): ChildProcess & { out: () => string; err: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: "1", ...UNCONFINED, ...env } });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  // "close", not "exit": by then everything the run wrote to stdout and stderr has been read.
  const exited = new Promise<number | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? -1 : null))));
  return Object.assign(child, { out: () => out, err: () => err, exited });
}

function cli(dir: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...UNCONFINED, ...env } });
}

/** What a run leaves that must not depend on how it got there. */
function outcome(dir: string) {
  const lock = readLock(path.join(dir, "workflow.lock.json"))!;
  return {
    outputs: Object.fromEntries(["a", "b", "c", "d"].map((p) => [p, readFileSync(path.join(dir, `out/${p}.txt`), "utf8")])),
    lock: Object.fromEntries(Object.entries(lock.pairs).map(([id, e]) => [id, [e.configRef, e.contentHash]])),
  };
}

const runIds = (dir: string) => readdirSync(path.join(dir, ".pairflow/runs")).sort();

describe("resume after kill -9", () => {
  it("never re-runs a finished pair, makes the interrupted attempt again with its history, and ends as an uninterrupted run would", async () => {
    // b's first attempt is rejected; the kill lands in the middle of its second attempt's generator call.
    const env = { ANSWER_b_1: "wrong\n" };
    const reference = project();
    expect(cli(reference, ["run"], env).status).toBe(0);

    const dir = project();
    const run = start(dir, ["run"], { ...env, HOLD: "b2" });
    await until(() => starts(dir).includes("b2"), "b's second attempt", run);
    run.kill("SIGKILL");
    await run.exited;
    release(dir, "b"); // the killed run's call, should it still be there
    expect(existsSync(path.join(dir, ".pairflow/runs", runIds(dir)[0]!, "result.json"))).toBe(false);
    expect(cli(dir, ["runs"]).stdout).toMatch(/unfinished/);

    const resumed = cli(dir, ["resume", "--json"], env);
    expect(resumed.status).toBe(0);
    const report = JSON.parse(resumed.stdout);
    expect(report.runId).toBe(runIds(dir)[0]); // the same run, continued
    expect(runIds(dir)).toHaveLength(1);

    // a ran once; b's first attempt once; b's second attempt again from before its call; c and d once.
    expect(starts(dir)).toEqual(["a1", "b1", "b2", "b2", "c1", "d1"]);
    expect(report.pairs.map((p: { id: string; status: string }) => `${p.id}:${p.status}`)).toEqual(["a:executed", "b:executed", "c:executed", "d:executed"]);
    expect(report.pairs[1].attempts.map((x: { accepted: boolean }) => x.accepted)).toEqual([false, true]);
    // The repeated attempt saw the same history: the first attempt's feedback.
    expect(readFileSync(path.join(dir, "prompt.b.2.txt"), "utf8")).toContain("FIX: ");
    expect(outcome(dir)).toEqual(outcome(reference));

    // The record now reads as one finished run, and a plain run afterwards executes nothing.
    expect(JSON.parse(cli(dir, ["runs", "--json"]).stdout).runs[0]).toMatchObject({ status: "success", executed: 4 });
    expect(JSON.parse(cli(dir, ["run", "--json"]).stdout).totals.executed).toBe(0);
  });

  it("lets a plain run after a crash reuse finished work too", async () => {
    const dir = project();
    const run = start(dir, ["run"], { HOLD: "c1" });
    await until(() => starts(dir).includes("c1"), "c to start", run);
    run.kill("SIGKILL");
    await run.exited;
    release(dir, "c"); // the killed run's call, should it still be there
    const again = JSON.parse(cli(dir, ["run", "--json"]).stdout);
    expect(again.pairs.map((p: { status: string }) => p.status)).toEqual(["reused", "reused", "executed", "executed"]);
    // The crashed run has been overtaken by a later run of its workflow: nothing is left to resume.
    const resume = cli(dir, ["resume"]);
    expect(resume.status).toBe(2);
    expect(resume.stderr).toContain("no interrupted run to resume");
  });

  it("plans anew, saying so, when the workflow's structure changed since", async () => {
    const dir = project();
    const run = start(dir, ["run"], { HOLD: "b1" });
    await until(() => starts(dir).includes("b1"), "b to start", run);
    run.kill("SIGKILL");
    await run.exited;
    release(dir, "b"); // the killed run's call, should it still be there
    appendFileSync(path.join(dir, "workflow.yml"), "  e: {requires: [a], output: out/e.txt}\n");
    const r = cli(dir, ["resume"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/the workflow's structure changed since run \S+ \(workflowRef \w+ -> \w+\); planning anew, reusing everything still valid/);
    expect(r.stdout).toMatch(/^reused +a/m);
    expect(runIds(dir)).toHaveLength(2);
  });
});

describe("signals", () => {
  it("SIGINT lets pairs in flight finish within the grace period, starts nothing new, and exits 130", async () => {
    const dir = project();
    const grace = scaledSeconds(20);
    const run = start(dir, ["run", "--grace", String(grace)], { HOLD: "b1" });
    await until(() => starts(dir).includes("b1"), "b to start", run);
    run.kill("SIGINT");
    // b's call finishes only after pairflow has taken the signal: it is in flight, not done.
    await until(() => run.err().includes("starting nothing new"), "the notice", run);
    release(dir, "b");
    expect(await run.exited).toBe(130);
    expect(run.err()).toContain(`SIGINT: starting nothing new; pairs in flight have ${grace}s to finish`);
    expect(starts(dir)).toEqual(["a1", "b1"]);
    expect(calls(dir).some((c) => c[0] === "b" && c[2] === "end")).toBe(true);
    const result = JSON.parse(readFileSync(path.join(dir, ".pairflow/runs", runIds(dir)[0]!, "result.json"), "utf8"));
    expect(result.status).toBe("interrupted");
    expect(result.pairs.map((p: { status: string }) => p.status)).toEqual(["executed", "executed", "interrupted", "interrupted"]);
    // Resuming finishes the rest and nothing else.
    expect(cli(dir, ["resume"]).status).toBe(0);
    expect(starts(dir)).toEqual(["a1", "b1", "c1", "d1"]);
  });

  it("cancels pairs in flight, child processes included, when the grace period ends; SIGTERM exits 143", async () => {
    const dir = project();
    // a's call is never released: only the end of the grace period can end this run.
    const run = start(dir, ["run", "--grace", "1"], { HOLD: "a1" });
    await until(() => starts(dir).includes("a1"), "a to start", run);
    const generatorPid = Number(calls(dir)[0]![3]);
    run.kill("SIGTERM");
    expect(await run.exited).toBe(143);
    expect(run.err()).toContain("SIGTERM: starting nothing new; pairs in flight have 1s to finish");
    await until(() => !running(generatorPid), "the generator to be gone");
    expect(existsSync(path.join(dir, "out/a.txt"))).toBe(false);
    expect(readLock(path.join(dir, "workflow.lock.json"))).toBeNull();
  });

  it("a second SIGINT cancels at once", async () => {
    const dir = project();
    // a's call is never released, and the grace period outlasts the test: only the second SIGINT can end this run.
    const run = start(dir, ["run", "--grace", "600"], { HOLD: "a1" });
    await until(() => starts(dir).includes("a1"), "a to start", run);
    run.kill("SIGINT");
    await until(() => run.err().includes("starting nothing new"), "the first notice", run);
    run.kill("SIGINT");
    expect(await run.exited).toBe(130);
    expect(run.err()).toContain("SIGINT again: cancelling the pairs in flight now");
  });
});

describe("two runs of one workflow", () => {
  it("makes the second wait, or fail at once with --no-wait; neither corrupts anything", async () => {
    const dir = project();
    // The first run holds the workflow until the test lets a's call answer.
    const first = start(dir, ["run"], { HOLD: "a1" });
    await until(() => starts(dir).includes("a1"), "the first run to start", first);

    const busy = cli(dir, ["run", "--no-wait"]);
    expect(busy.status).toBe(75);
    expect(busy.stderr).toMatch(/another run \(\S+, pid \d+ on .+\) is using .*workflow\.yml/);

    const second = start(dir, ["run", "--json"]);
    await until(() => second.out().includes("waiting for run") || second.err().includes("waiting for run"), "the second run to wait", second);
    release(dir, "a");
    expect(await first.exited).toBe(0);
    expect(await second.exited).toBe(0);
    expect(JSON.parse(second.out()).totals).toMatchObject({ executed: 0, reused: 4 });
    expect(starts(dir)).toEqual(["a1", "b1", "c1", "d1"]);
  });

  it("knows the workflow reached through a symlinked directory as the same workflow", async () => {
    const dir = project();
    symlinkSync(dir, path.join(dir, "via-link"));
    const first = start(dir, ["run"], { HOLD: "a1" });
    await until(() => starts(dir).includes("a1"), "the first run to start", first);
    const busy = cli(dir, ["run", "--no-wait", "via-link/workflow.yml"]);
    expect(busy.status).toBe(75);
    release(dir, "a");
    expect(await first.exited).toBe(0);
  });

  it("takes over a lock left by a process that no longer exists", () => {
    const dir = project();
    expect(cli(dir, ["run"]).status).toBe(0);
    expect(existsSync(lockPath(path.join(dir, "workflow.yml")))).toBe(false); // a finished run leaves none
    const gone = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
    const holder = { pid: gone, host: hostname(), runId: "20260101T000000000Z-dead", workflow: path.join(dir, "workflow.yml"), since: "" };
    writeFileSync(lockPath(path.join(dir, "workflow.yml")), JSON.stringify(holder));
    const r = cli(dir, ["run", "--no-wait"]);
    expect(r.status).toBe(0);
    expect(readdirSync(dir).filter((name) => name.includes(".mutex"))).toEqual([]);
  });
});

describe("damaged records", () => {
  it("reads around a truncated last trace line and a half-written result file, with a clear message", () => {
    const dir = project();
    expect(cli(dir, ["run"]).status).toBe(0);
    const [id] = runIds(dir);
    const runDir = path.join(dir, ".pairflow/runs", id!);
    const whole = readFileSync(path.join(runDir, "trace.jsonl"), "utf8").split("\n").length - 1;
    appendFileSync(path.join(runDir, "trace.jsonl"), '{"t":"2026-01-01T00:00:00Z","event":"pair_st');
    writeFileSync(path.join(runDir, "result.json"), readFileSync(path.join(runDir, "result.json"), "utf8").slice(0, 40));

    const runs = cli(dir, ["runs", "--json"]);
    expect(runs.status).toBe(0);
    expect(runs.stderr).toContain(`runs/${id}/trace.jsonl: line ${whole + 1} is incomplete (the run was stopped while writing it); it is ignored`);
    expect(runs.stderr).toContain(`runs/${id}/result.json is not valid JSON (written only in part?); it is ignored and the trace is used instead`);
    expect(JSON.parse(runs.stdout).runs[0]).toMatchObject({ runId: id, status: "success", executed: 4 });

    const show = cli(dir, ["show", id!]);
    expect(show.status).toBe(0);
    expect(show.stdout).toMatch(/^d {2}[0-9a-f]{12}\n {2}planned run \(never accepted; c will run\)\n {2}executed$/m);
  });

  it("names a run that does not exist", () => {
    const dir = project();
    const r = cli(dir, ["show", "20260101T000000000Z-beef"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no run 20260101T000000000Z-beef in .*runs; see pairflow runs/);
  });
});

describe("prune", () => {
  it("removes old runs and unreferenced store entries, and keeps what the lock file and kept runs refer to", () => {
    const dir = project();
    expect(cli(dir, ["run"]).status).toBe(0);
    const prompts = path.join(dir, "prompts.yml");
    writeFileSync(prompts, readFileSync(prompts, "utf8").replace("Write b.", "Write b again."));
    expect(cli(dir, ["run"]).status).toBe(0);
    const [newest] = runIds(dir).reverse();

    const r = cli(dir, ["prune", "--keep", "1"]);
    // b, c and d ran under new references; only b's bytes changed (c and d answered the same).
    expect(r.stdout).toMatch(/^removed 1 run \(kept 1\), 3 store records and 1 stored artifact, \d+\.\d KB\n$/);
    expect(runIds(dir)).toEqual([newest]);
    // Everything the lock file records is still in the store: a fresh workspace restores it all.
    const again = JSON.parse(cli(dir, ["run", "--json"]).stdout);
    expect(again.totals.executed).toBe(0);
    // The configuration b had before is gone from the store, so going back to it runs b again.
    writeFileSync(prompts, readFileSync(prompts, "utf8").replace("Write b again.", "Write b."));
    expect(JSON.parse(cli(dir, ["plan", "--json"]).stdout).pairs[1].action).toBe("run");
  });

  it("explains a malformed duration", () => {
    const r = cli(project(), ["prune", "--older-than", "a while"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--older-than a while: expected a number and a unit (s, m, h, d, w), e.g. 30d");
  });
});
