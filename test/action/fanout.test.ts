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
import { planShards } from "../../src/app/shard.js";
import { tempRepo } from "../helpers/fixtures.js";
import { FakeCacheService } from "./fakeCacheService.js";
import { runAction, type ActionResult } from "./runner.js";
import { scaled } from "../helpers/time.js";

/** Each call logged in the job's own checkout; content from the prompt, which holds the dependencies'. */
const GENERATOR = `echo "$PAIRFLOW_PAIR" >> calls.log
printf '%s ' "$PAIRFLOW_PAIR"; sha256sum < "$PAIRFLOW_PROMPT_FILE" | cut -c1-64
`;

/** The same, failing every attempt at the pair named in FAIL. */
const FAILING_GENERATOR = `[ "$PAIRFLOW_PAIR" = "$FAIL" ] && exit 1
${GENERATOR}`;

/** 24 pairs in three families with links between them, so shards wait for each other: each pair's dependencies. */
const REQUIRES: Record<string, string[]> = Object.fromEntries(
  Array.from({ length: 24 }, (_, i) => [
    `p${i}`,
    [...new Set([i >= 3 ? `p${i - 3}` : null, i % 5 === 4 ? `p${i - 4}` : null])].filter((d): d is string => d !== null),
  ]),
);

function workflow(): string {
  const lines = ["name: matrix", "generator: command", "generator_config: {run: sh gen.sh}", "action_pairs:"];
  for (const [id, deps] of Object.entries(REQUIRES)) lines.push(`  ${id}: {output: out/${id}.txt${deps.length ? `, requires: [${deps.join(", ")}]` : ""}}`);
  return lines.join("\n") + "\n";
}

const ids = (result: ActionResult, output: string) => JSON.parse(result.outputs[output]!) as string[];
const lockPairs = (text: string) =>
  Object.fromEntries(
    Object.entries((JSON.parse(text) as { pairs: Record<string, { configRef: string; contentHash: string }> }).pairs).map(([id, e]) => [
      id,
      [e.configRef, e.contentHash],
    ]),
  );
const calls = (dir: string) => (existsSync(path.join(dir, "calls.log")) ? readFileSync(path.join(dir, "calls.log"), "utf8").split("\n").filter(Boolean) : []);

/** Its command logs its calls in the repository, which the sandbox keeps read-only to commands. */
const OFF = { sandbox: "off" };

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

    const plan = await runAction({ workspace: checkout(), cache, env, with: { ...OFF, mode: "plan", shards: "3" } });
    expect(plan.code, plan.stdout).toBe(0);
    const matrix = JSON.parse(plan.outputs.matrix!) as { include: { shard: string; fanout: string }[] };
    expect(matrix.include).toEqual(["1/3", "2/3", "3/3"].map((shard) => ({ shard, fanout: "4242-1" })));
    expect(plan.outputs.fanout).toBe("4242-1");

    const jobs = matrix.include.map(() => checkout());
    const shards = await Promise.all(
      matrix.include.map((m, i) => runAction({ workspace: jobs[i]!, cache, env, with: { ...OFF, shard: m.shard, fanout: m.fanout } })),
    );
    for (const s of shards) expect(s.code, s.stdout + s.stderr).toBe(0);
    const executed = jobs.flatMap(calls);
    expect(executed.sort()).toEqual(Array.from({ length: 24 }, (_, i) => `p${i}`).sort());
    // Some shard used another's artifact, received through the cache.
    expect(shards.some((s) => /executed by shard \d\/3/.test(s.stdout))).toBe(true);

    const merged = await runAction({ workspace: checkout(), cache, env, with: { ...OFF, mode: "merge", shards: "3", fanout: plan.outputs.fanout! } });
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    expect(ids(merged, "executed")).toHaveLength(24);
    expect(merged.warnings).toEqual([]);

    // The next run, on a fresh runner, restores the merged snapshot and executes nothing.
    const next = checkout();
    const after = await runAction({ workspace: next, cache, with: OFF });
    expect(after.code, after.stdout).toBe(0);
    expect(ids(after, "executed")).toEqual([]);
    expect(ids(after, "reused")).toHaveLength(24);
    expect(calls(next)).toEqual([]);
  });

  it(
    "re-runs a failed shard after the merge as GitHub does: the same split, no waiting for other shards, and a merge that can run again",
    { timeout: scaled(180_000) },
    async () => {
      const repo = tempRepo({ "workflow.yml": workflow(), "gen.sh": FAILING_GENERATOR, ".gitignore": ".pairflow/\n" });
      const checkout = () => {
        const dir = path.join(mkdtempSync(path.join(tmpdir(), "pairflow-job-")), "repo");
        cpSync(repo, dir, { recursive: true });
        return dir;
      };
      // A pair of a shard other than the first whose failure blocks a dependent in the same shard
      // only: the first attempt fails that one shard job, and only it is re-run. (Split again after
      // the merge, the two pairs left would go to two shards, one of them never run again.)
      const split = (await planShards(undefined, { cwd: checkout(), shards: 3 })).shards;
      const ownerOf = new Map(split.flatMap((s) => s.pairs.map((id) => [id, s.index] as const)));
      const dependents = (id: string): string[] => {
        const direct = Object.entries(REQUIRES).flatMap(([d, deps]) => (deps.includes(id) ? [d] : []));
        return [...direct, ...direct.flatMap(dependents)];
      };
      const failing = Object.keys(REQUIRES).find(
        (id) => ownerOf.get(id) !== 1 && dependents(id).length > 0 && dependents(id).every((d) => ownerOf.get(d) === ownerOf.get(id)),
      )!;
      expect(failing).toBeDefined();
      const blocked = [...new Set(dependents(failing))].sort();
      const attempt = (n: number, more: Record<string, string> = {}) => ({
        GITHUB_RUN_ID: "4343",
        GITHUB_RUN_ATTEMPT: String(n),
        PAIRFLOW_SHARD_PULL_SECONDS: "0.2",
        PAIRFLOW_SHARD_PUSH_SECONDS: "0.2",
        ...more,
      });

      // Attempt 1: plan, three shards (one fails a pair), and the merge, which fails too but saves
      // what the others accepted: the base state every later job starts from.
      const plan = await runAction({ workspace: checkout(), cache, env: attempt(1), with: { ...OFF, mode: "plan", shards: "3" } });
      const matrix = (JSON.parse(plan.outputs.matrix!) as { include: { shard: string; fanout: string }[] }).include;
      const first = await Promise.all(
        matrix.map((m) => runAction({ workspace: checkout(), cache, env: attempt(1, { FAIL: failing }), with: { ...OFF, shard: m.shard, fanout: m.fanout } })),
      );
      const failedJob = matrix.findIndex((m) => m.shard === `${ownerOf.get(failing)}/3`);
      const said = first.map((s, i) => `shard ${matrix[i]!.shard}:\n${s.stdout.slice(-1500)}`).join("\n");
      expect(
        first.map((s) => s.code !== 0),
        said,
      ).toEqual(matrix.map((_, i) => i === failedJob));
      const merge = { ...OFF, mode: "merge", shards: "3", fanout: plan.outputs.fanout! };
      const merged = await runAction({ workspace: checkout(), cache, env: attempt(1), with: merge });
      expect(merged.code).not.toBe(0);
      expect(ids(merged, "failed")).toEqual([failing]);

      // Attempt 2, "Re-run failed jobs": that shard job with the same matrix values, in a fresh
      // checkout, against the merged state; it may not wait for any other shard at all.
      const job = checkout();
      const rerun = await runAction({
        workspace: job,
        cache,
        env: attempt(2, { PAIRFLOW_SHARD_WAIT_SECONDS: "0" }),
        with: { ...OFF, shard: matrix[failedJob]!.shard, fanout: matrix[failedJob]!.fanout },
      });
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
      expect(calls(job).sort()).toEqual([failing, ...blocked].sort());
      expect(ids(rerun, "blocked")).toEqual([]);

      // Then the merge job again, and once more (a re-run of the merge alone): both fold all 24.
      const mergeJob = async (n: number) => {
        const dir = checkout();
        const result = await runAction({ workspace: dir, cache, env: attempt(n), with: merge });
        expect(result.code, result.stdout + result.stderr).toBe(0);
        return { result, lock: readFileSync(path.join(dir, "workflow.lock.json"), "utf8") };
      };
      const again = [await mergeJob(2), await mergeJob(3)];
      for (const { result: m } of again) {
        expect([...ids(m, "executed"), ...ids(m, "reused")].sort()).toEqual(Object.keys(REQUIRES).sort());
        expect(ids(m, "executed")).toEqual(expect.arrayContaining([failing, ...blocked]));
      }
      const lockFiles = again.map((m) => m.lock);
      for (const name of ["executed", "reused", "failed", "blocked"]) expect(again[1]!.result.outputs[name], name).toBe(again[0]!.result.outputs[name]);
      expect(lockFiles[1]).toBe(lockFiles[0]);
      // The lock file a single run writes, pair for pair.
      const single = checkout();
      const run = await runAction({ workspace: single, with: { ...OFF, cache: "false" } });
      expect(run.code, run.stdout).toBe(0);
      expect(lockPairs(lockFiles[0]!)).toEqual(lockPairs(readFileSync(path.join(single, "workflow.lock.json"), "utf8")));
    },
  );

  it("gives an empty matrix when nothing is to run", { timeout: scaled(60_000) }, async () => {
    const repo = tempRepo({ "workflow.yml": workflow(), "gen.sh": GENERATOR });
    expect((await runAction({ workspace: repo, cache, with: {} })).code).toBe(0);
    const plan = await runAction({ workspace: repo, cache, with: { ...OFF, mode: "plan", shards: "3" } });
    expect(JSON.parse(plan.outputs.matrix!)).toEqual({ include: [] });
  });

  it(
    "refuses a shard outside mode run, mode merge without shards, and a fanout where it means nothing, before anything runs",
    { timeout: scaled(60_000) },
    async () => {
      const repo = tempRepo({ "workflow.yml": workflow(), "gen.sh": GENERATOR });
      const bad = await runAction({ workspace: repo, with: { mode: "plan", shard: "1/3", cache: "false" } });
      expect(bad.code).not.toBe(0);
      expect(bad.errors.map((e) => e.message).join("\n")).toMatch(/input shard is for mode run/);
      expect(JSON.parse(bad.outputs.matrix!)).toEqual({ include: [] });
      const merge = await runAction({ workspace: repo, with: { mode: "merge", cache: "false" } });
      expect(merge.errors.map((e) => e.message).join("\n")).toMatch(/mode merge needs input shards/);
      const fanout = await runAction({ workspace: repo, with: { mode: "plan", shards: "3", fanout: "4242-1", cache: "false" } });
      expect(fanout.errors.map((e) => e.message).join("\n")).toMatch(/input fanout is for the shard jobs .* and the merge job/);
      const key = await runAction({ workspace: repo, with: { shard: "1/3", fanout: "a,b", cache: "false" } });
      expect(key.errors.map((e) => e.message).join("\n")).toMatch(/input fanout: "a,b" is not a fan-out id; pass \$\{\{ matrix.fanout \}\}/);
    },
  );
});
