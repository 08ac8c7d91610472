/**
 * Shards on separate machines: each with its own workspace and its own copy of the shared store,
 * kept in step only by publishing and pulling outboxes through a transport (here a directory of
 * immutable entries, newest by key prefix, as the Actions cache keeps them). In-process.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { mergeShards, runShard } from "../../src/app/shard.js";
import type { Generator } from "../../src/model/ports.js";
import type { ShardSpec } from "../../src/model/shard.js";
import { sha256Hex } from "../../src/refs/hash.js";
import type { SharedStore, SharedSync } from "../../src/store/shared.js";
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
});
