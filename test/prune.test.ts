/**
 * Pruning run records and the local store on real files: runs made in-process as the shells make
 * them, then `prune` through the application layer and the CLI. What a lock file anywhere in the
 * repository refers to must survive any number of prunes, so deleted outputs come back from the
 * store without running anything again.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pruneRuns } from "../src/app/history.js";
import { LockBusyError } from "../src/records/mutex.js";
import { prune } from "../src/records/prune.js";
import { LocalStore } from "../src/store/local.js";
import type { RunReport } from "../src/model/run.js";
import { cli } from "./pr/repo.js";
import { copyToTempRepo, REPO, tempRepo, UNCONFINED } from "./helpers/fixtures.js";
import { runOf } from "./helpers/state.js";

const EXAMPLE = path.join(REPO, "examples/tdd-stack");

const executed = (report: RunReport) => report.pairs.filter((p) => p.status === "executed").map((p) => p.id);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every file under dir (relative path -> size), to see exactly what a prune removed. */
function tree(dir: string): Map<string, number> {
  const files = new Map<string, number>();
  const walk = (d: string) => {
    for (const name of existsSync(d) ? readdirSync(d) : []) {
      const file = path.join(d, name);
      if (statSync(file).isDirectory()) walk(file);
      else files.set(path.relative(dir, file).split(path.sep).join("/"), statSync(file).size);
    }
  };
  walk(dir);
  return files;
}

function outputs(dir: string, files: string[]): Record<string, string> {
  return Object.fromEntries(files.map((f) => [f, readFileSync(path.join(dir, f), "utf8")]));
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(file, text.replace(from, to));
}

/** Two workflows in one repository, each with its own outputs; the generator answers with its prompt's task. */
function twoWorkflows(): string {
  const workflow = (name: string) => `name: ${name}
generator: command
generator_config: {run: node ../gen.mjs}
action_pairs:
  first: {output: out/first.txt}
  second: {requires: [first], output: out/second.txt}
`;
  return tempRepo({
    "gen.mjs": `import { readFileSync } from "node:fs";
const prompt = readFileSync(0, "utf8");
process.stdout.write(process.env.PAIRFLOW_PAIR + ": " + (/# Task\\n\\n(.*)/.exec(prompt)?.[1] ?? "") + "\\n");
`,
    "alpha/workflow.yml": workflow("alpha"),
    "alpha/prompts.yml": "first: {task: Alpha first.}\nsecond: {task: Alpha second.}\n",
    "beta/workflow.yml": workflow("beta"),
    "beta/prompts.yml": "first: {task: Beta first.}\nsecond: {task: Beta second.}\n",
  });
}

const OUTPUTS = ["out/first.txt", "out/second.txt"];

describe("prune keeps what any lock file in the repository refers to", () => {
  it("run; prune --older-than 1s; prune; rm -rf outputs; run: nothing accepted runs again, and every output is back", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    const request = { cwd: dir, env: {} };
    expect(executed(await runOf(dir))).toEqual(["g_test", "g_impl", "g_review"]);
    const before = outputs(dir, ["out/test_stack.py", "out/stack.py", "out/review.md"]);
    await sleep(1_100);

    const first = await pruneRuns(request, { olderThan: "1s" });
    expect(first.runs).toHaveLength(1);
    expect(first.kept.runs).toBe(0);
    // With no run record left, only the lock file says what the store must keep.
    const second = await pruneRuns(request);
    expect(second).toMatchObject({ runs: [], records: [], objects: [], kept: { runs: 0, records: 3, objects: 3 } });
    expect(second.lockFiles).toEqual([path.join(dir, "workflow.lock.json")]);

    rmSync(path.join(dir, "out"), { recursive: true });
    const again = await runOf(dir);
    expect(executed(again)).toEqual([]);
    expect(again.pairs.map((p) => p.status)).toEqual(["reused", "reused", "reused"]);
    expect(outputs(dir, Object.keys(before))).toEqual(before);
  });

  it("keeps the entries of two workflows in one repository, and removes only what neither refers to", async () => {
    const dir = twoWorkflows();
    const request = { cwd: dir, env: {} };
    await runOf(path.join(dir, "alpha"));
    await runOf(path.join(dir, "beta"));
    // alpha's first pair gets a new configuration: its old record and content, and second's old
    // record (second answers the same bytes again), are referred to by nothing once the runs are gone.
    edit(path.join(dir, "alpha/prompts.yml"), "Alpha first.", "Alpha first again.");
    expect(executed(await runOf(path.join(dir, "alpha")))).toEqual(["first", "second"]);
    const alpha = outputs(path.join(dir, "alpha"), OUTPUTS);
    const beta = outputs(path.join(dir, "beta"), OUTPUTS);
    await sleep(1_100);

    const first = await pruneRuns(request, { olderThan: "1s" });
    expect(first.runs).toHaveLength(3);
    expect(first.records.map((r) => r.pair).sort()).toEqual(["first", "second"]);
    expect(first.objects).toHaveLength(1);
    expect(first.lockFiles).toEqual([path.join(dir, "alpha/workflow.lock.json"), path.join(dir, "beta/workflow.lock.json")]);
    const second = await pruneRuns(request);
    expect(second).toMatchObject({ runs: [], records: [], objects: [], kept: { records: 4, objects: 4 } });

    for (const wf of ["alpha", "beta"]) rmSync(path.join(dir, wf, "out"), { recursive: true });
    expect(executed(await runOf(path.join(dir, "alpha")))).toEqual([]);
    expect(executed(await runOf(path.join(dir, "beta")))).toEqual([]);
    expect(outputs(path.join(dir, "alpha"), OUTPUTS)).toEqual(alpha);
    expect(outputs(path.join(dir, "beta"), OUTPUTS)).toEqual(beta);
  });

  it("--dry-run removes nothing and lists exactly what a prune then removes", async () => {
    const dir = twoWorkflows();
    const request = { cwd: dir, env: {} };
    await runOf(path.join(dir, "alpha"));
    await runOf(path.join(dir, "beta"));
    edit(path.join(dir, "alpha/prompts.yml"), "Alpha first.", "Alpha first again.");
    await runOf(path.join(dir, "alpha"));
    const state = path.join(dir, ".pairflow");
    const before = tree(state);

    const dry = await pruneRuns(request, { keep: 1, dryRun: true });
    expect(tree(state)).toEqual(before);
    expect(dry.dryRun).toBe(true);
    expect(dry.runs).toHaveLength(2);
    expect(dry.records).toHaveLength(2);
    expect(dry.objects).toHaveLength(1); // second answered the same bytes under its new configuration

    const real = await pruneRuns(request, { keep: 1 });
    expect({ ...real, dryRun: true }).toEqual(dry);
    const after = tree(state);
    const removed = [...before.keys()].filter((f) => !after.has(f));
    const listed = [
      ...dry.runs.flatMap((r) => [...before.keys()].filter((f) => f.startsWith(`runs/${r.runId}/`))),
      ...dry.records.map((r) => `store/pairs/${r.pair}/${r.configRef}.json`),
      ...dry.objects.map((o) => `store/objects/${o.hash.slice(0, 2)}/${o.hash}`),
    ];
    expect(removed.sort()).toEqual(listed.sort());
    expect(removed.reduce((sum, f) => sum + before.get(f)!, 0)).toBe(dry.bytes);
    expect([...after.keys()].filter((f) => !before.has(f))).toEqual([]);
  });

  it("reads only pairflow's lock files, skips node_modules, and keeps the whole store while a lock file cannot be read", async () => {
    const dir = copyToTempRepo(EXAMPLE, { "tools/other.lock.json": '{"lockfileVersion": 3}\n' });
    await runOf(dir);
    const lock = readFileSync(path.join(dir, "workflow.lock.json"), "utf8");
    rmSync(path.join(dir, ".pairflow/runs"), { recursive: true });
    // A copy under node_modules refers to the same entries, but is never read.
    writeFileSync(path.join(dir, "workflow.lock.json"), "<<<<<<< HEAD\n" + lock);
    mkdirSync(path.join(dir, "node_modules/pkg"), { recursive: true });
    writeFileSync(path.join(dir, "node_modules/pkg/workflow.lock.json"), lock);

    const damaged = await pruneRuns({ cwd: dir, env: {} });
    expect(damaged).toMatchObject({ records: [], objects: [], lockFiles: [], kept: { records: 3, objects: 3 } });
    expect(damaged.warnings).toEqual([`${path.join(dir, "workflow.lock.json")}: not a readable pairflow lock file; store entries are kept until it is fixed`]);

    // Without a readable lock file beside the workflow, nothing refers to the entries any more.
    rmSync(path.join(dir, "workflow.lock.json"));
    const gone = await pruneRuns({ cwd: dir, env: {} });
    expect(gone).toMatchObject({ lockFiles: [], warnings: [], kept: { records: 0, objects: 0 } });
    expect(gone.records).toHaveLength(3);
  });
});

describe("prune beside a run", () => {
  // Answers once the test writes "release": the run is in flight for as long as the test needs.
  const HELD = `import { appendFileSync, existsSync, readFileSync } from "node:fs";
readFileSync(0, "utf8");
appendFileSync("calls.log", process.env.PAIRFLOW_PAIR + "\\n");
while (!existsSync("release")) await new Promise((r) => setTimeout(r, 10));
process.stdout.write("content of " + process.env.PAIRFLOW_PAIR + "\\n");
`;

  it("holds the run mutex: fails at once with wait: false, else waits for the run and keeps all it accepted", async () => {
    // A first run of a workflow that has no lock file yet: its run record names it.
    const dir = tempRepo({
      "workflow.yml":
        "name: slow\ngenerator: command\ngenerator_config: {run: node gen.mjs}\naction_pairs:\n  a: {output: a.txt}\n  b: {requires: [a], output: b.txt}\n",
      "gen.mjs": HELD,
    });
    const run = runOf(dir, { env: { ...process.env, ...UNCONFINED } });
    let finished = false;
    void run.then(() => (finished = true));
    while (!existsSync(path.join(dir, "calls.log")) && !finished) await sleep(20);

    await expect(pruneRuns({ cwd: dir, env: {} }, { keep: 1, wait: false })).rejects.toBeInstanceOf(LockBusyError);
    const waited: string[] = [];
    // The run goes on only once the prune waits for it.
    const release = () => writeFileSync(path.join(dir, "release"), "");
    const result = await pruneRuns({ cwd: dir, env: {} }, { onWait: (holder) => (waited.push(holder.runId), release()) });
    expect(finished).toBe(true);
    expect(waited).toEqual([(await run).runId]);
    expect(result).toMatchObject({ runs: [], records: [], objects: [], kept: { runs: 1, records: 2, objects: 2 } });

    rmSync(path.join(dir, "a.txt"));
    rmSync(path.join(dir, "b.txt"));
    expect(executed(await runOf(dir))).toEqual([]);
    expect(readFileSync(path.join(dir, "b.txt"), "utf8")).toBe("content of b\n");
  });

  it("never removes a store entry written since it began", () => {
    const dir = tempRepo();
    const stateDir = path.join(dir, ".pairflow");
    const startedAt = Date.now() - 60_000;
    const hash = new LocalStore(path.join(stateDir, "store")).putContent("written while pruning\n");
    expect(prune(stateDir, { startedAt })).toMatchObject({ objects: [], kept: { objects: 1 } });
    expect(prune(stateDir, { startedAt: Date.now() + 60_000 }).objects.map((o) => o.hash)).toEqual([hash]);
  });
});

describe("pairflow prune", () => {
  it("lists with --dry-run what it would remove, with sizes, and says it removed nothing; --json gives the same", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    await runOf(dir);
    edit(path.join(dir, "prompts.yml"), "task: Implement the Stack class.", "task: Implement the Stack class with a list.");
    await runOf(dir);
    const [older] = readdirSync(path.join(dir, ".pairflow/runs")).sort();

    const dry = await cli(["prune", "--keep", "1", "--dry-run"], dir);
    expect(dry.status).toBe(0);
    const lines = dry.stdout.split("\n");
    expect(lines[0]).toMatch(/^would remove 1 run \(kept 1\), 2 store records and 1 stored artifact, \d+\.\d KB; nothing was removed$/);
    expect(lines.slice(2, 3)).toEqual(["kind      what                      size"]);
    expect(dry.stdout).toMatch(new RegExp(`^run +${older} +\\d+\\.\\d KB$`, "m"));
    expect(dry.stdout).toMatch(/^record +g_impl [0-9a-f]{12} +[\d.]+ K?B$/m);
    expect(dry.stdout).toMatch(/^record +g_review [0-9a-f]{12} +[\d.]+ K?B$/m);
    expect(dry.stdout).toMatch(/^artifact +[0-9a-f]{12} +\d+ B$/m);

    const json = JSON.parse((await cli(["prune", "--keep", "1", "--dry-run", "--json"], dir)).stdout);
    expect(json).toMatchObject({ version: 1, dryRun: true, runs: [{ runId: older }], kept: { runs: 1 }, lockFiles: [path.join(dir, "workflow.lock.json")] });
    expect(json.records.map((r: { pair: string }) => r.pair).sort()).toEqual(["g_impl", "g_review"]);

    const real = await cli(["prune", "--keep", "1", "--json"], dir);
    expect(JSON.parse(real.stdout)).toEqual({ ...json, dryRun: false });
    expect((await cli(["prune"], dir)).stdout).toBe("removed 0 runs (kept 1), 0 store records and 0 stored artifacts, 0 B\n");
  });
});
