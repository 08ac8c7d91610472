import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runOf as runIn } from "./helpers/state.js";
import type { RunReport } from "../src/model/run.js";
import { readLock } from "../src/lockfile/lockfile.js";
import type { RemoteArtifact, RemoteStore } from "../src/model/ports.js";
import { copyToTempRepo, REPO, tempRepo, UNCONFINED } from "./helpers/fixtures.js";
import { CLI } from "./helpers/package.js";

/** A run whose commands log their calls in the repository: unconfined (see UNCONFINED). */
const runOf: typeof runIn = (target, options = {}) => runIn(target, { ...options, env: { ...(options.env ?? process.env), ...UNCONFINED } });

const EXAMPLE = path.join(REPO, "examples/tdd-stack");

/** `pairflow run --json` through the built CLI, as a user runs it. */
function cliRun(dir: string, ...args: string[]): { status: number; report: RunReport; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, "run", "--json", ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...UNCONFINED },
  });
  return { status: r.status ?? -1, report: JSON.parse(r.stdout) as RunReport, stderr: r.stderr };
}

const executed = (report: RunReport) => report.pairs.filter((p) => p.status === "executed").map((p) => p.id);
const statuses = (report: RunReport) => Object.fromEntries(report.pairs.map((p) => [p.id, p.status]));

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(file, text.replace(from, to));
}

describe("the four runs of the incremental-execution example, through the built CLI", () => {
  it("executes all, then nothing, then a changed pair and its dependent, then the dependents of a hand edit", () => {
    const dir = copyToTempRepo(EXAMPLE);
    const lockFile = path.join(dir, "workflow.lock.json");

    const run1 = cliRun(dir);
    expect(run1.status).toBe(0);
    expect(executed(run1.report)).toEqual(["g_test", "g_impl", "g_review"]);
    expect(readFileSync(path.join(dir, "out/stack.py"), "utf8")).toContain("class Stack:");
    const lockAfter1 = readFileSync(lockFile, "utf8");

    const run2 = cliRun(dir);
    expect(executed(run2.report)).toEqual([]);
    expect(statuses(run2.report)).toEqual({ g_test: "reused", g_impl: "reused", g_review: "reused" });
    expect(readFileSync(lockFile, "utf8")).toBe(lockAfter1); // nothing changed, nothing rewritten

    edit(path.join(dir, "prompts.yml"), "task: Implement the Stack class.", "task: Implement the Stack class with a list.");
    const run3 = cliRun(dir);
    expect(executed(run3.report)).toEqual(["g_impl", "g_review"]);
    expect(run3.report.pairs.find((p) => p.id === "g_impl")!.reasons).toMatchObject([{ kind: "prompt", detail: "prompt.task changed" }]);
    expect(run3.report.pairs[0]!.configRef).toBe(run1.report.pairs[0]!.configRef);

    const handWritten = "# written by a person\ndef test_push():\n    pass\n";
    writeFileSync(path.join(dir, "out/test_stack.py"), handWritten);
    const run4 = cliRun(dir);
    expect(executed(run4.report)).toEqual(["g_impl", "g_review"]);
    expect(run4.report.pairs[0]).toMatchObject({ id: "g_test", status: "reused", configRef: run1.report.pairs[0]!.configRef });
    expect(run4.report.pairs[1]!.reasons).toMatchObject([{ kind: "upstream_artifact", detail: "g_test's output was edited by hand" }]);
    expect(readFileSync(path.join(dir, "out/test_stack.py"), "utf8")).toBe(handWritten);
    expect(readLock(lockFile)!.pairs.g_test!.source).toBe("human");

    expect(executed(cliRun(dir).report)).toEqual([]);
  });
});

/** A workflow whose command generator logs each call and answers from a small script. */
function scripted(workflow: string, script = DEFAULT_SCRIPT, prompts = ""): string {
  return tempRepo({ "workflow.yml": workflow, "gen.mjs": script, "prompts.yml": prompts });
}

// Logs "<pair> <attempt> start|end <ms>" lines and answers "content of <pair>", optionally slowly.
const DEFAULT_SCRIPT = `
import { appendFileSync, readFileSync } from "node:fs";
const pair = process.env.PAIRFLOW_PAIR, attempt = process.env.PAIRFLOW_ATTEMPT;
appendFileSync("calls.log", \`\${pair} \${attempt} start \${Date.now()}\\n\`);
appendFileSync(\`prompt.\${pair}.\${attempt}.txt\`, readFileSync(0, "utf8"));
const delay = Number(process.env["DELAY_" + pair] ?? 0);
await new Promise((r) => setTimeout(r, delay));
appendFileSync("calls.log", \`\${pair} \${attempt} end \${Date.now()}\\n\`);
process.stdout.write(process.env["ANSWER_" + pair + "_" + attempt] ?? process.env["ANSWER_" + pair] ?? \`content of \${pair}\\n\`);
`;

const calls = (dir: string) =>
  existsSync(path.join(dir, "calls.log"))
    ? readFileSync(path.join(dir, "calls.log"), "utf8")
        .trim()
        .split("\n")
        .map((l) => l.split(" "))
    : [];
const started = (dir: string) =>
  calls(dir)
    .filter((c) => c[2] === "start")
    .map((c) => c[0]);

describe("running", () => {
  it("reuses a dependent whose reference is unchanged after its dependency re-ran with identical content (early cutoff)", async () => {
    const dir = scripted(
      `name: cutoff
generator: command
generator_config: {run: node gen.mjs}
action_pairs:
  g_test: {}
  g_impl: {requires: [g_test], output: impl.txt}
  g_docs: {requires: [g_test], output: docs.txt}
`,
      DEFAULT_SCRIPT,
      "g_impl: {task: Implement.}\n",
    );
    await runOf(dir);
    // g_test has no output file: with the store gone its content exists nowhere, and g_impl,
    // whose prompt changes, needs it. g_test runs again and produces the same bytes.
    rmSync(path.join(dir, ".pairflow"), { recursive: true });
    edit(path.join(dir, "prompts.yml"), "Implement.", "Implement it.");
    rmSync(path.join(dir, "calls.log"));
    const report = await runOf(dir);
    expect(statuses(report)).toEqual({ g_test: "executed", g_impl: "executed", g_docs: "reused" });
    expect(report.pairs.find((p) => p.id === "g_test")!.reasons).toEqual([
      { kind: "new", detail: "accepted content is not available here; running again to restore it" },
    ]);
    expect(report.pairs.find((p) => p.id === "g_docs")!.note).toBe("early cutoff: g_test re-ran with identical content");
    expect(started(dir).sort()).toEqual(["g_impl", "g_test"]);
  });

  it("retries with the guard's feedback in the prompt, up to rmax retries, recording every attempt", async () => {
    const dir = scripted(
      `name: retry
rmax: 2
generator: command
generator_config: {run: node gen.mjs}
action_pairs:
  a:
    guard: regex
    guard_config: {pattern: "^good"}
`,
      DEFAULT_SCRIPT,
      'a: {task: Say good., feedback_wrapper: "REJECTED BECAUSE: {feedback}"}\n',
    );
    const report = await runOf(dir, { env: { ...process.env, ...UNCONFINED, ANSWER_a_1: "bad\n", ANSWER_a_2: "good\n" } });
    const a = report.pairs[0]!;
    expect(a.status).toBe("executed");
    expect(a.attempts.map((x) => [x.attempt, x.accepted])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(a.attempts[0]!.feedback).toContain("^good");
    const second = readFileSync(path.join(dir, "prompt.a.2.txt"), "utf8");
    expect(second).toContain(`REJECTED BECAUSE: ${a.attempts[0]!.feedback}`);
    expect(readFileSync(path.join(dir, "prompt.a.1.txt"), "utf8")).not.toContain("REJECTED BECAUSE");
  });

  it("fails a pair that exhausts its attempts, blocks its dependents and completes independent pairs", async () => {
    const dir = scripted(`name: failing
rmax: 1
generator: command
generator_config: {run: node gen.mjs}
action_pairs:
  bad: {guard: contains, guard_config: {text: never}}
  after_bad: {requires: [bad]}
  after_after: {requires: [after_bad]}
  fine: {}
  after_fine: {requires: [fine]}
`);
    const report = await runOf(dir);
    expect(report.status).toBe("failed");
    expect(statuses(report)).toEqual({ bad: "failed", fine: "executed", after_bad: "blocked", after_fine: "executed", after_after: "blocked" });
    const bad = report.pairs.find((p) => p.id === "bad")!;
    expect(bad.attempts).toHaveLength(2);
    expect(bad.note).toMatch(/^rejected after 2 attempts: .*never/);
    expect(report.pairs.find((p) => p.id === "after_bad")!.note).toBe("blocked by bad");
    expect(report.pairs.find((p) => p.id === "after_after")!.note).toBe("blocked by after_bad");
    expect(started(dir)).not.toContain("after_bad");

    // The CLI exits 1 and lists the failed pair with its last feedback.
    const cli = spawnSync(process.execPath, [CLI, "run"], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...UNCONFINED } });
    expect(cli.status).toBe(1);
    expect(cli.stdout).toMatch(/1 pair failed:\n {2}bad: rejected after 2 attempts: .*never/);
    // Its plan now says why it will run again.
    const plan = spawnSync(process.execPath, [CLI, "plan", "--json"], { cwd: dir, encoding: "utf8" });
    expect(JSON.parse(plan.stdout).pairs[0].reasons[1].kind).toBe("rejected");
  });

  it("fails at run time a pair whose generator pairflow does not know, naming those it has", async () => {
    const dir = scripted("name: unknown\naction_pairs:\n  g: {generator: OllamaGenerator}\n");
    const report = await runOf(dir);
    expect(report.pairs[0]!.note).toBe('unknown generator "OllamaGenerator"; pairflow has: anthropic, command, openai');
  });

  it("accepts anything when a pair names no guard", async () => {
    const dir = scripted("name: noguard\ngenerator: command\ngenerator_config: {run: node gen.mjs}\naction_pairs:\n  g: {}\n");
    expect(statuses(await runOf(dir))).toEqual({ g: "executed" });
  });

  it("starts a pair as soon as its own dependencies are accepted, never more than --concurrency at once", async () => {
    // slow answers only once after_fast has started: after_fast is sure to start while slow runs.
    // A run that waited for slow before starting after_fast would never end (the test times out).
    const script = DEFAULT_SCRIPT.replace(
      "const delay =",
      `while (pair === "slow" && !readFileSync("calls.log", "utf8").includes("after_fast 1 start")) await new Promise((r) => setTimeout(r, 10));
const delay =`,
    );
    const dir = scripted(
      `name: sched
generator: command
generator_config: {run: node gen.mjs}
action_pairs:
  root: {}
  slow: {requires: [root]}
  fast: {requires: [root]}
  after_fast: {requires: [fast]}
  w1: {}
  w2: {}
  w3: {}
`,
      script,
    );
    await runOf(dir, { concurrency: 2, env: { ...process.env, DELAY_w1: "300", DELAY_w2: "300", DELAY_w3: "300" } });
    const log = calls(dir);
    const at = (pair: string, what: string) => Number(log.find((c) => c[0] === pair && c[2] === what)![3]);
    // after_fast does not wait for slow, which is in the same wave as fast.
    expect(at("after_fast", "start")).toBeLessThan(at("slow", "end"));
    let running = 0;
    let most = 0;
    for (const c of [...log].sort((x, y) => Number(x[3]) - Number(y[3]) || (x[2] === "end" ? -1 : 1))) {
      running += c[2] === "start" ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBe(2);
  });
});

describe("selection", () => {
  const setup = async () => {
    const dir = copyToTempRepo(EXAMPLE);
    await runOf(dir);
    return dir;
  };

  it("--force executes everything", async () => {
    const dir = await setup();
    expect(executed(await runOf(dir, { selection: { force: true } }))).toEqual(["g_test", "g_impl", "g_review"]);
  });

  it("--from executes that pair and everything downstream of it", async () => {
    const dir = await setup();
    const report = await runOf(dir, { selection: { from: "g_impl" } });
    expect(statuses(report)).toEqual({ g_test: "reused", g_impl: "executed", g_review: "executed" });
    expect(report.pairs[1]!.reasons).toEqual([{ kind: "forced", detail: "--from g_impl" }]);
  });

  it("--only executes those pairs and considers nothing outside them and their dependencies", async () => {
    const dir = await setup();
    const report = await runOf(dir, { selection: { only: ["g_impl"] } });
    expect(statuses(report)).toEqual({ g_test: "reused", g_impl: "executed" });
  });

  it("--only says which dependency has no accepted artifact", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    const r = spawnSync(process.execPath, [CLI, "run", "--only", "g_review"], { cwd: dir, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      "--only g_review: these dependencies cannot be reused as they are and would have to run first: g_test (never accepted), g_impl (never accepted; g_test will run)",
    );
    expect(existsSync(path.join(dir, "out"))).toBe(false);
  });

  it("names an unknown pair", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    await expect(runOf(dir, { selection: { from: "g_tset" } })).rejects.toThrow('--from g_tset: no such pair in tdd-stack; did you mean "g_test"?');
  });
});

describe("a remote store", () => {
  /** An in-memory stand-in for a store shared between machines, counting what it is asked. */
  class MemoryRemote implements RemoteStore {
    readonly name = "the test remote";
    readonly items = new Map<string, RemoteArtifact>();
    restores: string[] = [];
    async fetch(pair: string, ref: string) {
      this.restores.push(pair);
      return this.items.get(`${pair}-${ref}`);
    }
    async save(a: RemoteArtifact) {
      this.items.set(`${a.record.pair}-${a.record.configRef}`, a);
    }
  }

  it("receives every acceptance, and lets a fresh workspace execute nothing", async () => {
    const remote = new MemoryRemote();
    const first = copyToTempRepo(EXAMPLE);
    expect(executed(await runOf(first, { remote }))).toEqual(["g_test", "g_impl", "g_review"]);
    expect([...remote.items.keys()].map((k) => k.split("-")[0])).toEqual(["g_test", "g_impl", "g_review"]);

    // Another machine: same files, no lock file, no store, no outputs.
    const second = copyToTempRepo(EXAMPLE);
    const report = await runOf(second, { remote });
    expect(statuses(report)).toEqual({ g_test: "reused", g_impl: "reused", g_review: "reused" });
    expect(readFileSync(path.join(second, "out/stack.py"), "utf8")).toBe(readFileSync(path.join(first, "out/stack.py"), "utf8"));
  });

  it("restores only what is missing: outputs of reused pairs and upstream content of pairs that run", async () => {
    const remote = new MemoryRemote();
    const dir = copyToTempRepo(EXAMPLE);
    await runOf(dir, { remote });
    rmSync(path.join(dir, ".pairflow"), { recursive: true });
    rmSync(path.join(dir, "out/test_stack.py"));
    remote.restores = [];
    const report = await runOf(dir, { remote });
    expect(executed(report)).toEqual([]);
    expect(remote.restores).toEqual(["g_test"]);
    expect(existsSync(path.join(dir, "out/test_stack.py"))).toBe(true);
  });
});
