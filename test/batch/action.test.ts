/**
 * The 200-pair nightly workflow in batch mode through the bundled action, every job on a fresh
 * runner with only the GitHub Actions cache in common: a job killed while it waits for its batch
 * (the runner lost), then scheduled jobs with batch-wait: false that each collect what the last
 * one sent and send the next wave, until every pair is accepted. Nothing is submitted twice; the
 * outputs are the synchronous run's.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BatchRecord } from "../../src/model/records.js";
import { FakeCacheService, type Entry } from "../action/fakeCacheService.js";
import { runAction } from "../action/runner.js";
import { startBatchService, type BatchService } from "../helpers/batchProviders.js";
import { tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { answer, files, ITEMS, KEY, outputs, submittedTwice } from "./world.js";

/** What the synchronous run writes: the model's answers, known in advance. */
function expected(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of ITEMS) {
    out[`t/${item}.txt`] = `answer to: Translate ${item}.\n`;
    out[`s/${item}.txt`] = `answer to: Summarise ${item}. (after Translate ${item}.)\n`;
  }
  return out;
}

/** The batches a snapshot manifest keeps. */
function batchesOf(entry: Entry): BatchRecord[] {
  const archive = entry.blob!;
  const zstd = archive.subarray(0, 4).equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
  const tar = spawnSync(zstd ? "zstd" : "gzip", ["-d", "-c"], { input: archive }).stdout;
  const manifest = spawnSync("tar", ["-xO", "--wildcards", "*manifest.json"], { input: tar }).stdout.toString("utf8");
  return (JSON.parse(manifest) as { batches?: BatchRecord[] }).batches ?? [];
}

let cache: FakeCacheService;
let service: BatchService;
beforeEach(async () => {
  cache = await new FakeCacheService().start();
  service = await startBatchService({ key: KEY, answer, polls: 1_000_000 });
});
afterEach(async () => {
  await cache.close();
  await service.close();
});

describe("the nightly workflow through the action, on fresh runners", () => {
  it(
    "collects from the cache's snapshot the batch a lost runner sent, then a wave per scheduled job, and never submits twice",
    { timeout: scaled(240_000) },
    async () => {
      const repo = tempRepo(files(service));
      const checkout = () => {
        const dir = path.join(mkdtempSync(path.join(tmpdir(), "pairflow-job-")), "repo");
        cpSync(repo, dir, { recursive: true });
        return dir;
      };
      const env = { LOOPBACK_KEY: KEY, PAIRFLOW_BATCH_POLL_MS: "20", PAIRFLOW_HTTP_BACKOFF_MS: "1", PAIRFLOW_SANDBOX: "off" };

      // A job that waits for its batch, and whose runner is lost once the snapshot holds the batch.
      const lost = await runAction({
        workspace: checkout(),
        cache,
        env,
        with: { batch: "true" },
        killWhen: (async () => {
          while (!cache.states().some((e) => batchesOf(e).some((b) => b.id !== undefined))) await new Promise((r) => setTimeout(r, 20));
        })(),
      });
      expect(lost.code).toBe(-1);
      expect(service.batches()).toEqual([expect.objectContaining({ provider: "anthropic", requests: 100 })]);

      // The scheduled jobs: each collects what the last sent and sends the next wave, waiting for nothing.
      service.setPolls(0);
      const jobs = [];
      let workspace = "";
      for (let i = 0; i < 5; i++) {
        workspace = checkout();
        const job = await runAction({ workspace, cache, env, with: { batch: "true", "batch-wait": "false" } });
        expect(job.code, job.stdout.slice(-3000)).toBe(0);
        jobs.push(job);
        if (!job.stdout.includes("wait for provider batches")) break;
        expect(
          job.annotations.some((a) => a.level === "notice" && /pairs wait for provider batches; a later run of this workflow collects them/.test(a.message)),
        ).toBe(true);
      }
      // The lost runner's wave, then the retries with the first summaries, then the last summaries.
      expect(jobs).toHaveLength(3);
      expect(service.batches().map((b) => `${b.provider} ${b.requests}`)).toEqual(["anthropic 100", "anthropic 11", "openai 89", "openai 11"]);
      expect(submittedTwice(service)).toEqual([]);
      expect(service.asked.every((a) => a.via !== "sync")).toBe(true);
      const last = jobs[jobs.length - 1]!;
      expect(JSON.parse(last.outputs.failed!)).toEqual([]);
      expect(JSON.parse(last.outputs.executed!).length + JSON.parse(last.outputs.reused!).length).toBe(200);
      expect(outputs(workspace)).toEqual(expected());
      // Done with: the last snapshot keeps no batch.
      expect(batchesOf(cache.states().at(-1)!)).toEqual([]);
      expect(readFileSync(path.join(workspace, "out/s/v099.txt"), "utf8")).toBe("answer to: Summarise v099. (after Translate v099.)\n");
    },
  );
});
