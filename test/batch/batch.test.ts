/**
 * Provider batches through the installed CLI, against the loopback batch service: one batch
 * per wave, provider and endpoint; the same outputs as a synchronous run; `--no-wait` and a later
 * run; a batch whose creation was never answered; expired and errored requests falling back or
 * failing as configured; the prompt cache's marker on the text `pairflow prompt` shows; cache
 * reads and writes in the run record; the estimate, the budget gate and the report at batch and
 * cached-input prices. (SIGINT and kills: nightly.test.ts.)
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TokenUsage } from "../../src/model/records.js";
import { costOf, priceFor, usd } from "../../src/estimate/prices.js";
import { startBatchService, type BatchService } from "../helpers/batchProviders.js";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";

const KEY = "sk-loopback-batch";

/** The model's answer: its task, and what it read from upstream. */
function answer(request: { prompt: string }): string {
  const task = /# Task\n\n([^\n]*)/.exec(request.prompt)?.[1] ?? "";
  const upstream = [...request.prompt.matchAll(/answer to: ([^\n`]*)/g)].map((m) => m[1]).join(" + ");
  return `answer to: ${task}${upstream ? ` (after ${upstream})` : ""}\n`;
}

function workflow(service: BatchService, provider: "openai" | "anthropic", extra = "", top: string[] = []): Record<string, string> {
  const model = provider === "openai" ? "gpt-4o-mini" : "claude-sonnet-4-5";
  const url = provider === "openai" ? service.openaiUrl : service.anthropicUrl;
  return {
    "workflow.yml": [
      "name: waves",
      ...top,
      `model: ${model}`,
      `generator: ${provider}`,
      `generator_config: {base_url: "${url}", api_key_env: LOOPBACK_KEY, retries: 0${extra}}`,
      "action_pairs:",
      "  a: {output: out/a.txt, guard: contains, guard_config: {text: answer}}",
      "  b: {output: out/b.txt, guard: contains, guard_config: {text: answer}}",
      "  c: {requires: [a, b], output: out/c.txt, guard: contains, guard_config: {text: after}}",
      "  d: {requires: [a], output: out/d.txt, guard: contains, guard_config: {text: after}}",
      "",
    ].join("\n"),
    "prompts.yml": "a: {task: Write a.}\nb: {task: Write b.}\nc: {task: Write c.}\nd: {task: Write d.}\n",
  };
}

const env = { LOOPBACK_KEY: KEY, PAIRFLOW_BATCH_POLL_MS: "1", PAIRFLOW_HTTP_BACKOFF_MS: "1" };

/** `pairflow ARGS` from the installed package, asynchronously: the service answers from this process. */
function cli(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...UNCONFINED, NO_COLOR: "1", CI: "", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

async function run(dir: string, ...args: string[]) {
  const r = await cli(["run", "--json", "--yes", ...args], { cwd: dir, env });
  let report;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    throw new Error(`not JSON (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return { ...r, report };
}

const outputs = (dir: string) => ["a", "b", "c", "d"].map((id) => readFileSync(path.join(dir, "out", `${id}.txt`), "utf8"));

let service: BatchService;
beforeEach(async () => {
  service = await startBatchService({ key: KEY, answer });
});
afterEach(() => service.close());

describe.each(["anthropic", "openai"] as const)("%s batches", (provider) => {
  it("send one batch per wave and end with the outputs a synchronous run has", async () => {
    const sync = tempRepo(workflow(service, provider));
    expect((await run(sync)).status).toBe(0);
    const syncAsked = service.asked.length;

    const dir = tempRepo(workflow(service, provider));
    const r = await run(dir, "--batch");
    expect(r.status, r.stderr).toBe(0);
    expect(outputs(dir)).toEqual(outputs(sync));
    // Wave 1: a, b; wave 2: c, d.
    expect(service.batches(provider).map((b) => b.requests)).toEqual([2, 2]);
    expect(service.asked.slice(syncAsked).every((a) => a.via !== "sync")).toBe(true);
    expect(r.report.spend.bought).toMatchObject({ calls: 4, batched: 4 });
    expect(r.stderr).toMatch(/^batch +\S+ \S+: 2 requests submitted$/m);
    // The run record says which batches it sent.
    const trace = readFileSync(path.join(dir, ".pairflow", "runs", r.report.runId, "trace.jsonl"), "utf8");
    expect(trace.match(/"event":"batch","provider":"[a-z]+","batch":"[^"]+","state":"submitted"/g)).toHaveLength(2);
  });

  it("with --no-wait, submits, ends waiting with exit 0; a later run collects what it sent and asks nothing twice", async () => {
    service.setPolls(1_000_000);
    const dir = tempRepo(workflow(service, provider));
    const first = await run(dir, "--batch", "--no-wait");
    expect(first.status, first.stderr).toBe(0);
    expect(first.report.status).toBe("waiting");
    expect(first.report.pairs.map((p: { status: string }) => p.status)).toEqual(["interrupted", "interrupted", "interrupted", "interrupted"]);
    expect(service.batches(provider)).toHaveLength(1);
    // Not ended yet: the next run looks once and waits again.
    const again = await run(dir, "--batch", "--no-wait");
    expect(again.report.status).toBe("waiting");
    expect(service.batches(provider)).toHaveLength(1);

    service.setPolls(0);
    const later = await run(dir, "--batch", "--no-wait");
    expect(later.report.status).toBe("waiting");
    expect(service.batches(provider)).toHaveLength(2); // the second wave
    const last = await run(dir);
    expect(last.status, last.stderr).toBe(0);
    expect(last.report.status).toBe("success");
    expect(outputs(dir)[2]).toBe("answer to: Write c. (after Write a. + Write b.)\n");
    const prompts = service.asked.map((a) => a.prompt);
    expect(new Set(prompts).size).toBe(prompts.length);
    expect(prompts).toHaveLength(4);
  });
});

describe("a run that did not wait for its batch", () => {
  it("is taken up by pairflow resume, which collects the batch, sends the next wave and waits for it", async () => {
    service.setPolls(1_000_000);
    const dir = tempRepo(workflow(service, "anthropic"));
    const first = await run(dir, "--batch", "--no-wait");
    expect(first.status, first.stderr).toBe(0);
    expect(first.report.status).toBe("waiting");
    service.setPolls(0);
    const resumed = await cli(["resume", "--json"], { cwd: dir, env });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "success", runId: first.report.runId });
    expect(service.batches("anthropic").map((b) => b.requests)).toEqual([2, 2]);
    expect(service.asked.every((a) => a.via !== "sync")).toBe(true);
    const prompts = service.asked.map((a) => a.prompt);
    expect(new Set(prompts).size).toBe(4);
    expect(prompts).toHaveLength(4);
    expect(outputs(dir)[2]).toBe("answer to: Write c. (after Write a. + Write b.)\n");
  });
});

describe.each(["anthropic", "openai"] as const)("a %s batch created but never heard back from", (provider) => {
  it("is found at the provider by its key and collected, never sent again", async () => {
    await service.close();
    let dropped = 0;
    service = await startBatchService({ key: KEY, answer, dropCreate: () => dropped++ === 0 });
    const dir = tempRepo(workflow(service, provider));
    const r = await run(dir, "--batch");
    expect(r.status, r.stderr).toBe(0);
    expect(dropped).toBe(2);
    expect(service.batches(provider).map((b) => b.requests)).toEqual([2, 2]);
    expect(service.asked.map((a) => a.prompt)).toHaveLength(4);
    expect(outputs(dir)[2]).toBe("answer to: Write c. (after Write a. + Write b.)\n");
  });
});

describe("requests a batch could not answer", () => {
  it("go to the synchronous endpoint (batch_fallback: sync, the default), or fail their pair (fail)", async () => {
    await service.close();
    service = await startBatchService({
      key: KEY,
      answer,
      outcome: (r) => (r.prompt.includes("Write a.") ? "expired" : r.prompt.includes("Write b.") ? "errored" : undefined),
    });
    const dir = tempRepo(workflow(service, "anthropic"));
    const r = await run(dir, "--batch");
    expect(r.status, r.stderr).toBe(0);
    expect(service.asked.filter((a) => a.via === "sync").map((a) => /Write (\w)\./.exec(a.prompt)![1])).toEqual(expect.arrayContaining(["a", "b"]));
    expect(r.stderr).toMatch(/batch \S+ did not answer a's request \(expired: .*\); asking the synchronous endpoint instead/);

    const strict = tempRepo(workflow(service, "anthropic", ", batch: true, batch_fallback: fail"));
    const s = await run(strict);
    expect(s.status).toBe(1);
    const a = s.report.pairs.find((p: { id: string }) => p.id === "a");
    expect(a.status).toBe("failed");
    expect(a.note).toMatch(/did not answer a's request \(expired: .*\); batch_fallback is fail/);
  });

  it("in a batch that expired: what it finished is used, the rest falls back", async () => {
    await service.close();
    let expired = 0;
    service = await startBatchService({ key: KEY, answer, expire: () => expired++ === 0 });
    const dir = tempRepo(workflow(service, "openai"));
    const r = await run(dir, "--batch");
    expect(r.status, r.stderr).toBe(0);
    expect(service.asked.filter((a) => a.via === "sync")).toHaveLength(1);
    expect(r.report.spend.bought).toMatchObject({ calls: 4, batched: 3 });
  });
});

/** 1,200 words (the service counts a word as a token): past Claude Sonnet's 1,024-token minimum for the prompt cache. */
const SPEC = Array.from({ length: 400 }, (_, i) => `Rule ${i} holds.`).join(" ");

/** The tokens of every pair's attempt in a run's record, as pairflow show --json gives them. */
async function attemptTokens(dir: string, runId: string): Promise<Map<string, TokenUsage>> {
  const shown = await cli(["show", runId, "--json"], { cwd: dir });
  expect(shown.status, shown.stderr).toBe(0);
  const pairs = (JSON.parse(shown.stdout) as { pairs: { id: string; outcome: { attempts: { tokens: TokenUsage }[] } }[] }).pairs;
  return new Map(pairs.flatMap((p) => p.outcome.attempts.map((a) => [p.id, a.tokens] as const)));
}

const cacheUse = (t: Pick<TokenUsage, "cacheRead" | "cacheWrite">) => (t.cacheWrite ? "write" : t.cacheRead ? "read" : "none");

describe("the prompt cache and the price levers", () => {
  it("send the text pairflow prompt shows, marked for the cache; record its writes and reads; cost them at cached and batch prices", async () => {
    const dir = tempRepo(workflow(service, "anthropic", "", [`specification: "${SPEC}"`]));
    const planned = await cli(["plan", "--batch", "--json"], { cwd: dir, env });
    const estimate = (JSON.parse(planned.stdout) as { pairs: { id: string; estimate: { tokens: TokenUsage } }[] }).pairs;
    // The run's report for people, which says what it bought at which prices.
    const r = await cli(["run", "--batch", "--yes"], { cwd: dir, env });
    expect(r.status, r.stderr).toBe(0);
    expect(service.asked).toHaveLength(4);
    for (const id of ["a", "b", "c", "d"]) {
      const shown = await cli(["prompt", id], { cwd: dir });
      expect(shown.status, shown.stderr).toBe(0);
      const asked = service.asked.find((a) => a.prompt.includes(`# Task\n\nWrite ${id}.`))!;
      // The same text, cut in two at the cache marker.
      expect(asked.prompt).toBe(shown.stdout);
      expect(asked.marked).toBe(true);
    }
    const byId = await attemptTokens(dir, readdirSync(path.join(dir, ".pairflow", "runs"))[0]!);
    const tokens = [...byId.values()];
    expect(tokens).toHaveLength(4);
    expect(tokens.every((t) => t.batch === true)).toBe(true);
    // a writes the specification to the cache and b reads it; c and d begin with a's answer too,
    // a longer beginning: c writes it, d reads it. The estimate predicted as much.
    expect(Object.fromEntries([...byId].map(([id, t]) => [id, cacheUse(t)]))).toEqual({ a: "write", b: "read", c: "write", d: "read" });
    expect(Object.fromEntries(estimate.map((p) => [p.id, cacheUse(p.estimate.tokens)]))).toEqual({ a: "write", b: "read", c: "write", d: "read" });
    expect(tokens.every((t) => (t.cacheRead ?? t.cacheWrite ?? 0) >= 1200)).toBe(true);
    const price = priceFor("claude-sonnet-4-5")!;
    const priced = tokens.reduce((sum, t) => sum + costOf(t, price), 0);
    const plain = tokens.reduce((sum, t) => sum + costOf({ input: t.input, output: t.output }, price), 0);
    expect(priced).toBeLessThan(0.5 * plain);
    const read = tokens.reduce((sum, t) => sum + (t.cacheRead ?? 0), 0);
    const written = tokens.reduce((sum, t) => sum + (t.cacheWrite ?? 0), 0);
    expect(r.stdout).toContain(
      `Bought 4 calls (${tokens.reduce((sum, t) => sum + t.input + t.output, 0).toLocaleString("en-US")} tokens, ${usd(priced)}; all in batches at the batch price, ` +
        `${read.toLocaleString("en-US")} input tokens from the prompt cache, ${written.toLocaleString("en-US")} written to it).`,
    );
  });

  it("let the estimate and the budget gate weigh batch prices: a run over --max-cost synchronously fits it in batches", async () => {
    const dir = tempRepo(workflow(service, "anthropic"));
    const plan = async (...flags: string[]) => {
      const p = await cli(["plan", "--json", ...flags], { cwd: dir, env });
      expect(p.status, p.stderr).toBe(0);
      return (JSON.parse(p.stdout) as { totals: { estimate: { cost: number } } }).totals.estimate.cost;
    };
    const [sync, batch] = [await plan(), await plan("--batch")];
    expect(batch).toBeCloseTo(sync / 2, 10);
    const between = ((sync + batch) / 2).toFixed(6);
    const over = await cli(["run", "--max-cost", between, "--yes"], { cwd: dir, env });
    expect(over.status).toBe(1);
    expect(over.stderr).toMatch(/the estimated cost \$[\d.]+ exceeds --max-cost/);
    expect(service.asked).toEqual([]);
    const r = await run(dir, "--batch", "--max-cost", between);
    expect(r.status, r.stderr).toBe(0);
    expect(r.report.spend.bought).toMatchObject({ calls: 4, batched: 4 });
  });
});
