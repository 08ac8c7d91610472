/**
 * Lock files that merge: the layout lets git's own merge combine changes to different pairs, and
 * `pairflow merge-lock` as a merge driver merges everything else pair by pair, tried with real git.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readLock } from "../../src/lockfile/lockfile.js";
import { mergeLocks } from "../../src/lockfile/merge.js";
import { serializeLock } from "../../src/lockfile/write.js";
import type { LockEntry, LockFile } from "../../src/model/records.js";
import { tempRepo } from "../helpers/fixtures.js";
import { sha256Hex } from "../../src/refs/hash.js";
import { CLI } from "../helpers/package.js";
import { scaled } from "../helpers/time.js";

const LOCK = "workflow.lock.json";

function entry(id: string, components: Record<string, string>, content = "c", acceptedAt = "2026-01-01T00:00:00.000Z"): LockEntry {
  const ref = Object.entries(components)
    .map(([k, v]) => `${k}=${v}`)
    .join(";");
  return {
    configRef: sha256Hex(`${id}:${ref}`),
    contentHash: sha256Hex(content),
    source: "generated",
    model: null,
    components,
    attempts: 1,
    tokens: { input: 0, output: 0 },
    durationMs: 1,
    acceptedAt,
  };
}

const lockOf = (pairs: Record<string, LockEntry>): LockFile => ({ version: 1, workflow: "w", pairs });

function git(dir: string, ...args: string[]): { status: number | null; out: string } {
  const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: dir, encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** A repository whose base commit holds `base`; branch `a` commits `a`, branch `b` commits `b`; then merges b into a. */
function mergeWithGit(base: LockFile, a: LockFile, b: LockFile, driver: boolean): { status: number | null; out: string; text: string; dir: string } {
  const dir = tempRepo();
  git(dir, "init", "-q", "-b", "main");
  if (driver) {
    writeFileSync(path.join(dir, ".gitattributes"), "*.lock.json merge=pairflow\n");
    git(dir, "config", "merge.pairflow.driver", `"${process.execPath}" "${CLI}" merge-lock %O %A %B %P`);
  }
  const commit = (lock: LockFile, message: string) => {
    writeFileSync(path.join(dir, LOCK), serializeLock(lock));
    git(dir, "add", "-A");
    expect(git(dir, "commit", "-q", "--allow-empty", "-m", message).status).toBe(0);
  };
  commit(base, "base");
  git(dir, "checkout", "-q", "-b", "b");
  commit(b, "b");
  git(dir, "checkout", "-q", "main");
  commit(a, "a");
  const r = git(dir, "merge", "-q", "--no-edit", "b");
  return { ...r, text: readFileSync(path.join(dir, LOCK), "utf8"), dir };
}

const ids = ["a", "b", "c", "d", "e", "f", "g", "h"];
const baseLock = lockOf(Object.fromEntries(ids.map((id) => [id, entry(id, { prompt: "p0", model: "m0" })])));

describe("the lock file's layout", () => {
  it("puts each pair on its own line with a comma line between entries, and reads back as the same lock file", () => {
    const text = serializeLock(baseLock);
    const lines = text.split("\n");
    expect(lines.slice(0, 4)).toEqual(["{", '  "version": 1,', '  "workflow": "w",', '  "pairs": {']);
    for (const [i, id] of ids.entries()) expect(lines[4 + 2 * i]).toMatch(new RegExp(`^    "${id}": \\{.*\\}$`));
    expect(lines.filter((l) => l === "    ,")).toHaveLength(ids.length - 1);
    expect(JSON.parse(text)).toEqual(baseLock);
  });

  it("still reads lock files written in the earlier, indented layout", () => {
    const dir = tempRepo({ [LOCK]: JSON.stringify(baseLock, null, 2) + "\n" });
    expect(readLock(path.join(dir, LOCK))).toEqual(baseLock);
  });

  it("lets plain git merge branches that changed different pairs, neighbours included, without a driver", { timeout: scaled(60_000) }, () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<"a" | "b" | null>("a", "b", null), { minLength: ids.length, maxLength: ids.length }), (sides) => {
        const a = structuredClone(baseLock);
        const b = structuredClone(baseLock);
        sides.forEach((side, i) => {
          const id = ids[i]!;
          if (side === "a") a.pairs[id] = entry(id, { prompt: "pa", model: "m0" }, "ca");
          if (side === "b") b.pairs[id] = entry(id, { prompt: "p0", model: "mb" }, "cb");
        });
        const merged = mergeWithGit(baseLock, a, b, false);
        expect(merged.status, merged.out).toBe(0);
        const expected = lockOf(Object.fromEntries(ids.map((id, i) => [id, (sides[i] === "b" ? b : a).pairs[id]!])));
        expect(JSON.parse(merged.text)).toEqual(expected);
      }),
      { numRuns: 12 },
    );
  });
});

describe("pairflow merge-lock as git's merge driver", () => {
  it("merges pairs added, removed and changed next to each other on the two branches", { timeout: scaled(30_000) }, () => {
    const a = structuredClone(baseLock);
    const b = structuredClone(baseLock);
    a.pairs.bb = entry("bb", { prompt: "new" }); // added between b and c
    delete a.pairs.e;
    b.pairs.b = entry("b", { prompt: "p0", model: "mb" }, "cb");
    b.pairs.c = entry("c", { prompt: "p0", model: "mb" }, "cb");
    b.pairs.f = entry("f", { prompt: "p0", model: "mb" }, "cb");
    b.pairs.z = entry("z", { prompt: "new" });
    const withoutDriver = mergeWithGit(baseLock, a, b, false);
    expect(withoutDriver.status).not.toBe(0); // what the driver is for

    const merged = mergeWithGit(baseLock, a, b, true);
    expect(merged.status, merged.out).toBe(0);
    expect(merged.text).toBe(serializeLock(JSON.parse(merged.text) as LockFile));
    const lock = JSON.parse(merged.text) as LockFile;
    expect(Object.keys(lock.pairs)).toEqual(["a", "b", "bb", "c", "d", "f", "g", "h", "z"]);
    expect(lock.pairs.b).toEqual(b.pairs.b);
    expect(lock.pairs.bb).toEqual(a.pairs.bb);
    expect(git(merged.dir, "status", "--porcelain").out).toBe("");
  });

  it("settles a pair both branches changed by the merged configuration: the side that has it, else dropped", { timeout: scaled(30_000) }, () => {
    const a = structuredClone(baseLock);
    const b = structuredClone(baseLock);
    // a: a new prompt; b ran the pair again under the old configuration (other content): the
    // merged configuration is a's, and a's entry is kept.
    a.pairs.a = entry("a", { prompt: "pa", model: "m0" }, "ca");
    b.pairs.a = entry("a", { prompt: "p0", model: "m0" }, "cb");
    // Each changed a different component: the merged configuration is one neither ran.
    a.pairs.b = entry("b", { prompt: "pa", model: "m0" }, "ca");
    b.pairs.b = entry("b", { prompt: "p0", model: "mb" }, "cb");
    // Both changed the same component differently.
    a.pairs.c = entry("c", { prompt: "pa", model: "m0" }, "ca");
    b.pairs.c = entry("c", { prompt: "pb", model: "m0" }, "cb");
    // The same configuration on both, different content: the later acceptance.
    a.pairs.d = entry("d", { prompt: "px", model: "m0" }, "ca", "2026-02-01T00:00:00.000Z");
    b.pairs.d = entry("d", { prompt: "px", model: "m0" }, "cb", "2026-03-01T00:00:00.000Z");
    // b changed the model; a changed the model the same way and the prompt too: a's is the merge.
    a.pairs.e = entry("e", { prompt: "pa", model: "mb" }, "ca");
    b.pairs.e = entry("e", { prompt: "p0", model: "mb" }, "cb");
    // Removed on a (the pair left a's workflow), changed on b.
    delete a.pairs.f;
    b.pairs.f = entry("f", { prompt: "pb", model: "m0" }, "cb");

    const merged = mergeWithGit(baseLock, a, b, true);
    expect(merged.status, merged.out).toBe(0);
    const lock = JSON.parse(merged.text) as LockFile;
    expect(lock.pairs.a).toEqual(a.pairs.a);
    expect(lock.pairs.b).toBeUndefined();
    expect(lock.pairs.c).toBeUndefined();
    expect(lock.pairs.d).toEqual(b.pairs.d);
    expect(lock.pairs.e).toEqual(a.pairs.e);
    expect(lock.pairs.f).toBeUndefined();
    expect(lock.pairs.g).toEqual(baseLock.pairs.g);
    expect(merged.out).toContain("workflow.lock.json: b: changed on both sides; dropped");
    expect(merged.text).not.toMatch(/<<<<<<<|>>>>>>>/);
  });

  it("leaves the file conflicted, and says why, when a version is not a lock file", () => {
    const a = structuredClone(baseLock);
    a.pairs.a = entry("a", { prompt: "pa", model: "m0" }, "ca");
    const dir = tempRepo();
    writeFileSync(path.join(dir, "base.json"), serializeLock(baseLock));
    writeFileSync(path.join(dir, "ours.json"), serializeLock(a));
    writeFileSync(path.join(dir, "theirs.json"), "<<<<<<< HEAD\n{}\n=======\n");
    const r = spawnSync(process.execPath, [CLI, "merge-lock", "base.json", "ours.json", "theirs.json", LOCK], { cwd: dir, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("workflow.lock.json (theirs)");
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(readFileSync(path.join(dir, "ours.json"), "utf8")).toBe(serializeLock(a));
  });
});

describe("mergeLocks", () => {
  const side = fc.dictionary(
    fc.constantFrom(...ids),
    fc.option(fc.record({ prompt: fc.constantFrom("p0", "p1", "p2"), model: fc.constantFrom("m0", "m1") }), { nil: undefined }),
  );
  const build = (changes: Record<string, { prompt: string; model: string } | undefined>, tag: string): LockFile => {
    const lock = structuredClone(baseLock);
    for (const [id, c] of Object.entries(changes)) {
      if (c === undefined) delete lock.pairs[id];
      else lock.pairs[id] = entry(id, c, tag);
    }
    return lock;
  };

  it("takes a one-sided change from its side, keeps only entries one side has, and is the same whichever side is ours", () => {
    fc.assert(
      fc.property(side, side, (ca, cb) => {
        const a = build(ca, "ca");
        const b = build(cb, "cb");
        const ab = mergeLocks(baseLock, a, b).lock;
        const ba = mergeLocks(baseLock, b, a).lock;
        expect(ab).toEqual(ba);
        for (const id of new Set([...ids, ...Object.keys(ab.pairs)])) {
          const got = ab.pairs[id];
          if (!(id in cb)) expect(got).toEqual(a.pairs[id]);
          else if (!(id in ca)) expect(got).toEqual(b.pairs[id]);
          else if (got !== undefined) expect([a.pairs[id], b.pairs[id]]).toContainEqual(got);
        }
      }),
      { numRuns: 300 },
    );
  });
});
