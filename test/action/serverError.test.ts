/**
 * A cache service answering 500: the cache client retries each call a few times with backoff
 * (about half a minute), so this test is slow and lives in its own file to run beside the others.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { copyToTempRepo, REPO } from "../helpers/fixtures.js";
import { FakeCacheService } from "./fakeCacheService.js";
import { runAction } from "./runner.js";

let cache: FakeCacheService;
beforeAll(async () => {
  cache = await new FakeCacheService().start();
});
afterAll(async () => {
  await cache.close();
});

it("a server error (500) after the client's retries: one warning, no more requests, the run succeeds", { timeout: 120_000 }, async () => {
  cache.fault = { code: "internal", msg: "internal error" };
  const result = await runAction({ workspace: copyToTempRepo(path.join(REPO, "examples/tdd-stack")), cache });
  expect(result.code).toBe(0);
  expect(JSON.parse(result.outputs.executed!)).toEqual(["g_test", "g_impl", "g_review"]);
  expect(result.errors).toEqual([]);
  expect(result.warnings).toHaveLength(1);
  expect(result.warnings[0]).toMatch(/^the GitHub Actions cache is not usable \(restoring pairflow-g_test-[0-9a-f]{64}: .*\(500\) Internal Server Error/);
  // The client's own attempts at the first call, then nothing: no restore, no save.
  expect(new Set(cache.calls)).toEqual(new Set([cache.calls[0]]));
  expect(cache.calls[0]).toMatch(/^GetCacheEntryDownloadURL /);
});
