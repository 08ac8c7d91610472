/**
 * A run fanned out over shard processes sharing a store directory, through the built CLI: every
 * pair executed exactly once across the shards, the merge folding them into the lock file a single
 * process would have written, and a killed shard costing only its own unfinished work.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { scaled, scaledSeconds } from "../helpers/time.js";
import { until } from "../helpers/wait.js";

/**
 * Deterministic content from the prompt (which holds the dependencies' content); each call logged.
 * A shell script rather than node: 60 pairs, several times over, in well under a second of startups.
 */
const GENERATOR = `echo "$PAIRFLOW_PAIR" >> calls.log
[ -n "$SLEEP" ] && sleep "$SLEEP"
printf '%s ' "$PAIRFLOW_PAIR"; sha256sum < "$PAIRFLOW_PROMPT_FILE" | cut -c1-64
`;

/** 60 pairs in three loosely linked families, so any split has some dependencies across shards. */
function workflow(): string {
  const lines = ["name: fanout", "generator: command", "generator_config: {run: sh gen.sh}", "action_pairs:"];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 60; i++) {
    const family = i % 3;
    const deps = new Set<string>();
    if (i >= 3) deps.add(`p${i - 3}`); // the family's chain
    if (i >= 6 && next() % 4 === 0) deps.add(`p${next() % (i - 1)}`); // now and then, another family's
    lines.push(`  p${i}: {description: "family ${family} step ${i}", output: out/p${i}.txt${deps.size ? `, requires: [${[...deps].join(", ")}]` : ""}}`);
  }
  return lines.join("\n") + "\n";
}

function cli(
  dir: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): ChildProcess & { done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { ...process.env, ...UNCONFINED, ...env, NO_COLOR: "1" } });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return Object.assign(child, { done });
}

const calls = (dir: string) => readFileSync(path.join(dir, "calls.log"), "utf8").split("\n").filter(Boolean);

function lockPairs(dir: string): Record<string, { configRef: string; contentHash: string }> {
  const lock = JSON.parse(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")) as { pairs: Record<string, { configRef: string; contentHash: string }> };
  return Object.fromEntries(Object.entries(lock.pairs).map(([id, e]) => [id, { configRef: e.configRef, contentHash: e.contentHash }]));
}

function outputs(dir: string): Record<string, string> {
  const out = path.join(dir, "out");
  return Object.fromEntries(readdirSync(out).map((f) => [f, readFileSync(path.join(out, f), "utf8")]));
}

// Each test starts a few hundred short processes: generous timeouts for a loaded machine.
describe("a run fanned out over shards", { timeout: scaled(90_000) }, () => {
  const files = { "workflow.yml": workflow(), "gen.sh": GENERATOR };
  let single: { lock: ReturnType<typeof lockPairs>; outputs: Record<string, string> };

  beforeAll(async () => {
    const dir = tempRepo(files);
    const run = await cli(dir, ["run", "--concurrency", "4"]).done;
    expect(run.code, run.stderr).toBe(0);
    single = { lock: lockPairs(dir), outputs: outputs(dir) };
  }, scaled(60_000));

  it("plans a matrix of at most N shards, and an empty one when nothing is to run", async () => {
    const dir = tempRepo(files);
    const planned = JSON.parse((await cli(dir, ["plan", "--shards", "3", "--json"]).done).stdout) as {
      shards: { index: number; pairs: string[] }[];
      matrix: { include: { shard: string }[] };
    };
    expect(planned.matrix.include).toEqual([{ shard: "1/3" }, { shard: "2/3" }, { shard: "3/3" }]);
    const owned = planned.shards.flatMap((s) => s.pairs);
    expect(owned.sort()).toEqual(Object.keys(single.lock).sort());
    expect(new Set(owned).size).toBe(60);

    await cli(dir, ["run"]).done;
    const after = JSON.parse((await cli(dir, ["plan", "--shards", "3", "--json"]).done).stdout) as { matrix: { include: unknown[] } };
    expect(after.matrix.include).toEqual([]);
  });

  it("executes every pair exactly once across three shard processes, and merges into the single run's lock file", async () => {
    const dir = tempRepo(files);
    // Each process also says where its time went.
    const timing = path.join(dir, "timing.jsonl");
    const shards = ["1/3", "2/3", "3/3"].map((s) => cli(dir, ["run", "--shard", s, "--concurrency", "2"], { SLEEP: "0.02", PAIRFLOW_TIMING: timing }));
    const ended = await Promise.all(shards.map((s) => s.done));
    for (const e of ended) expect(e.code, e.stderr + e.stdout).toBe(0);
    const log = calls(dir);
    expect(log.length).toBe(60);
    expect(new Set(log).size).toBe(60);
    // Shards leave the workspace to the merge.
    expect(existsSync(path.join(dir, "workflow.lock.json"))).toBe(false);
    expect(existsSync(path.join(dir, "out"))).toBe(false);

    const merged = await cli(dir, ["merge"], { PAIRFLOW_TIMING: timing }).done;
    expect(merged.code, merged.stderr + merged.stdout).toBe(0);
    expect(lockPairs(dir)).toEqual(single.lock);
    expect(outputs(dir)).toEqual(single.outputs);
    // One line a process, its phases in the order they ran, each shard's pairs among them.
    const timings = readFileSync(timing, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { argv: string[]; marks: [string, number][] });
    expect(timings.map((t) => t.argv[0])).toEqual(["run", "run", "run", "merge"]);
    for (const { argv, marks } of timings) {
      const times = marks.map(([, ms]) => ms);
      expect(times).toEqual([...times].sort((x, y) => x - y));
      const phases = marks.map(([name]) => name).filter((name) => !name.startsWith("pair_"));
      if (argv[0] === "merge") expect(phases).toEqual(["main", "loaded", "locked", "planned", "copied", "folded", "recorded", "exit"]);
      else expect(phases).toEqual(["main", "loaded", "opened", "planned", "sandbox", "executed", "reported", "exit"]);
    }
    const started = timings.flatMap((t) => t.marks.filter(([name]) => name.startsWith("pair_start ")).map(([name]) => name.slice(11)));
    expect(started.sort()).toEqual(Object.keys(single.lock).sort());
    // After the merge, nothing is left to run.
    const plan = JSON.parse((await cli(dir, ["plan", "--json"]).done).stdout) as { pairs: { action: string }[] };
    expect(plan.pairs.every((p) => p.action === "skip")).toBe(true);
    expect(calls(dir).length).toBe(60);
  });

  it("keeps a killed shard's accepted work and the others' for the next attempt, executing nothing twice", async () => {
    const dir = tempRepo(files);
    const shards = ["1/3", "2/3", "3/3"].map((s) =>
      cli(dir, ["run", "--shard", s, "--concurrency", "2", "--shard-wait", String(scaledSeconds(5))], { SLEEP: "0.04" }),
    );
    // Kill shard 2 once it has accepted something. The others then wait --shard-wait for what it never delivers.
    await until(() => existsSync(path.join(dir, "calls.log")) && calls(dir).length >= 12, "12 calls");
    shards[1]!.kill("SIGKILL");
    await Promise.all(shards.map((s) => s.done));
    const first = calls(dir);
    expect(new Set(first).size).toBe(first.length); // nothing executed twice so far

    // A merge now says the fan-out did not complete, and folds in what was accepted.
    const partial = await cli(dir, ["merge"]).done;
    expect(partial.code).toBe(1);
    expect(partial.stdout + partial.stderr).toMatch(/shard 2\/3 never reported/);

    // The next attempt: the same shards again.
    const again = await Promise.all(["1/3", "2/3", "3/3"].map((s) => cli(dir, ["run", "--shard", s, "--concurrency", "2"]).done));
    for (const e of again) expect(e.code, e.stderr + e.stdout).toBe(0);
    const merged = await cli(dir, ["merge"]).done;
    expect(merged.code, merged.stderr + merged.stdout).toBe(0);
    expect(lockPairs(dir)).toEqual(single.lock);
    expect(outputs(dir)).toEqual(single.outputs);
    // Every pair accepted before the kill was not executed again; only what shard 2 had in flight may repeat.
    const log = calls(dir);
    expect(new Set(log).size).toBe(60);
    expect(log.length - 60).toBeLessThanOrEqual(2);
  });
});
