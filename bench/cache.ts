/**
 * The Actions cache's traffic at scale: the built action (dist/index.js, `npm run build` first) runs
 * a cold workflow of N cheap pairs against the loopback cache service with GitHub's rate limit of
 * 200 uploads a minute, then a fresh workspace runs it warm. For each N: the entries uploaded and
 * downloaded (blob transfers), the calls answered 429, and the wall time of each run. The uploads and
 * downloads must not grow with N.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { FakeCacheService } from "../test/action/fakeCacheService.js";
import { runAction, type ActionResult } from "../test/action/runner.js";
import { manyPairs } from "../test/action/snapshotWorkflow.js";
import { REPO } from "../test/helpers/fixtures.js";

export interface CacheSample {
  pairs: number;
  cold: { uploads: number; downloads: number; limited: number; seconds: number; executed: number };
  warm: { uploads: number; downloads: number; limited: number; seconds: number; executed: number };
}

/** Measures each size and prints a table; returns the samples. */
export async function benchCache(sizes: number[] = [100, 300, 1_000]): Promise<CacheSample[]> {
  console.log("\n## GitHub Actions cache: a cold run, then a warm one in a fresh workspace (built action, loopback cache, 200 uploads/min)\n");
  if (!existsSync(path.join(REPO, "dist/index.js"))) {
    console.log("skipped: dist/index.js is missing; run `npm run build` first");
    return [];
  }
  const samples: CacheSample[] = [];
  for (const pairs of sizes) {
    const cache = await new FakeCacheService().start();
    cache.rateLimit = { uploads: 200, downloads: 200, windowMs: 60_000 };
    try {
      const cold = await measured(cache, pairs);
      const warm = await measured(cache, pairs);
      samples.push({ pairs, cold, warm });
    } finally {
      await cache.close();
    }
  }
  const header = ["pairs", "cold uploads", "cold downloads", "cold 429s", "cold s", "warm uploads", "warm downloads", "warm 429s", "warm s", "warm executed"];
  const rows = samples.map((s) => [
    s.pairs.toLocaleString("en-US"),
    String(s.cold.uploads),
    String(s.cold.downloads),
    String(s.cold.limited),
    s.cold.seconds.toFixed(1),
    String(s.warm.uploads),
    String(s.warm.downloads),
    String(s.warm.limited),
    s.warm.seconds.toFixed(1),
    String(s.warm.executed),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
  return samples;
}

async function measured(cache: FakeCacheService, pairs: number): Promise<CacheSample["cold"]> {
  cache.calls.length = 0;
  const limited = cache.limited;
  const workspace = manyPairs(pairs);
  const started = performance.now();
  const result: ActionResult = await runAction({ workspace, cache, with: { "max-parallel": "8" } });
  const seconds = (performance.now() - started) / 1000;
  if (result.code !== 0) throw new Error(`the action failed on ${pairs} pairs:\n${result.stdout}\n${result.stderr}`);
  return {
    uploads: cache.uploads(),
    downloads: cache.downloads(),
    limited: cache.limited - limited,
    seconds,
    executed: (JSON.parse(result.outputs.executed!) as string[]).length,
  };
}

// Run directly: `node --import tsx bench/cache.ts [sizes...]`.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  await benchCache(sizes.length > 0 ? sizes : undefined);
}
