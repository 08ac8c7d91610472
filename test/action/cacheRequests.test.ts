/**
 * The request index entries the Actions cache's snapshot keeps, through the real @actions/cache
 * client against the loopback cache service: a verdict given after the answer was kept (a guard
 * rejecting it) reaches the next job with its feedback, as the local store keeps it, so that job
 * replays the rejection and asks the retry's request rather than the first one again.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ActionsCacheStore, type SnapshotScope } from "../../src/github/cache.js";
import type { RequestEntry } from "../../src/model/records.js";
import { sha256Hex } from "../../src/refs/hash.js";
import { FakeCacheService } from "./fakeCacheService.js";

let cache: FakeCacheService;
const before = { ...process.env };
const cwd = process.cwd();
beforeAll(async () => {
  cache = await new FakeCacheService().start();
  Object.assign(process.env, cache.env());
});
afterAll(async () => {
  process.chdir(cwd);
  for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
  await cache.close();
});

const scope = (writer: string): SnapshotScope => ({ workflow: "workflow.yml", ref: "refs/heads/main", writer });

/** A store for a job in a workspace of its own, opened on the newest snapshot. */
async function job(writer: string): Promise<ActionsCacheStore> {
  const workspace = mkdtempSync(path.join(tmpdir(), "pairflow-requests-"));
  process.env.GITHUB_WORKSPACE = workspace;
  process.env.RUNNER_TEMP = workspace;
  // The cache's paths are the workspace's, as a runner starts the action in it.
  process.chdir(workspace);
  const store = new ActionsCacheStore("pairflow", workspace, (m) => expect.fail(m), { contentOnLookup: false, retryMs: 0 });
  await store.open(scope(writer));
  return store;
}

it("keeps a rejection's feedback that came after the answer, with its verdict", async () => {
  const first = await job("run.1");
  first.attach({ name: "w", pairs: new Set(["a"]), lock: () => null, content: () => undefined });
  const content = Buffer.from("an answer\n");
  const key = sha256Hex("the request");
  const answered: RequestEntry = {
    contentHash: sha256Hex(content),
    pair: "a",
    configRef: sha256Hex("ref"),
    at: "2026-01-01T00:00:00.000Z",
    model: null,
    tokens: null,
    verdicts: {},
  };
  // The answer is kept as it comes; the guard's rejection, with why, once it has judged it.
  first.saveRequest(key, answered, content);
  first.saveRequest(key, { ...answered, verdicts: { judge: "rejected" }, feedback: { judge: "the tests fail" } }, content);
  await first.finish();
  expect(first.notSaved).toBeNull();

  const next = await job("run.2");
  expect(next.requests(key)).toEqual([{ ...answered, verdicts: { judge: "rejected" }, feedback: { judge: "the tests fail" } }]);
});
