/**
 * The cache's 429s, waited out through the built action against the loopback cache service: a
 * rate limit that lifts within the budget costs a pause, one that outlasts it costs one warning,
 * and the end of the run still tries to save.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tddStack } from "./tddStack.js";
import { FakeCacheService } from "./fakeCacheService.js";
import { runAction, type ActionResult } from "./runner.js";
import { scaled } from "../helpers/time.js";

const PAIRS = ["g_test", "g_impl", "g_review"];
const ids = (result: ActionResult, output: string) => JSON.parse(result.outputs[output]!) as string[];

let cache: FakeCacheService;
beforeEach(async () => {
  cache = await new FakeCacheService().start();
});
afterEach(async () => {
  await cache.close();
});

describe("rate limits and server errors are waited out", { timeout: scaled(120_000) }, () => {
  it("a 429 on restoring, with Retry-After: waited out, then restored", async () => {
    await runAction({ workspace: tddStack(), cache });
    cache.calls.length = 0;
    cache.fault = { code: "resource_exhausted", msg: "too many requests", headers: { "retry-after": "1" }, methods: ["GetCacheEntryDownloadURL"], times: 2 };
    const result = await runAction({ workspace: tddStack(), cache });
    expect(result.code).toBe(0);
    expect(result.warnings).toEqual([]);
    expect(ids(result, "executed")).toEqual([]);
    expect(cache.twirpCalls("GetCacheEntryDownloadURL").length).toBe(4); // two refused, the manifest, the pack
  });

  it("a 429 on restoring that outlasts the budget: one warning, every pair executed, and the end of the run still saves", async () => {
    cache.fault = { code: "resource_exhausted", msg: "too many requests", headers: { "retry-after": "1" }, methods: ["GetCacheEntryDownloadURL"] };
    const result = await runAction({ workspace: tddStack(), cache, env: { PAIRFLOW_CACHE_RETRY_SECONDS: "4" } });
    expect(result.code).toBe(0);
    expect(ids(result, "executed")).toEqual(PAIRS);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/^the GitHub Actions cache is not usable \(restoring the workflow's state: .*rate limit.*waited out the 4 s allowed/);
    // The first try, then tries a second apart (Retry-After) while the 4 s last: never more than five.
    const tries = cache.twirpCalls("GetCacheEntryDownloadURL").length;
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(tries).toBeLessThanOrEqual(5);
    expect(cache.states()).toHaveLength(1);
    expect(cache.packs()).toHaveLength(1);
  });

  it("a 429 on saving that outlasts the budget: one warning naming it, and the run succeeds", async () => {
    cache.fault = { code: "resource_exhausted", msg: "too many requests", headers: { "retry-after": "1" }, methods: ["CreateCacheEntry"] };
    const result = await runAction({ workspace: tddStack(), cache, env: { PAIRFLOW_CACHE_RETRY_SECONDS: "4" } });
    expect(result.code).toBe(0);
    expect(ids(result, "executed")).toEqual(PAIRS);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(
      /^the GitHub Actions cache did not take the workflow's state \(saving the workflow's state: .*rate limit.*waited out the 4 s allowed/,
    );
    const tries = cache.twirpCalls("CreateCacheEntry").length;
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(tries).toBeLessThanOrEqual(5);
  });
});
