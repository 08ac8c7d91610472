import { scaled } from "../helpers/time.js";
// Instances' store records live under their ids percent-encoded; prune and a later plan read
// them back by id.
import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import path from "node:path";
import { prune } from "../../src/records/prune.js";
import { planOf } from "../helpers/state.js";
import { appendPage, pageName, pagesRepo, step } from "./world.js";

describe("foreach instances in the store", () => {
  it("keep their records under one directory each, and prune removes exactly the superseded ones, by id", { timeout: scaled(30_000) }, async () => {
    const dir = pagesRepo(3);
    await step(dir);
    const stateDir = path.join(dir, ".pairflow");
    expect(readdirSync(path.join(stateDir, "store/pairs")).sort()).toEqual([
      "check%5Bdocs%2Fpage-000.md%5D",
      "check%5Bdocs%2Fpage-001.md%5D",
      "check%5Bdocs%2Fpage-002.md%5D",
      "index",
      "translate%5Bdocs%2Fpage-000.md%5D",
      "translate%5Bdocs%2Fpage-001.md%5D",
      "translate%5Bdocs%2Fpage-002.md%5D",
    ]);
    appendPage(dir, pageName(1), "edited\n");
    await step(dir);

    const result = prune(stateDir, { keep: 0, startedAt: Date.now() + 60_000, lockFiles: [path.join(dir, "workflow.lock.json")] });
    expect(result.records.map((r) => r.pair).sort()).toEqual([`check[${pageName(1)}]`, "index", `translate[${pageName(1)}]`]);
    const { plan } = await planOf(dir, { cwd: dir });
    expect(plan.pairs.filter((p) => p.action === "run")).toEqual([]);
  });
});
