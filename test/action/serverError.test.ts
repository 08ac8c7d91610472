/**
 * A cache service answering 500: the cache client retries each call a few times with backoff
 * (about half a minute), so this test is slow and lives in its own file to run beside the others.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { tddStack } from "./tddStack.js";
import { FakeCacheService } from "./fakeCacheService.js";
import { runAction } from "./runner.js";
import { scaled } from "../helpers/time.js";

let cache: FakeCacheService;
beforeAll(async () => {
  cache = await new FakeCacheService().start();
});
afterAll(async () => {
  await cache.close();
});

const TIMEOUT = scaled(120_000);

it("a server error (500) that outlasts the client's own retries is waited out: no warning, and the run saves its state", { timeout: TIMEOUT }, async () => {
  // Five answers of 500: every attempt of the client's first call.
  cache.fault = { code: "internal", msg: "internal error", methods: ["GetCacheEntryDownloadURL"], times: 5 };
  const result = await runAction({ workspace: tddStack(), cache });
  expect(result.code).toBe(0);
  expect(JSON.parse(result.outputs.executed!)).toEqual(["g_test", "g_impl", "g_review"]);
  expect(result.errors).toEqual([]);
  expect(result.warnings).toEqual([]);
  // The client's five attempts, pairflow's one more (nothing there yet), then the snapshot's two saves.
  expect(cache.twirpCalls("GetCacheEntryDownloadURL")).toHaveLength(6);
  expect(cache.twirpCalls("CreateCacheEntry")).toHaveLength(2);
  expect(cache.finalized()).toHaveLength(2);
});
