/**
 * The action with the GitHub Actions cache as its store, run as a runner runs it, against a
 * loopback cache service driven by the real @actions/cache client: one snapshot per run (a
 * manifest and a content pack), restored in one round trip, saved once at the end. The workflow is
 * examples/tdd-stack with its model as a shell script (./tddStack.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readLock } from "../../src/lockfile/lockfile.js";
import { tddStack } from "./tddStack.js";
import { FakeCacheService, type Entry, type Fault, type InProgressAnswer } from "./fakeCacheService.js";
import { runAction, type ActionResult } from "./runner.js";
import { scaled } from "../helpers/time.js";

const PAIRS = ["g_test", "g_impl", "g_review"];
const ids = (result: ActionResult, output: string) => JSON.parse(result.outputs[output]!) as string[];
const planOf = (result: ActionResult) =>
  JSON.parse(result.outputs.plan!) as { pairs: { id: string; action: string; configRef: string | null; reasons: { kind: string; detail: string }[] }[] };

let cache: FakeCacheService;
beforeEach(async () => {
  cache = await new FakeCacheService().start();
});
afterEach(async () => {
  await cache.close();
});

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(file, text.replace(from, to));
}

describe("the Actions cache as the artifact store", { timeout: scaled(120_000) }, () => {
  it("saves one snapshot per run, and a fresh workspace restores it in two downloads and executes nothing", async () => {
    const first = tddStack();
    const run1 = await runAction({ workspace: first, cache });
    expect(run1.code).toBe(0);
    expect(ids(run1, "executed")).toEqual(PAIRS);
    expect(run1.warnings).toEqual([]);
    // One manifest and one pack, whatever the number of pairs.
    expect(cache.states()).toHaveLength(1);
    expect(cache.packs()).toHaveLength(1);
    expect(cache.uploads()).toBe(2);
    const manifest = manifestOf(cache.states()[0]!);
    const lock = readLock(path.join(first, "workflow.lock.json"))!;
    for (const id of PAIRS) expect(manifest.artifacts[id]).toMatchObject({ configRef: lock.pairs[id]!.configRef, contentHash: lock.pairs[id]!.contentHash });
    expect(Object.keys(filesOf(cache.packs()[0]!)).sort()).toEqual(
      Object.values(manifest.artifacts)
        .map((r) => r.contentHash)
        .sort(),
    );
    expect(run1.summary).toContain("0 restored, 3 saved");

    // Another job: same commit, empty workspace (no lock file, no outputs, no .pairflow/).
    const second = tddStack();
    cache.calls.length = 0;
    const run2 = await runAction({ workspace: second, cache });
    expect(run2.code).toBe(0);
    expect(ids(run2, "executed")).toEqual([]);
    expect(ids(run2, "reused")).toEqual(PAIRS);
    expect(run2.warnings).toEqual([]);
    for (const file of ["out/test_stack.py", "out/stack.py", "out/review.md"]) {
      expect(readFileSync(path.join(second, file), "utf8")).toBe(readFileSync(path.join(first, file), "utf8"));
    }
    expect(cache.downloads()).toBe(2);
    // Nothing changed: nothing saved.
    expect(cache.twirpCalls("CreateCacheEntry")).toEqual([]);
    expect(run2.summary).toContain("3 restored, 0 saved");
    expect(run2.stdout).toMatch(/restored\s+g_impl from the GitHub Actions cache/);

    // A change to one pair: one new snapshot holding every pair, the old artifact of that pair pruned.
    const third = tddStack();
    edit(path.join(third, "prompts.yml"), "Review the implementation against", "Review the implementation versus");
    const run3 = await runAction({ workspace: third, cache });
    expect(ids(run3, "executed")).toEqual(["g_review"]);
    expect(cache.states()).toHaveLength(2);
    const newest = manifestOf(cache.states()[1]!);
    expect(Object.keys(newest.artifacts).sort()).toEqual([...PAIRS].sort());
    expect(newest.artifacts.g_review!.configRef).not.toBe(manifest.artifacts.g_review!.configRef);
    expect(newest.artifacts.g_test).toEqual(manifest.artifacts.g_test);
    // The pack holds the artifacts and what the request index keeps: the old review stays there, to
    // answer its request again if the change is reverted.
    const indexed = Object.values(newest.requests ?? {}).flatMap((entries) => entries.map((e) => e.contentHash));
    expect(indexed).toContain(manifest.artifacts.g_review!.contentHash);
    expect(Object.keys(filesOf(cache.packs()[1]!)).sort()).toEqual(
      [...new Set([...Object.values(newest.artifacts).map((r) => r.contentHash!), ...indexed])].sort(),
    );

    const fourth = tddStack();
    edit(path.join(fourth, "prompts.yml"), "Review the implementation against", "Review the implementation versus");
    const run4 = await runAction({ workspace: fourth, cache });
    expect(ids(run4, "executed")).toEqual([]);
    expect(readFileSync(path.join(fourth, "out/review.md"), "utf8")).toBe(readFileSync(path.join(third, "out/review.md"), "utf8"));
  });

  it("treats another job having saved the same pack first as saved", async () => {
    await runAction({ workspace: tddStack(), cache });
    // The manifest goes (evicted, say); the pack of the same contents stays.
    cache.entries.splice(cache.entries.indexOf(cache.states()[0]!), 1);
    cache.calls.length = 0;
    const again = await runAction({ workspace: tddStack(), cache });
    expect(again.code).toBe(0);
    expect(ids(again, "executed")).toEqual(PAIRS);
    expect(cache.twirpCalls("CreateCacheEntry")).toHaveLength(2); // the pack, refused with 409; the manifest
    expect(again.warnings).toEqual([]);
    expect(cache.states()).toHaveLength(1);
    expect(again.summary).toContain("3 saved, 1 already saved by another job");
  });

  it("detects content that does not match its hash, warns, runs that pair again, and saves a sound pack", async () => {
    const first = tddStack();
    await runAction({ workspace: first, cache });
    const pack = cache.packs()[0]!;
    pack.blob = tamper(pack.blob!, "class Stack:", "class Stick:");

    const second = tddStack();
    const run2 = await runAction({ workspace: second, cache });
    expect(run2.code).toBe(0);
    expect(run2.warnings).toHaveLength(1);
    expect(run2.warnings[0]).toContain(`the GitHub Actions cache entry ${pack.key} is damaged (the content of g_impl does not match its hash)`);
    expect(ids(run2, "executed")).toEqual(["g_impl"]);
    expect(ids(run2, "reused")).toEqual(["g_test", "g_review"]);
    // The damaged content was never used.
    expect(readFileSync(path.join(second, "out/stack.py"), "utf8")).toBe(readFileSync(path.join(first, "out/stack.py"), "utf8"));
    // The same contents went up under a fresh key, so the next job finds them sound.
    expect(cache.packs()).toHaveLength(2);
    // And stays so: no later job goes back to the damaged key.
    for (let n = 0; n < 2; n++) {
      const later = await runAction({ workspace: tddStack(), cache });
      expect(later.warnings).toEqual([]);
      expect(ids(later, "executed")).toEqual([]);
      expect(manifestOf(cache.states().at(-1)!).pack).not.toBe(pack.key.slice("pairflow-pack-".length));
    }
  });

  it("in plan mode downloads the manifest only and plans exactly what a run will do", async () => {
    const run1 = await runAction({ workspace: tddStack(), cache });
    const testRef = planOf(run1).pairs[0]!.configRef;
    cache.calls.length = 0;

    const workspace = tddStack();
    const plan = await runAction({ workspace, cache, with: { mode: "plan" } });
    expect(plan.code).toBe(0);
    expect(cache.downloads()).toBe(1);
    const pairs = planOf(plan).pairs;
    expect(pairs.map((p) => [p.id, p.action])).toEqual(PAIRS.map((id) => [id, "skip"]));
    expect(pairs[0]!.configRef).toBe(testRef);
    expect(pairs.every((p) => /^[0-9a-f]{64}$/.test(p.configRef ?? ""))).toBe(true);
    expect(plan.summary).toContain("3 of 3 artifacts looked up found there");
    expect(ids(plan, "executed")).toEqual([]);

    const run2 = await runAction({ workspace, cache });
    expect(ids(run2, "executed")).toEqual([]);
    expect(ids(run2, "reused")).toEqual(PAIRS);
  });

  it("plans a changed prompt with its reasons, as against a lock file, where none is committed", async () => {
    await runAction({ workspace: tddStack(), cache });
    const workspace = tddStack();
    edit(path.join(workspace, "prompts.yml"), "task: Implement the Stack class.", "task: Implement the Stack class with a list.");
    const plan = await runAction({ workspace, cache, with: { mode: "plan" } });
    const pairs = planOf(plan).pairs;
    expect(pairs.map((p) => [p.id, p.action])).toEqual([
      ["g_test", "skip"],
      ["g_impl", "run"],
      ["g_review", "run"],
    ]);
    expect(pairs[1]!.reasons).toEqual([{ kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt", name: "task" } }]);
    expect(pairs[2]!.reasons.map((r) => r.kind)).toEqual(["upstream"]);
    const run = await runAction({ workspace, cache });
    expect(ids(run, "executed")).toEqual(["g_impl", "g_review"]);
  });
});

/** The answers a reservation of a pack another job is still uploading may get. */
const IN_PROGRESS: [string, InProgressAnswer][] = [
  ["409 already_exists, as GitHub answers", { code: "already_exists" }],
  ["ok: false without a message", { ok: false, message: "" }],
  ["ok: false saying the upload is in progress", { ok: false, message: "an upload of this cache entry is in progress" }],
];

describe("a pack another job is still uploading", { timeout: scaled(120_000) }, () => {
  it.each(IN_PROGRESS)("counts as saved: this job's manifest is saved, and the next job reuses everything (%s)", async (_, answer) => {
    cache.inProgressAnswer = answer;
    const held = cache.holdUpload(/^pairflow-pack-/);
    const other = runAction({ workspace: tddStack(), cache });
    const pack = await held.arrived;

    const run = await runAction({ workspace: tddStack(), cache });
    expect(run.code).toBe(0);
    expect(run.warnings).toEqual([]);
    expect(run.summary).toContain("3 saved, 1 already saved by another job");
    expect(cache.states()).toHaveLength(1);
    const mine = cache.states()[0]!;
    expect(`pairflow-pack-${manifestOf(mine).pack}`).toBe(pack.key);

    held.finish();
    expect((await other).code).toBe(0);
    expect(cache.packs().map((p) => p.key)).toEqual([pack.key]);
    // The other job's manifest goes (evicted, say): the next job has this one's only.
    cache.entries.splice(cache.entries.indexOf(cache.states().find((e) => e !== mine)!), 1);
    cache.calls.length = 0;
    const next = await runAction({ workspace: tddStack(), cache });
    expect(next.warnings).toEqual([]);
    expect(ids(next, "executed")).toEqual([]);
    expect(ids(next, "reused")).toEqual(PAIRS);
    expect(cache.downloads()).toBe(2);
  });

  it.each(IN_PROGRESS.slice(0, 2))(
    "whose upload never finishes: the next job runs the pairs, never fails, and saves their contents under a fresh key (%s)",
    async (_, answer) => {
      cache.inProgressAnswer = answer;
      const held = cache.holdUpload(/^pairflow-pack-/);
      // The other job is lost in the middle of its upload: the pack's key stays taken, never finalized.
      const other = await runAction({ workspace: tddStack(), cache, killWhen: held.arrived });
      expect(other.code).not.toBe(0);
      const lost = cache.entries.find((e) => e.key.startsWith("pairflow-pack-"))!;
      expect(lost.finalized).toBe(false);

      const run = await runAction({ workspace: tddStack(), cache });
      expect(run.warnings).toEqual([]);
      expect(manifestOf(cache.states()[0]!).pack).toBe(lost.key.slice("pairflow-pack-".length));

      const next = await runAction({ workspace: tddStack(), cache });
      expect(next.code).toBe(0);
      expect(next.warnings).toHaveLength(1);
      expect(next.warnings[0]).toContain(`the GitHub Actions cache has the workflow's state but not its contents (${lost.key}`);
      expect(ids(next, "executed")).toEqual(PAIRS);
      // The newest manifest names a pack that was saved.
      const newest = manifestOf(cache.states().at(-1)!);
      expect(cache.entry(`pairflow-pack-${newest.pack}`)).toBeDefined();

      // And stays so: no later job goes back to the lost key.
      for (let n = 0; n < 2; n++) {
        const after = await runAction({ workspace: tddStack(), cache });
        expect(after.warnings).toEqual([]);
        expect(ids(after, "executed")).toEqual([]);
        expect(ids(after, "reused")).toEqual(PAIRS);
        expect(cache.entry(`pairflow-pack-${manifestOf(cache.states().at(-1)!).pack}`)).toBeDefined();
      }
    },
  );
});

describe("when the cache cannot be used, the run goes on with the local store", { timeout: scaled(120_000) }, () => {
  it("a read-only token, as a fork's pull request gets: restores work, the refused save is one warning", async () => {
    await runAction({ workspace: tddStack(), cache, with: { only: "g_test" } });
    const result = await runAction({ workspace: tddStack(), cache, readOnlyToken: true });
    expect(result.code).toBe(0);
    expect(ids(result, "reused")).toEqual(["g_test"]);
    expect(ids(result, "executed")).toEqual(["g_impl", "g_review"]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain("cache write denied: token has no writable scopes");
    expect(cache.twirpCalls("CreateCacheEntry")).toHaveLength(3); // the first run's pack and manifest, then one refused
  });

  const refusals: [string, Fault | null, Record<string, string>][] = [
    ["403 saying why", { code: "permission_denied", msg: "Resource not accessible by integration", methods: ["CreateCacheEntry"] }, {}],
    ["403 without a message", { code: "permission_denied", msg: "", methods: ["CreateCacheEntry"] }, {}],
    ["403 saying the token lacks a scope", { code: "permission_denied", msg: "token lacks the actions:write scope", methods: ["CreateCacheEntry"] }, {}],
    ["the runner's cache mode: read", null, { ACTIONS_CACHE_MODE: "read" }],
  ];
  it.each(refusals)("a save refused with %s is reported as denied, once, in the log and the summary", async (_, fault, env) => {
    await runAction({ workspace: tddStack(), cache, with: { only: "g_test" } });
    const before = cache.twirpCalls("CreateCacheEntry").length;
    cache.fault = fault;
    const result = await runAction({ workspace: tddStack(), cache, env });
    expect(result.code).toBe(0);
    expect(ids(result, "reused")).toEqual(["g_test"]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/^the GitHub Actions cache does not take saves from this job \(.+\); restoring still works/);
    expect(result.warnings[0]).not.toContain("another job");
    expect(result.summary).toContain("Saving denied: the cache does not take saves from this job");
    // Nothing more is tried after the first refusal.
    expect(cache.twirpCalls("CreateCacheEntry").length - before).toBeLessThanOrEqual(1);
  });

  it("no cache service: a warning, and the run succeeds", async () => {
    const result = await runAction({ workspace: tddStack() });
    expect(result.code).toBe(0);
    expect(ids(result, "executed")).toEqual(PAIRS);
    expect(result.warnings).toEqual([
      "no GitHub Actions cache service is available to this job (the runner provides none); going on with the local store only",
    ]);
  });

  it("cache: false asks nothing and warns of nothing", async () => {
    const result = await runAction({ workspace: tddStack(), cache, with: { cache: "false" } });
    expect(result.code).toBe(0);
    expect(result.warnings).toEqual([]);
    expect(cache.calls).toEqual([]);
    expect(result.summary).toContain("GitHub Actions cache: off (input `cache: false`).");
  });
});

interface Manifest {
  artifacts: Record<string, { configRef: string; contentHash: string }>;
  requests?: Record<string, { contentHash: string }[]>;
}

function manifestOf(entry: Entry): Manifest & { pack: string } {
  return JSON.parse(filesOf(entry)["manifest.json"]!) as Manifest & { pack: string };
}

/** The files of an entry's archive, by name. */
export function filesOf(entry: Entry): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-entry-"));
  const tar = spawnSync(...unpacker(entry.blob!), { input: entry.blob! }).stdout;
  spawnSync("tar", ["-x", "-C", dir], { input: tar });
  const files: Record<string, string> = {};
  for (const sub of [".pairflow/cache/state", ".pairflow/cache/pack"]) {
    let names: string[] = [];
    try {
      names = readdirSync(path.join(dir, sub));
    } catch {
      continue;
    }
    for (const name of names) files[name] = readFileSync(path.join(dir, sub, name), "utf8");
  }
  return files;
}

function isZstd(archive: Buffer): boolean {
  return archive.subarray(0, 4).equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
}

function unpacker(archive: Buffer): [string, string[]] {
  return isZstd(archive) ? ["zstd", ["-d", "-c"]] : ["gzip", ["-d", "-c"]];
}

/**
 * The entry's archive with one text replaced by another of the same length inside the tar: the
 * archive stays valid (tar checks its headers, not file data), the content no longer matches its
 * hash. The archive is zstd-compressed when the machine has zstd, as the client chooses.
 */
function tamper(archive: Buffer, from: string, to: string): Buffer {
  const tar = spawnSync(...unpacker(archive), { input: archive }).stdout;
  const at = tar.indexOf(from);
  if (at < 0 || from.length !== to.length) throw new Error(`cannot tamper: ${from} not in the archive`);
  tar.write(to, at);
  return isZstd(archive) ? spawnSync("zstd", ["-c"], { input: tar }).stdout : spawnSync("gzip", ["-c"], { input: tar }).stdout;
}
