/**
 * One shard of a local fan-out run again after a merge: it takes the split its fan-out made the
 * first time (pinned in the shared store, as the plan job pins it in GitHub Actions), so it
 * executes its own unfinished pairs instead of a new split's, and waits for no shard that is not coming.
 */
import { describe, expect, it } from "vitest";
import { mergeShards, runShard } from "../../src/app/shard.js";
import type { Generator } from "../../src/model/ports.js";
import { tempRepo } from "../helpers/fixtures.js";

describe("a shard run again after a merge", () => {
  it("executes the pairs it owned the first time, and the merge then completes", async () => {
    const dir = tempRepo({ "workflow.yml": "name: rerun\ngenerator: rec\naction_pairs:\n  a: {}\n  b: {}\n  c: {}\n  d: {}\n" });
    const calls: string[] = [];
    let failing = true;
    const rec: Generator = async (r) => {
      calls.push(r.pairId);
      if (failing && r.pairId === "d") throw new Error("the provider is down");
      return { content: `content of ${r.pairId}\n` };
    };
    const options = { cwd: dir, env: {}, generators: { rec } };
    const first = await Promise.all([1, 2].map((index) => runShard(dir, { ...options, shard: { index, count: 2 } })));
    expect(first.map((r) => r.status)).toEqual(["success", "failed"]);
    const mine = (r: (typeof first)[number]) => r.pairs.filter((p) => p.status === "executed" || p.status === "failed").map((p) => p.id);
    const ownedBy2 = mine(first[1]!);
    expect(ownedBy2).toContain("d");
    const partial = await mergeShards(dir, options);
    expect(partial.report.status).toBe("failed");

    // The failed job alone, again.
    failing = false;
    calls.length = 0;
    const again = await runShard(dir, { ...options, shard: { index: 2, count: 2 } });
    expect(again.status).toBe("success");
    expect(calls).toEqual(["d"]);
    const merged = await mergeShards(dir, options);
    expect(merged.missing).toEqual([]);
    expect(merged.report.status).toBe("success");
    expect(merged.report.pairs.map((p) => p.id).sort()).toEqual(["a", "b", "c", "d"]);
  });
});
