/**
 * The snapshot's data rules, on random states: what a snapshot keeps (pruning), how its pack is
 * named (content-addressed), and that a manifest read back is the one written, or refused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LockEntry, LockFile, StoreRecord } from "../../src/model/records.js";
import { currentArtifacts, lockEntryOf, manifestLock, packDigest, parseManifest, recordOfLockEntry, type SnapshotManifest } from "../../src/store/snapshot.js";

const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const pairId: fc.Arbitrary<string> = fc.constantFrom("a", "b", "c", "d", "e", "f");

const lockEntry = (source: fc.Arbitrary<"generated" | "human">) =>
  fc.record<LockEntry>({
    configRef: hex,
    contentHash: hex,
    source,
    model: fc.option(fc.constantFrom("m1", "m2"), { nil: null }),
    components: fc.dictionary(fc.constantFrom("prompt", "model", "guard"), fc.stringMatching(/^[0-9a-f]{12}$/)),
    attempts: fc.nat(5),
    tokens: fc.record({ input: fc.nat(1000), output: fc.nat(1000) }),
    durationMs: fc.nat(10_000),
    acceptedAt: fc.constant("2026-11-22T08:00:00.000Z"),
  });

const records = fc
  .dictionary(pairId, lockEntry(fc.constant("generated")))
  .map((entries) => Object.fromEntries(Object.entries(entries).map(([id, e]) => [id, recordOfLockEntry(id, e)])));
const lockFile = fc.option(
  fc.dictionary(pairId, lockEntry(fc.constantFrom("generated", "human"))).map((pairs): LockFile => ({ version: 1, workflow: "w", pairs })),
  { nil: null },
);
const pairSet = fc.uniqueArray(pairId).map((ids) => new Set(ids));

describe("a snapshot's artifacts", () => {
  it("are the lock file's generated entries, else the previous snapshot's, for the workflow's pairs only", () => {
    fc.assert(
      fc.property(records, lockFile, pairSet, (previous, lock, pairs) => {
        const current = currentArtifacts(previous, lock, pairs);
        for (const [id, r] of Object.entries(current)) {
          expect(pairs.has(id)).toBe(true);
          expect(r.pair).toBe(id);
          expect(r.source).not.toBe("human");
        }
        for (const id of pairs) {
          const entry = lock?.pairs[id];
          if (entry?.source === "generated") expect(current[id]).toEqual(recordOfLockEntry(id, entry));
          else if (entry?.source === "human") expect(current[id]).toBeUndefined();
          else expect(current[id]).toEqual(previous[id]);
        }
      }),
    );
  });

  it("make a lock file entry and a record of each other without loss", () => {
    fc.assert(
      fc.property(lockEntry(fc.constantFrom("generated", "human")), (e) => {
        expect(lockEntryOf(recordOfLockEntry("a", e))).toEqual(e);
      }),
    );
  });
});

describe("a pack's digest", () => {
  it("depends only on the set of contents, and a salt gives another", () => {
    fc.assert(
      fc.property(records, fc.string(), (artifacts, salt) => {
        const shuffled = Object.fromEntries(Object.entries(artifacts).reverse());
        expect(packDigest(shuffled)).toBe(packDigest(artifacts));
        // The same contents under other pairs and references: the same pack.
        const renamed = Object.fromEntries(Object.values(artifacts).map((r, i) => [`x${i}`, { ...r, pair: `x${i}`, configRef: "0".repeat(64) }]));
        expect(packDigest(renamed)).toBe(packDigest(artifacts));
        if (Object.keys(artifacts).length === 0) expect(packDigest(artifacts)).toBeNull();
        else expect(packDigest(artifacts, salt)).not.toBe(packDigest(artifacts));
      }),
    );
  });
});

describe("a manifest read back", () => {
  const manifestOf = (artifacts: Record<string, StoreRecord>): SnapshotManifest => ({
    version: 2,
    name: "w",
    writer: "42.1.abc",
    seq: 1,
    at: "2026-11-22T08:00:00.000Z",
    pack: packDigest(artifacts),
    artifacts,
  });

  it("is the one written, and serves as a lock file of the same entries", () => {
    fc.assert(
      fc.property(records, (artifacts) => {
        const m = manifestOf(artifacts);
        expect(parseManifest(JSON.stringify(m))).toEqual(m);
        const lock = manifestLock(m);
        expect(Object.keys(lock.pairs).sort()).toEqual(Object.keys(artifacts).sort());
        for (const [id, r] of Object.entries(artifacts)) expect(recordOfLockEntry(id, lock.pairs[id]!)).toEqual(r);
      }),
    );
  });

  it("is refused when an artifact's content hash is not the one its pack was named for", () => {
    fc.assert(
      fc.property(
        records.filter((a) => Object.keys(a).length > 0),
        hex,
        (artifacts, other) => {
          const m = manifestOf(artifacts);
          const id = Object.keys(artifacts)[0]!;
          fc.pre(artifacts[id]!.contentHash !== other && !Object.values(artifacts).some((r) => r.contentHash === other));
          const tampered = { ...m, artifacts: { ...artifacts, [id]: { ...artifacts[id]!, contentHash: other } } };
          expect(parseManifest(JSON.stringify(tampered))).toBe("its manifest's pack does not match its artifacts");
        },
      ),
    );
  });

  it("is refused, saying why, when it is not a manifest", () => {
    expect(parseManifest("{")).toMatch(/^its manifest is not JSON/);
    expect(parseManifest('{"version": 3}')).toBe("its manifest is not of version 1 or 2");
    const human = {
      ...manifestOf({}),
      artifacts: { a: { pair: "a", configRef: "0".repeat(64), status: "accepted", contentHash: "1".repeat(64), source: "human", components: {} } },
    };
    expect(parseManifest(JSON.stringify(human))).toBe("its manifest's entry for a is not an accepted artifact");
  });
});
