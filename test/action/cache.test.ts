/**
 * The action with the GitHub Actions cache as its store, run as a runner runs it, against a
 * loopback cache service driven by the real @actions/cache client.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readLock } from "../../src/lockfile/lockfile.js";
import { copyToTempRepo, REPO } from "../helpers/fixtures.js";
import { FakeCacheService } from "./fakeCacheService.js";
import { runAction, type ActionResult } from "./runner.js";

const EXAMPLE = path.join(REPO, "examples/tdd-stack");
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

describe("the Actions cache as the artifact store", () => {
  it("saves every accepted artifact on a first run, and a second run in a fresh workspace restores them and executes nothing", async () => {
    const first = copyToTempRepo(EXAMPLE);
    const run1 = await runAction({ workspace: first, cache });
    expect(run1.code).toBe(0);
    expect(ids(run1, "executed")).toEqual(PAIRS);
    expect(run1.warnings).toEqual([]);
    // One entry per pair, under <prefix>-<pair id>-<configRef>.
    const refs = Object.fromEntries(planOf(run1).pairs.map((p) => [p.id, p.configRef]));
    expect(refs.g_test).toMatch(/^[0-9a-f]{64}$/);
    const g_test = cache.entry(`pairflow-g_test-${refs.g_test}`);
    expect(g_test).toBeDefined();
    expect(cache.finalized().map((e) => e.key.replace(/-[0-9a-f]{64}$/, ""))).toEqual(PAIRS.map((p) => `pairflow-${p}`));
    expect(run1.summary).toContain("0 restored, 3 saved");

    // Another job: same commit, empty workspace (no lock file, no outputs, no .pairflow/).
    const second = copyToTempRepo(EXAMPLE);
    cache.calls.length = 0;
    const run2 = await runAction({ workspace: second, cache });
    expect(run2.code).toBe(0);
    expect(ids(run2, "executed")).toEqual([]);
    expect(ids(run2, "reused")).toEqual(PAIRS);
    expect(run2.warnings).toEqual([]);
    for (const file of ["out/test_stack.py", "out/stack.py", "out/review.md"]) {
      expect(readFileSync(path.join(second, file), "utf8")).toBe(readFileSync(path.join(first, file), "utf8"));
    }
    expect(cache.twirpCalls("CreateCacheEntry")).toEqual([]);
    expect(cache.calls.filter((c) => c.startsWith("GET blob"))).toHaveLength(3);
    expect(run2.summary).toContain("3 restored, 0 saved");
    expect(run2.stdout).toMatch(/restored\s+g_impl from the GitHub Actions cache/);
  });

  it("treats another job having saved the same key first as saved", async () => {
    await runAction({ workspace: copyToTempRepo(EXAMPLE), cache });
    const again = await runAction({ workspace: copyToTempRepo(EXAMPLE), cache, with: { force: "true" } });
    expect(again.code).toBe(0);
    expect(ids(again, "executed")).toEqual(PAIRS);
    expect(cache.twirpCalls("CreateCacheEntry")).toHaveLength(6); // three saved, three refused with 409
    expect(again.warnings).toEqual([]);
    expect(again.summary).toContain("0 saved, 3 already saved by another job");
  });

  it("detects an entry whose content does not match its hash, warns, and runs that pair again", async () => {
    const first = copyToTempRepo(EXAMPLE);
    await runAction({ workspace: first, cache });
    const implRef = readLock(path.join(first, "workflow.lock.json"))!.pairs.g_impl!.configRef;
    const entry = cache.entry(`pairflow-g_impl-${implRef}`)!;
    entry.blob = tamper(entry.blob!, "class Stack:", "class Stick:");

    const second = copyToTempRepo(EXAMPLE);
    const run2 = await runAction({ workspace: second, cache });
    expect(run2.code).toBe(0);
    expect(run2.warnings).toHaveLength(1);
    expect(run2.warnings[0]).toContain(`the GitHub Actions cache entry pairflow-g_impl-${implRef} is damaged (its content does not match its hash)`);
    expect(ids(run2, "executed")).toContain("g_impl");
    expect(ids(run2, "reused")).toContain("g_test");
    // The damaged content was never used.
    expect(readFileSync(path.join(second, "out/stack.py"), "utf8")).toBe(readFileSync(path.join(first, "out/stack.py"), "utf8"));
  });

  it("in plan mode plans exactly what a run will do: the entries it finds make every pair skip, and the run executes nothing", async () => {
    const run1 = await runAction({ workspace: copyToTempRepo(EXAMPLE), cache });
    const testRef = planOf(run1).pairs[0]!.configRef;
    cache.calls.length = 0;

    const workspace = copyToTempRepo(EXAMPLE);
    const plan = await runAction({ workspace, cache, with: { mode: "plan" } });
    expect(plan.code).toBe(0);
    const pairs = planOf(plan).pairs;
    expect(pairs.map((p) => [p.id, p.action])).toEqual(PAIRS.map((id) => [id, "skip"]));
    // Every reference is known: the restored content of each pair makes its dependents' references exact.
    expect(pairs[0]!.configRef).toBe(testRef);
    expect(pairs.every((p) => /^[0-9a-f]{64}$/.test(p.configRef ?? ""))).toBe(true);
    expect(plan.summary).toContain("3 of 3 artifacts looked up found there");
    expect(plan.summary).toMatch(/\| `g_test` \| skip \| unchanged \(accepted artifact in the remote store\) \|/);
    expect(ids(plan, "executed")).toEqual([]);

    const run2 = await runAction({ workspace, cache });
    expect(ids(run2, "executed")).toEqual([]);
    expect(ids(run2, "reused")).toEqual(PAIRS);
  });
});

describe("when the cache cannot be used, the run goes on with the local store", () => {
  it("a rate limit (429): one warning, no more requests, every pair executed", async () => {
    cache.fault = { code: "resource_exhausted", msg: "too many requests", headers: { "retry-after": "60" } };
    const result = await runAction({ workspace: copyToTempRepo(EXAMPLE), cache });
    expect(result.code).toBe(0);
    expect(ids(result, "executed")).toEqual(PAIRS);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(
      /^the GitHub Actions cache is not usable \(restoring pairflow-g_test-[0-9a-f]{64}: .*429.*\); going on with the local store only/,
    );
    expect(cache.calls).toHaveLength(1);
  });

  it("a rate limit when saving: one warning naming it, and the run succeeds", async () => {
    cache.fault = { code: "resource_exhausted", msg: "too many requests", methods: ["CreateCacheEntry"] };
    const result = await runAction({ workspace: copyToTempRepo(EXAMPLE), cache });
    expect(result.code).toBe(0);
    expect(ids(result, "executed")).toEqual(PAIRS);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/^the GitHub Actions cache is not usable \(saving pairflow-g_test-[0-9a-f]{64}: .*\(429\) Too Many Requests/);
    expect(cache.twirpCalls("CreateCacheEntry")).toHaveLength(1);
  });

  it("a read-only token, as a fork's pull request gets: restores work, the refused save is one warning", async () => {
    await runAction({ workspace: copyToTempRepo(EXAMPLE), cache, with: { only: "g_test" } });
    const result = await runAction({ workspace: copyToTempRepo(EXAMPLE), cache, readOnlyToken: true });
    expect(result.code).toBe(0);
    expect(ids(result, "reused")).toEqual(["g_test"]);
    expect(ids(result, "executed")).toEqual(["g_impl", "g_review"]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain("cache write denied: token has no writable scopes");
    expect(cache.twirpCalls("CreateCacheEntry")).toHaveLength(2); // g_test's from the first run, then one refused
  });

  it("no cache service: a warning, and the run succeeds", async () => {
    const result = await runAction({ workspace: copyToTempRepo(EXAMPLE) });
    expect(result.code).toBe(0);
    expect(ids(result, "executed")).toEqual(PAIRS);
    expect(result.warnings).toEqual([
      "no GitHub Actions cache service is available to this job (the runner provides none); going on with the local store only",
    ]);
  });

  it("cache: false asks nothing and warns of nothing", async () => {
    const result = await runAction({ workspace: copyToTempRepo(EXAMPLE), cache, with: { cache: "false" } });
    expect(result.code).toBe(0);
    expect(result.warnings).toEqual([]);
    expect(cache.calls).toEqual([]);
    expect(result.summary).toContain("GitHub Actions cache: off (input `cache: false`).");
  });
});

/**
 * The entry's archive with one text replaced by another of the same length inside the tar: the
 * archive stays valid (tar checks its headers, not file data), the content no longer matches its
 * hash. The archive is zstd-compressed when the machine has zstd, as the client chooses.
 */
function tamper(archive: Buffer, from: string, to: string): Buffer {
  const zstd = archive.subarray(0, 4).equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
  const [unpack, pack] = zstd
    ? [
        ["zstd", "-d", "-c"],
        ["zstd", "-c"],
      ]
    : [
        ["gzip", "-d", "-c"],
        ["gzip", "-c"],
      ];
  const tar = spawnSync(unpack[0]!, unpack.slice(1), { input: archive }).stdout;
  const at = tar.indexOf(from);
  if (at < 0 || from.length !== to.length) throw new Error(`cannot tamper: ${from} not in the archive`);
  tar.write(to, at);
  return spawnSync(pack[0]!, pack.slice(1), { input: tar }).stdout;
}
