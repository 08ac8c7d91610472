/**
 * The cache at scale, through the built action against the loopback cache service with a rate
 * limit like GitHub's (which allows 200 uploads a minute per repository; here one upload and one
 * download per short window, answering 429 with Retry-After): a run's uploads and downloads do not
 * grow with its pairs, and what a cold run accepted, a fresh workspace restores whole.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeCacheService } from "./fakeCacheService.js";
import { runAction, type ActionResult } from "./runner.js";
import { manyPairs, pairIds } from "./snapshotWorkflow.js";
import { scaled } from "../helpers/time.js";

const ids = (result: ActionResult, output: string) => JSON.parse(result.outputs[output]!) as string[];

/**
 * Hundreds of commands whose confinement is not what these tests are about (test/security is):
 * unconfined, they start without bubblewrap around each, and the runs take half the CPU.
 */
const UNCONFINED = { sandbox: "off" };

let cache: FakeCacheService;
beforeEach(async () => {
  cache = await new FakeCacheService().start();
});
afterEach(async () => {
  await cache.close();
});

describe("a cold run of 300 pairs under a rate limit", () => {
  it(
    "saves everything it accepted in a few uploads, and a fresh workspace restores it in a few downloads and executes nothing",
    { timeout: scaled(120_000) },
    async () => {
      cache.rateLimit = { uploads: 1, downloads: 1, windowMs: 1000 };
      const PAIRS = pairIds(300);

      const cold = await runAction({ workspace: manyPairs(300), cache, with: { ...UNCONFINED, "max-parallel": "8" } });
      expect(cold.code).toBe(0);
      expect(ids(cold, "executed")).toHaveLength(300);
      expect(cold.warnings).toEqual([]);
      // The rate limit was hit and waited out, not given up on.
      expect(cache.limited).toBeGreaterThan(0);
      const coldUploads = cache.uploads();
      expect(coldUploads).toBeLessThanOrEqual(3);
      expect(cold.summary).toContain("0 restored, 300 saved");

      cache.calls.length = 0;
      const fresh = manyPairs(300);
      const warm = await runAction({ workspace: fresh, cache, with: { ...UNCONFINED, "max-parallel": "8" } });
      expect(warm.code).toBe(0);
      expect(warm.warnings).toEqual([]);
      expect(ids(warm, "executed")).toEqual([]);
      expect(ids(warm, "reused").sort()).toEqual(PAIRS);
      expect(cache.downloads()).toBeLessThanOrEqual(3);
      expect(cache.uploads()).toBe(0);
      expect(readFileSync(path.join(fresh, "out/p0298.txt"), "utf8")).toBe("made p0298 from Make p0298.\n");
      expect(existsSync(path.join(fresh, "out/p0299.txt"))).toBe(false); // odd pairs have no output file
      const big = { uploads: coldUploads, downloads: cache.downloads() };

      // The same for 10 pairs in a cache of their own: the same traffic, not a thirtieth of it. (In the
      // same cache, at the same path, their requests would be answered from the 300's snapshot.)
      await cache.close();
      cache = await new FakeCacheService().start();
      await runAction({ workspace: manyPairs(10), cache, with: UNCONFINED });
      const smallUploads = cache.uploads();
      cache.calls.length = 0;
      const small = await runAction({ workspace: manyPairs(10), cache, with: UNCONFINED });
      expect(ids(small, "executed")).toEqual([]);
      expect({ uploads: smallUploads, downloads: cache.downloads() }).toEqual(big);
      expect(big).toEqual({ uploads: 2, downloads: 2 });
    },
  );
});

describe("checkpoints", () => {
  it("a job killed in the middle of a long run leaves what it accepted at its last checkpoint for the next job", { timeout: scaled(120_000) }, async () => {
    const first = manyPairs(40);
    const killed = await runAction({
      workspace: first,
      cache,
      // A checkpoint after an acceptance, and the job killed (no chance to save at the end) once one is saved.
      env: { PAIRFLOW_CACHE_CHECKPOINT_SECONDS: "0" },
      with: { ...UNCONFINED, "max-parallel": "1" },
      interrupt: { signal: "SIGKILL", when: /saved a checkpoint of the workflow's state/ },
    });
    expect(killed.code).not.toBe(0);
    const saved = cache.finalized().filter((e) => e.key.startsWith("pairflow-state-"));
    expect(saved.length).toBeGreaterThan(0);

    const next = await runAction({ workspace: manyPairs(40), cache, with: { ...UNCONFINED, "max-parallel": "8" } });
    expect(next.code).toBe(0);
    const reused = ids(next, "reused");
    // Whatever the last checkpoint held is reused: at least the first pair, accepted before it.
    expect(reused).toContain("p0000");
    expect(reused.length + ids(next, "executed").length).toBe(40);
    expect(ids(next, "executed").length).toBeLessThan(40);
  });
});
