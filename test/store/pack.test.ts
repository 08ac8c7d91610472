/**
 * The store's packs: an invocation that writes many entries writes the rest to one pack of its own,
 * and whatever reads the store (a later run, prune) finds them as it finds files, the newest entry
 * winning; what a killed writer left torn is a miss, never a wrong answer.
 */
import { mkdtempSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { RequestEntry, StoreRecord } from "../../src/model/records.js";
import { prune } from "../../src/records/prune.js";
import { sha256Hex } from "../../src/refs/hash.js";
import { LocalStore, PACK_AFTER } from "../../src/store/local.js";

const ref = (n: number) => n.toString(16).padStart(64, "0");

function record(pair: string, configRef: string, contentHash: string, status: StoreRecord["status"] = "accepted"): StoreRecord {
  return { pair, configRef, status, contentHash, components: {}, at: "2026-01-01T00:00:00.000Z", source: "generated" };
}

function entry(contentHash: string, pair: string, verdicts: RequestEntry["verdicts"]): RequestEntry {
  return { contentHash, pair, configRef: ref(1), at: "2026-01-01T00:00:00.000Z", model: null, tokens: null, verdicts };
}

/** What a run of `pairs` pairs writes: each pair's content, its request's entry and its record. */
function writeRun(store: LocalStore, pairs: number, tag = ""): { hashes: string[] } {
  const hashes: string[] = [];
  for (let i = 0; i < pairs; i++) {
    const hash = store.putContent(`content of p${i}${tag}\n`);
    store.putRequest(sha256Hex(`request ${i}${tag}`), entry(hash, `p${i}`, { g: "accepted" }));
    store.putRecord(record(`p${i}`, ref(i), hash));
    hashes.push(hash);
  }
  return { hashes };
}

function storeDir(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), "pairflow-pack-")), "store");
}

const files = (dir: string, sub: string): string[] => {
  try {
    return readdirSync(path.join(dir, sub), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
  } catch {
    return [];
  }
};

describe("the store's packs", () => {
  it("hold what a run writes beyond its first entries, in one file, and a later invocation reads every entry back", () => {
    const dir = storeDir();
    const pairs = 200;
    const { hashes } = writeRun(new LocalStore(dir), pairs);
    // The first PACK_AFTER entries are files of their own; the rest went to one pack.
    expect(files(dir, "objects").length + files(dir, "pairs").length + files(dir, "requests").length).toBe(PACK_AFTER);
    expect(readdirSync(path.join(dir, "packs"))).toHaveLength(1);

    const later = new LocalStore(dir);
    for (let i = 0; i < pairs; i++) {
      expect(later.content(hashes[i]!)?.toString("utf8")).toBe(`content of p${i}\n`);
      expect(later.accepted(`p${i}`, ref(i))?.contentHash).toBe(hashes[i]);
      expect(later.requests(sha256Hex(`request ${i}`)).map((e) => e.contentHash)).toEqual([hashes[i]]);
      expect(later.generatedHashes(`p${i}`)).toEqual(new Set([hashes[i]]));
    }
    expect(later.record("p1", ref(2))).toBeUndefined();
    expect(later.hasContent(sha256Hex("never written\n"))).toBe(false);
  });

  it("give the newest entry: a record or request a pack holds is written to a pack again, never shadowed by a file", () => {
    const dir = storeDir();
    const first = new LocalStore(dir, { packAfter: 0 });
    const a = first.putContent("a\n");
    first.putRecord(record("p", ref(1), a, "rejected"));
    const key = sha256Hex("request");
    first.putRequest(key, entry(a, "p", { g: "rejected" }));
    first.close();

    // A small invocation, which writes files of its own, updates both.
    const second = new LocalStore(dir);
    const b = second.putContent("b\n");
    second.putRecord(record("p", ref(1), b));
    second.putRequest(key, entry(a, "p", { h: "accepted" }));
    second.close();

    const third = new LocalStore(dir);
    expect(third.accepted("p", ref(1))?.contentHash).toBe(b);
    expect(third.requests(key)).toEqual([entry(a, "p", { g: "rejected", h: "accepted" })]);
    expect(files(dir, "pairs")).toEqual([]);
    expect(readdirSync(path.join(dir, "packs"))).toHaveLength(2);
  });

  it("read an entry a killed writer left torn as missing, and everything before it whole", () => {
    const dir = storeDir();
    const store = new LocalStore(dir, { packAfter: 0 });
    const kept = store.putContent("kept\n");
    store.putRecord(record("kept", ref(1), kept));
    const torn = store.putContent("torn ".repeat(100));
    store.close();
    const [pack] = readdirSync(path.join(dir, "packs"));
    const file = path.join(dir, "packs", pack!);
    truncateSync(file, readFileSync(file).length - 50);

    const later = new LocalStore(dir, { packAfter: 0 });
    expect(later.content(kept)?.toString("utf8")).toBe("kept\n");
    expect(later.accepted("kept", ref(1))?.contentHash).toBe(kept);
    expect(later.hasContent(torn)).toBe(false);
    // Written again, it goes to a pack of its own, after the torn one.
    expect(later.putContent("torn ".repeat(100))).toBe(torn);
    later.close();
    expect(new LocalStore(dir).content(torn)?.toString("utf8")).toBe("torn ".repeat(100));
  });

  it("never give content that does not match its hash", () => {
    const dir = storeDir();
    const store = new LocalStore(dir, { packAfter: 0 });
    const hash = store.putContent("the real content\n");
    store.close();
    const [pack] = readdirSync(path.join(dir, "packs"));
    const file = path.join(dir, "packs", pack!);
    writeFileSync(file, readFileSync(file, "utf8").replace("the real content", "the fake content"));
    expect(new LocalStore(dir).content(hash)).toBeUndefined();
  });

  it("leave the older layout readable: files written before packs are read as ever", () => {
    const dir = storeDir();
    const { hashes } = writeRun(new LocalStore(dir, { packAfter: Infinity }), 100);
    expect(files(dir, "packs")).toEqual([]);
    const later = new LocalStore(dir);
    expect(later.content(hashes[99]!)?.toString("utf8")).toBe("content of p99\n");
    expect(later.accepted("p99", ref(99))?.contentHash).toBe(hashes[99]);
    expect(later.requests(sha256Hex("request 99")).map((e) => e.contentHash)).toEqual([hashes[99]]);
  });

  it("are pruned as files are: what nothing refers to goes, what a lock file names and every request entry stay", () => {
    const stateDir = path.dirname(storeDir());
    const dir = path.join(stateDir, "store");
    const store = new LocalStore(dir, { packAfter: 0 });
    const { hashes } = writeRun(store, 10);
    store.close();
    const lockFile = path.join(stateDir, "..", "workflow.lock.json");
    const lockEntry = (i: number) => ({
      configRef: ref(i),
      contentHash: hashes[i],
      source: "generated",
      model: null,
      components: {},
      attempts: 1,
      tokens: { input: 0, output: 0 },
      durationMs: 1,
      acceptedAt: "2026-01-01T00:00:00.000Z",
    });
    const pairs = Object.fromEntries([0, 1, 2].map((i) => [`p${i}`, lockEntry(i)]));
    writeFileSync(lockFile, JSON.stringify({ version: 1, workflow: "w", pairs }));
    const before = readFileSync(path.join(dir, "packs", readdirSync(path.join(dir, "packs"))[0]!));

    // Written since the prune began: kept whole.
    expect(prune(stateDir, { lockFiles: [lockFile], startedAt: Date.now() - 60_000 })).toMatchObject({ records: [], objects: [] });
    const later = Date.now() + 60_000;
    const dry = prune(stateDir, { lockFiles: [lockFile], startedAt: later, dryRun: true });
    expect(dry.records.map((r) => r.pair).sort()).toEqual(["p3", "p4", "p5", "p6", "p7", "p8", "p9"]);
    expect(dry.objects.map((o) => o.hash).sort()).toEqual(hashes.slice(3).sort());
    expect(readFileSync(path.join(dir, "packs", readdirSync(path.join(dir, "packs"))[0]!))).toEqual(before);

    const real = prune(stateDir, { lockFiles: [lockFile], startedAt: later });
    expect({ ...real, dryRun: true }).toEqual(dry);
    const after = new LocalStore(dir);
    for (let i = 0; i < 10; i++) {
      expect(after.accepted(`p${i}`, ref(i))?.contentHash).toBe(i < 3 ? hashes[i] : undefined);
      expect(after.content(hashes[i]!)?.toString("utf8")).toBe(i < 3 ? `content of p${i}\n` : undefined);
      expect(after.requests(sha256Hex(`request ${i}`)).map((e) => e.contentHash)).toEqual([hashes[i]]);
    }
    expect(prune(stateDir, { lockFiles: [lockFile], startedAt: later })).toMatchObject({ records: [], objects: [], kept: { records: 3, objects: 3 } });
  });
});
