/**
 * A run fanned out over a job matrix, through the built action against the loopback cache service:
 * a plan job makes the matrix, three shard jobs (each in its own fresh checkout, at once) execute
 * their parts and exchange artifacts only through the cache, and a merge job folds them into one
 * run and one snapshot that a later job restores whole.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempRepo } from "../helpers/fixtures.js";
import { FakeCacheService } from "./fakeCacheService.js";
import { runAction, type ActionResult } from "./runner.js";
import { scaled } from "../helpers/time.js";

/** Each call logged in the job's own checkout; content from the prompt, which holds the dependencies'. */
const GENERATOR = `echo "$PAIRFLOW_PAIR" >> calls.log
printf '%s ' "$PAIRFLOW_PAIR"; sha256sum < "$PAIRFLOW_PROMPT_FILE" | cut -c1-64
`;

/** 24 pairs in three families with links between them, so shards wait for each other. */
function workflow(): string {
  const lines = ["name: matrix", "generator: command", "generator_config: {run: sh gen.sh}", "action_pairs:"];
  for (let i = 0; i < 24; i++) {
    const deps = [i >= 3 ? `p${i - 3}` : null, i % 5 === 4 ? `p${i - 4}` : null].filter((d): d is string => d !== null);
    lines.push(`  p${i}: {output: out/p${i}.txt${deps.length ? `, requires: [${[...new Set(deps)].join(", ")}]` : ""}}`);
  }
  return lines.join("\n") + "\n";
}

const ids = (result: ActionResult, output: string) => JSON.parse(result.outputs[output]!) as string[];
const calls = (dir: string) => (existsSync(path.join(dir, "calls.log")) ? readFileSync(path.join(dir, "calls.log"), "utf8").split("\n").filter(Boolean) : []);

let cache: FakeCacheService;
beforeEach(async () => {
  cache = await new FakeCacheService().start();
});
afterEach(async () => {
  await cache.close();
});

describe("a run fanned out over a job matrix", () => {
  it("plans the matrix, runs each pair in exactly one shard job, and merges into one run the next job restores", { timeout: scaled(120_000) }, async () => {
    const repo = tempRepo({ "workflow.yml": workflow(), "gen.sh": GENERATOR, ".gitignore": ".pairflow/\n" });
    /** A runner's fresh checkout of the repository. */
    const checkout = () => {
      const dir = path.join(mkdtempSync(path.join(tmpdir(), "pairflow-job-")), "repo");
      cpSync(repo, dir, { recursive: true });
      return dir;
    };
    const env = { GITHUB_RUN_ID: "4242", GITHUB_RUN_ATTEMPT: "1", PAIRFLOW_SHARD_PULL_SECONDS: "0.2", PAIRFLOW_SHARD_PUSH_SECONDS: "0.2" };

    const plan = await runAction({ workspace: checkout(), cache, env, with: { mode: "plan", shards: "3" } });
    expect(plan.code, plan.stdout).toBe(0);
    const matrix = JSON.parse(plan.outputs.matrix!) as { include: { shard: string }[] };
    expect(matrix.include).toEqual([{ shard: "1/3" }, { shard: "2/3" }, { shard: "3/3" }]);

    const jobs = matrix.include.map(() => checkout());
    const shards = await Promise.all(matrix.include.map((m, i) => runAction({ workspace: jobs[i]!, cache, env, with: { shard: m.shard } })));
    for (const s of shards) expect(s.code, s.stdout + s.stderr).toBe(0);
    const executed = jobs.flatMap(calls);
    expect(executed.sort()).toEqual(Array.from({ length: 24 }, (_, i) => `p${i}`).sort());
    // Some shard used another's artifact, received through the cache.
    expect(shards.some((s) => /executed by shard \d\/3/.test(s.stdout))).toBe(true);

    const merged = await runAction({ workspace: checkout(), cache, env, with: { mode: "merge", shards: "3" } });
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    expect(ids(merged, "executed")).toHaveLength(24);
    expect(merged.warnings).toEqual([]);

    // The next run, on a fresh runner, restores the merged snapshot and executes nothing.
    const next = checkout();
    const after = await runAction({ workspace: next, cache, with: {} });
    expect(after.code, after.stdout).toBe(0);
    expect(ids(after, "executed")).toEqual([]);
    expect(ids(after, "reused")).toHaveLength(24);
    expect(calls(next)).toEqual([]);
  });

  it("gives an empty matrix when nothing is to run", { timeout: scaled(60_000) }, async () => {
    const repo = tempRepo({ "workflow.yml": workflow(), "gen.sh": GENERATOR });
    expect((await runAction({ workspace: repo, cache, with: {} })).code).toBe(0);
    const plan = await runAction({ workspace: repo, cache, with: { mode: "plan", shards: "3" } });
    expect(JSON.parse(plan.outputs.matrix!)).toEqual({ include: [] });
  });

  it("refuses a shard outside mode run, and mode merge without shards, before anything runs", { timeout: scaled(60_000) }, async () => {
    const repo = tempRepo({ "workflow.yml": workflow(), "gen.sh": GENERATOR });
    const bad = await runAction({ workspace: repo, with: { mode: "plan", shard: "1/3", cache: "false" } });
    expect(bad.code).not.toBe(0);
    expect(bad.errors.map((e) => e.message).join("\n")).toMatch(/input shard is for mode run/);
    expect(JSON.parse(bad.outputs.matrix!)).toEqual({ include: [] });
    const merge = await runAction({ workspace: repo, with: { mode: "merge", cache: "false" } });
    expect(merge.errors.map((e) => e.message).join("\n")).toMatch(/mode merge needs input shards/);
  });
});
