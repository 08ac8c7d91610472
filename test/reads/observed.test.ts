// What a traced run saw a pair's commands read, kept in the lock entry as `observed`: read and
// written as it was (and a lock file without it as before), merged with its entry, hashed into the
// pair's reference by the next plan, and named in its reasons when it changes.
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mergeLocks } from "../../src/lockfile/merge.js";
import { parseLock } from "../../src/lockfile/read.js";
import { serializeLock } from "../../src/lockfile/write.js";
import { writeLock } from "../../src/lockfile/lockfile.js";
import { ConfigError } from "../../src/model/errors.js";
import type { LockEntry, LockFile } from "../../src/model/records.js";
import { guardKey, requestKey } from "../../src/refs/request.js";
import { withObserved } from "../../src/refs/configRef.js";
import { tempRepo } from "../helpers/fixtures.js";
import { acceptAll, planOf } from "../helpers/state.js";

const HASH = "0".repeat(64);

function entry(extra: Partial<LockEntry> = {}): LockEntry {
  return {
    configRef: HASH,
    contentHash: HASH,
    source: "generated",
    model: null,
    components: { "observed:data/t.csv": "1234" },
    attempts: 1,
    tokens: { input: 0, output: 0 },
    durationMs: 1,
    acceptedAt: "2026-01-01T00:00:00.000Z",
    ...extra,
  };
}

const lockOf = (pairs: Record<string, LockEntry>): LockFile => ({ version: 1, workflow: "w", pairs });

describe("observed in the lock file", () => {
  it("is written after the entry's other fields only when there is any, and read back as written", () => {
    const text = serializeLock(lockOf({ a: entry({ observed: ["data/t.csv", "x y.txt"] }), b: entry(), c: entry({ observed: [] }) }));
    expect(text).toContain('"acceptedAt":"2026-01-01T00:00:00.000Z","observed":["data/t.csv","x y.txt"]}');
    expect(text.match(/observed"/g)).toHaveLength(1);
    const read = parseLock(text, "w.lock.json");
    expect(read.pairs.a!.observed).toEqual(["data/t.csv", "x y.txt"]);
    expect(read.pairs.b!.observed).toBeUndefined();
    expect(serializeLock(read)).toBe(text.replace(',"observed":[]', ""));
  });

  it("that is not a list of paths is an error at its place", () => {
    const text = serializeLock(lockOf({ a: entry() })).replace('"acceptedAt"', '"observed":[1],"acceptedAt"');
    expect(() => parseLock(text, "w.lock.json")).toThrow(ConfigError);
    expect(() => parseLock(text, "w.lock.json")).toThrow(/pairs\.a\.observed: the entry of pair "a" has an "observed" that is not a list of file paths/);
  });

  it("goes with its entry through a merge: one side's change is taken whole, an entry differing only in it is a change", () => {
    const base = lockOf({ a: entry() });
    const traced = lockOf({ a: entry({ observed: ["data/t.csv"] }) });
    expect(mergeLocks(base, base, traced).lock.pairs.a!.observed).toEqual(["data/t.csv"]);
    expect(mergeLocks(base, traced, base).lock.pairs.a!.observed).toEqual(["data/t.csv"]);
  });
});

describe("observed in the reference", () => {
  const files = {
    "workflow.yml":
      "name: w\ngenerator: command\naction_pairs:\n  a:\n    generator_config: {run: node gen.mjs}\n  b:\n    generator_config: {run: node gen.mjs}\n",
    "gen.mjs": "// reads data/t.csv, which nothing names\n",
    "data/t.csv": "1\n",
  };

  it("is hashed by the next plan: a change to the file, its removal and its return re-run the pair, naming it", async () => {
    const dir = tempRepo(files);
    const { lockPath } = await planOf(dir);
    // What a traced run of `a` records, kept across acceptances (acceptAll writes entries without it).
    const accept = async () => {
      const lock = await acceptAll(dir);
      writeLock(lockPath, { ...lock, pairs: { ...lock.pairs, a: { ...lock.pairs.a!, observed: ["data/t.csv", "../../outside.txt"] } } });
    };
    const reasons = async () => {
      const { plan } = await planOf(dir);
      return Object.fromEntries(plan.pairs.filter((p) => p.action === "run").map((p) => [p.id, p.reasons]));
    };
    await accept();
    // A path that leaves the repository is never hashed, whatever a lock file says.
    expect(Object.keys((await planOf(dir)).plan.byId.get("a")!.own.files!.observed!)).toEqual(["data/t.csv"]);
    expect(await reasons()).toEqual({
      a: [{ kind: "inputs", detail: "observed read: data/t.csv added", component: { kind: "observed", name: "data/t.csv" } }],
    });
    await accept();
    expect(await reasons()).toEqual({});
    const changed = { a: [{ kind: "inputs", detail: "observed read: data/t.csv changed", component: { kind: "observed", name: "data/t.csv" } }] };
    writeFileSync(path.join(dir, "data/t.csv"), "2\n");
    expect(await reasons()).toEqual(changed);
    await accept();
    rmSync(path.join(dir, "data/t.csv"));
    expect(await reasons()).toEqual(changed);
    await accept();
    expect(await reasons()).toEqual({});
    writeFileSync(path.join(dir, "data/t.csv"), "3\n");
    expect(await reasons()).toEqual(changed);
    // Back as it was when last accepted with it: that acceptance is reused.
    writeFileSync(path.join(dir, "data/t.csv"), "2\n");
    expect(await reasons()).toEqual({});
  });

  it("is in the request key and the guard's identity, which are as before for a pair with none", () => {
    const own = { generator: { name: "command", config: { run: "node gen.mjs" } }, files: { generator: { "gen.mjs": HASH } } };
    const input = { pair: { id: "a", generator: "command", model: null }, prompt: "p", dependencies: [], attempt: 1 };
    const seen = withObserved(own as never, { "data/t.csv": HASH });
    const changed = withObserved(own as never, { "data/t.csv": "1".repeat(64) });
    expect(withObserved(seen, {})).toEqual(own);
    expect(requestKey({ ...input, own: seen })).not.toBe(requestKey({ ...input, own: changed }));
    expect(requestKey({ ...input, own: withObserved(own as never, {}) })).toBe(requestKey({ ...input, own }));
    const guard = { guard: "command", guard_config: {}, files: own.files };
    expect(guardKey("a", { ...guard, files: seen.files })).not.toBe(guardKey("a", { ...guard, files: changed.files }));
    expect(guardKey("a", { ...guard, files: withObserved(own as never, {}).files })).toBe(guardKey("a", guard));
  });
});
