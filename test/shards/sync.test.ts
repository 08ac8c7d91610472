/**
 * Shards on separate machines: each with its own workspace and its own copy of the shared store,
 * kept in step only by publishing and pulling outboxes through a transport (here a directory of
 * immutable entries, newest by key prefix, as the Actions cache keeps them). In-process.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { mergeShards, pinSplit, planShards, runShard } from "../../src/app/shard.js";
import type { Generator } from "../../src/model/ports.js";
import type { ShardSpec } from "../../src/model/shard.js";
import { sha256Hex } from "../../src/refs/hash.js";
import type { SharedStore, SharedSync, SplitSync } from "../../src/store/shared.js";
import { tempRepo } from "../helpers/fixtures.js";
import { runOf } from "../helpers/state.js";
import { scaled } from "../helpers/time.js";

function workflow(): string {
  const lines = ["name: machines", "generator: count", "action_pairs:"];
  for (let i = 0; i < 30; i++) {
    const deps = [i >= 3 ? `p${i - 3}` : null, i % 7 === 6 ? `p${i - 5}` : null].filter(Boolean);
    lines.push(`  p${i}: {output: out/p${i}.txt${deps.length ? `, requires: [${deps.join(", ")}]` : ""}}`);
  }
  return lines.join("\n") + "\n";
}

/** Entries that, once saved, never change; a restore by prefix gets the newest. */
function directoryTransport(root: string, fanout: string) {
  let seq = 0;
  return (shared: SharedStore, self: ShardSpec): SharedSync => ({
    async push() {
      const key = `${fanout}-${self.index}of${self.count}-${String(++seq).padStart(6, "0")}-${process.hrtime.bigint()}`;
      cpSync(shared.outboxDir(self), path.join(root, key), { recursive: true });
    },
    async pull(owner) {
      const prefix = `${fanout}-${owner.index}of${owner.count}-`;
      const newest = readdirSync(root)
        .filter((k) => k.startsWith(prefix))
        .sort()
        .pop();
      if (!newest) return;
      rmSync(shared.outboxDir(owner), { recursive: true, force: true });
      cpSync(path.join(root, newest), shared.outboxDir(owner), { recursive: true });
    },
  });
}

/** The pinned split as one more immutable entry of the same transport. */
function directorySplit(root: string, fanout: string): SplitSync {
  return {
    async push(shared) {
      cpSync(shared.splitDir(), path.join(root, `${fanout}-split`), { recursive: true });
    },
    async pull(shared) {
      if (existsSync(path.join(root, `${fanout}-split`))) cpSync(path.join(root, `${fanout}-split`), shared.splitDir(), { recursive: true });
    },
  };
}

function counting(calls: string[]): Generator {
  return async (request) => {
    calls.push(request.pairId);
    await new Promise((r) => setTimeout(r, 5));
    return { content: `${request.pairId} ${sha256Hex(request.prompt).slice(0, 16)}\n` };
  };
}

const lockPairs = (dir: string) =>
  Object.fromEntries(
    Object.entries(
      (JSON.parse(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")) as { pairs: Record<string, { configRef: string; contentHash: string }> }).pairs,
    ).map(([id, e]) => [id, [e.configRef, e.contentHash]]),
  );

describe("shards on separate machines", () => {
  it("exchange artifacts only through published outboxes, execute each pair once, and merge on a fourth machine into the single run's lock file", async () => {
    const files = { "workflow.yml": workflow() };
    const singleCalls: string[] = [];
    const single = tempRepo(files);
    await runOf(single, { cwd: single, generators: { count: counting(singleCalls) } });

    const transport = mkdtempSync(path.join(tmpdir(), "pairflow-transport-"));
    mkdirSync(transport, { recursive: true });
    const sync = directoryTransport(transport, "run-1");
    const calls: string[] = [];
    const machines = [1, 2, 3].map(() => tempRepo(files));
    const reports = await Promise.all(
      machines.map((dir, i) =>
        runShard(dir, {
          cwd: dir,
          env: {},
          shard: { index: i + 1, count: 3 },
          fanout: "run-1",
          sync,
          pullEveryMs: 20,
          pushEveryMs: 20,
          waitMs: scaled(60_000),
          generators: { count: counting(calls) },
        }),
      ),
    );
    expect(reports.map((r) => r.status)).toEqual(["success", "success", "success"]);
    expect(calls.sort()).toEqual(singleCalls.sort());
    // Some pairs needed another machine's artifact, and got it.
    const received = reports.flatMap((r) => r.pairs.filter((p) => /^executed by shard \d\/3$/.test(p.note ?? "")));
    expect(received.length).toBeGreaterThan(0);
    // Nothing crossed between the machines but the transport.
    for (const dir of machines) expect(existsSync(path.join(dir, "workflow.lock.json"))).toBe(false);

    const merger = tempRepo(files);
    const { report, missing } = await mergeShards(merger, { cwd: merger, env: {}, fanout: "run-1", sync, shards: 3 });
    expect(missing).toEqual([]);
    expect(report.status).toBe("success");
    expect(report.totals.executed).toBe(30);
    expect(lockPairs(merger)).toEqual(lockPairs(single));
    expect(readFileSync(path.join(merger, "out/p29.txt"), "utf8")).toBe(readFileSync(path.join(single, "out/p29.txt"), "utf8"));
  });

  it("re-run after the merge, the failed shards keep the pinned split and wait for each other's new work, never for an earlier attempt's report", async () => {
    const files = { "workflow.yml": workflow() };
    const single = tempRepo(files);
    await runOf(single, { cwd: single, generators: { count: counting([]) } });

    const transport = mkdtempSync(path.join(tmpdir(), "pairflow-transport-"));
    const fanout = "run-7-1";
    const sync = directoryTransport(transport, fanout);
    const split = directorySplit(transport, fanout);
    const planner = tempRepo(files);
    const planned = await planShards(planner, { cwd: planner, shards: 3 });
    await pinSplit(planned, planned.shards, 3, { fanout, split });
    // A pair another shard awaits fails in the first attempt: its shard fails, and so does the one awaiting it.
    const waiting = planned.shards.find((s) => Object.keys(s.awaits).length > 0)!;
    const failing = Object.keys(waiting.awaits)[0]!;
    const owner = waiting.awaits[failing]!;
    const failingOnce = (attempt: string, calls: string[]): Generator => {
      const count = counting(calls);
      return async (request) => {
        if (request.pairId === failing && attempt === "1") throw new Error("the provider is down");
        // In the second attempt, slow enough that the awaiting shard finds the first attempt's report first.
        if (request.pairId === failing) await new Promise((r) => setTimeout(r, 300));
        return count(request);
      };
    };
    const shardRun = (dir: string, index: number, attempt: string, calls: string[]) =>
      runShard(dir, {
        cwd: dir,
        env: {},
        shard: { index, count: 3 },
        fanout,
        sync,
        split,
        attempt,
        pullEveryMs: 20,
        pushEveryMs: 20,
        waitMs: 60_000,
        generators: { count: failingOnce(attempt, calls) },
      });
    const first = await Promise.all([1, 2, 3].map((index) => shardRun(tempRepo(files), index, "1", [])));
    const failed = [1, 2, 3].filter((index) => first[index - 1]!.status !== "success");
    expect(failed).toContain(owner);
    expect(failed).toContain(waiting.index);
    const merger = tempRepo(files);
    expect((await mergeShards(merger, { cwd: merger, env: {}, fanout, sync, split, shards: 3 })).report.status).toBe("failed");

    // Attempt 2 re-runs the failed shards, each on a new machine holding the merged state.
    const calls: string[] = [];
    const again = await Promise.all(
      failed.map((index) => {
        const dir = mkdtempSync(path.join(tmpdir(), "pairflow-rerun-"));
        cpSync(merger, dir, { recursive: true });
        return shardRun(dir, index, "2", calls);
      }),
    );
    expect(again.map((r) => r.status)).toEqual(failed.map(() => "success"));
    expect(calls).toContain(failing);
    expect(new Set(calls).size).toBe(calls.length); // each pair executed once
    const received = again.flatMap((r) => r.pairs.filter((p) => p.note === `executed by shard ${owner}/3`));
    expect(received.map((p) => p.id)).toContain(failing);

    // The merge, run again, folds every shard's newest work into the single run's lock file.
    const final = tempRepo(files);
    const { report, missing } = await mergeShards(final, { cwd: final, env: {}, fanout, sync, split, shards: 3 });
    expect(missing).toEqual([]);
    expect(report.status).toBe("success");
    expect(lockPairs(final)).toEqual(lockPairs(single));
  });
});
