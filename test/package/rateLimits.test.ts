/**
 * A run at a provider's rate limit, through the installed CLI, against loopback services that
 * enforce per-minute buckets the way OpenAI and Anthropic do (a shortened minute scales the run
 * down): every pair accepted, few 429s, none failed for the limit; an endpoint that says nothing,
 * paced by the limit its caller gives (a flag, or the bundled action's input); and a wait cut short
 * by --max-wait interrupts its pairs, which resume without any request sent twice.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunReport } from "../../src/model/run.js";
import { tempRepo } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { startModelService, type ModelService } from "../helpers/providers.js";
import { scaled } from "../helpers/time.js";
import { runAction } from "../action/runner.js";

const KEY = "sk-loopback-rate-limits";

const services: ModelService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

/** `n` independent pairs of one provider, each asking for at most 200 tokens back. */
function workflow(provider: "openai" | "anthropic", url: string, n: number): Record<string, string> {
  const ids = Array.from({ length: n }, (_, i) => `p${String(i + 1).padStart(2, "0")}`);
  return {
    "workflow.yml": [
      "name: paced",
      "model: test-model",
      `generator: ${provider}`,
      `generator_config: {base_url: "${url}", api_key_env: LOOPBACK_KEY, max_tokens: 200, retries: 0}`,
      "action_pairs:",
      ...ids.map((id) => `  ${id}: {output: out/${id}.txt, guard: contains, guard_config: {text: done}}`),
      "",
    ].join("\n"),
    "prompts.yml": ids.map((id) => `${id}: {task: Write page ${id} of the handbook.}`).join("\n") + "\n",
  };
}

function cli(dir: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; report: RunReport; stderr: string }> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [CLI, ...args, "--json"],
      { cwd: dir, env: { ...process.env, LOOPBACK_KEY: KEY, NO_COLOR: "1", ...env } },
      (err, stdout, stderr) => {
        try {
          resolve({ code: typeof err?.code === "number" ? err.code : 0, report: JSON.parse(stdout) as RunReport, stderr });
        } catch {
          reject(new Error(`not JSON: ${stdout}\n${stderr}`));
        }
      },
    ),
  );
}

async function service(rateLimits: NonNullable<Parameters<typeof startModelService>[0]["rateLimits"]>): Promise<ModelService> {
  const s = await startModelService({ key: KEY, answer: () => "done", rateLimits, latencyMs: 50 });
  services.push(s);
  return s;
}

describe("concurrency", () => {
  it(
    "auto: model calls go more than 4 at once as answers come, at most 32; commands keep 4 at once; a number caps both",
    { timeout: scaled(90_000) },
    async () => {
      const s = await startModelService({ key: KEY, answer: () => "done", latencyMs: 100 });
      services.push(s);
      const files = workflow("openai", s.openaiUrl, 60);
      const commands = Array.from(
        { length: 12 },
        (_, i) => `  c${String(i + 1).padStart(2, "0")}: {generator: command, generator_config: {run: sh step.sh}, output: out/c${i + 1}.txt}`,
      );
      const dir = tempRepo({
        ...files,
        "workflow.yml": files["workflow.yml"]!.trimEnd() + "\n" + commands.join("\n") + "\n",
        // Each command says when it starts and ends, and takes a while in between.
        "step.sh": 'echo start >> "$STEPS"\nsleep 0.15\necho end >> "$STEPS"\nprintf done\n',
      });
      const steps = path.join(dir, "steps.log");
      const most = () => {
        let now = 0;
        let top = 0;
        for (const line of readFileSync(steps, "utf8").trim().split("\n")) top = Math.max(top, (now += line === "start" ? 1 : -1));
        return top;
      };
      const auto = await cli(dir, ["run", "--sandbox", "off"], { STEPS: steps });
      expect(auto.code).toBe(0);
      expect(auto.report.totals.executed).toBe(72);
      expect(s.inFlight.most).toBeGreaterThan(4);
      expect(s.inFlight.most).toBeLessThanOrEqual(32);
      expect(most()).toBeLessThanOrEqual(4);

      s.inFlight.most = 0;
      const capped = await cli(dir, ["run", "--force", "--concurrency", "2", "--sandbox", "off"], { STEPS: steps });
      expect(capped.code).toBe(0);
      expect(s.inFlight.most).toBeLessThanOrEqual(2);
    },
  );
});

describe("a run at the provider's rate limit", () => {
  for (const provider of ["openai", "anthropic"] as const) {
    it(`${provider}: every pair accepted, at most one 429 per ten answers, each a wait and never a failed attempt`, { timeout: scaled(90_000) }, async () => {
      // About 2,500 tokens a "minute" of 3 s, each call about 250: ten at once, then three a second.
      const s = await service({ requestsPerMinute: 1_000, tokensPerMinute: 2_500, minuteMs: 3_000, headers: "provider" });
      const dir = tempRepo(workflow(provider, provider === "openai" ? s.openaiUrl : s.anthropicUrl, 30));
      const { code, report } = await cli(dir, ["run"]);
      expect(code).toBe(0);
      expect(report.totals.executed).toBe(30);
      expect(s.rate!.accepted).toBe(30);
      expect(s.rate!.refused).toBeLessThanOrEqual(3);
      expect(report.pacing!.refused).toBe(s.rate!.refused);
      expect(report.pacing!.held).toBeGreaterThan(0);
      expect(report.pacing!.budgets).toEqual([expect.objectContaining({ tokensPerMinute: 2_500, requestsPerMinute: 1_000 })]);
    });
  }

  it(
    "three shards at once against one limit, each a third of it: every pair accepted once, at most 15 429s per 100 answers",
    { timeout: scaled(90_000) },
    async () => {
      const s = await service({ requestsPerMinute: 1_000, tokensPerMinute: 2_500, minuteMs: 3_000, headers: "provider" });
      const dir = tempRepo(workflow("openai", s.openaiUrl, 45));
      const shards = await Promise.all(["1/3", "2/3", "3/3"].map((shard) => cli(dir, ["run", "--shard", shard])));
      for (const shard of shards) expect(shard.code, shard.stderr).toBe(0);
      expect(s.rate!.accepted).toBe(45);
      expect(new Set(s.requests.map((r) => r.prompt)).size).toBe(45);
      expect(s.rate!.refused).toBeLessThanOrEqual(Math.floor(0.15 * 45));
    },
  );

  it("an endpoint that sends no rate headers, paced by the limit its caller gives: every pair accepted, no 429", { timeout: scaled(90_000) }, async () => {
    const s = await service({ requestsPerMinute: 1_000, tokensPerMinute: 2_500, minuteMs: 3_000, headers: "none" });
    const dir = tempRepo(workflow("openai", s.openaiUrl, 30));
    // A tenth under the endpoint's limit, as docs/rate-limits.md says: no header corrects the count
    // here, and a busy machine delays requests on the way by more than a shortened minute allows.
    const { code, report } = await cli(dir, ["run", "--tokens-per-minute", "2250"], { PAIRFLOW_RATE_MINUTE_MS: "3000" });
    expect(code).toBe(0);
    expect(report.totals.executed).toBe(30);
    expect(s.rate).toEqual({ accepted: 30, refused: 0 });
    expect(report.pacing!.budgets).toEqual([expect.objectContaining({ tokensPerMinute: 2_250 })]);
  });

  it(
    "the bundled action: its rate-limit input paces an endpoint that sends no rate headers, and one it cannot read is refused",
    { timeout: scaled(90_000) },
    async () => {
      const s = await service({ requestsPerMinute: 1_000, tokensPerMinute: 2_500, minuteMs: 3_000, headers: "none" });
      const workspace = tempRepo(workflow("openai", s.openaiUrl, 20));
      const env = { LOOPBACK_KEY: KEY, PAIRFLOW_RATE_MINUTE_MS: "3000" };
      const wrong = await runAction({ workspace, with: { cache: "false", "rate-limit": "fast" }, env });
      expect(wrong.code).toBe(1);
      expect(wrong.errors.map((e) => e.message)).toEqual([
        'input rate-limit: "fast" is not requests=N,tokens=N (per minute, either or both, each greater than 0)',
      ]);
      // A tenth under the endpoint's limit, as the flag's test above and docs/rate-limits.md say.
      const result = await runAction({ workspace, with: { cache: "false", "rate-limit": "tokens=2250" }, env });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.outputs.executed!)).toHaveLength(20);
      expect(s.rate).toEqual({ accepted: 20, refused: 0 });
      // The job summary says how the calls were paced.
      expect(result.summary).toMatch(
        /Paced by the providers' rate limits \(127\.0\.0\.1:\d+ at 2,250 tokens\/min\): \d+ of 20 calls waited for their turn, [\d.]+s of waiting; none refused\./,
      );
    },
  );

  it("a wait longer than --max-wait interrupts its pair, not fails it; resuming sends nothing twice", { timeout: scaled(90_000) }, async () => {
    // Two calls fit; the next waits about a second and a half for the bucket to refill.
    const s = await service({ requestsPerMinute: 1_000, tokensPerMinute: 600, minuteMs: 4_000, headers: "provider" });
    const dir = tempRepo(workflow("openai", s.openaiUrl, 6));
    const first = await cli(dir, ["run", "--max-wait", "1"]);
    expect(first.code).toBe(1);
    expect(first.report.status).toBe("interrupted");
    const interrupted = first.report.pairs.filter((p) => p.status === "interrupted");
    expect(interrupted.length).toBeGreaterThan(0);
    expect(first.report.totals.failed).toBe(0);
    for (const p of interrupted) expect(p.note).toMatch(/^openai: waited 1s for 127\.0\.0\.1:\d+'s rate limit/);
    const executed = first.report.totals.executed;
    expect(s.rate!.accepted).toBe(executed);

    const resumed = await cli(dir, ["resume"]);
    expect(resumed.code).toBe(0);
    expect(resumed.report.status).toBe("success");
    expect(resumed.report.pairs.every((p) => p.status === "executed" || p.status === "reused")).toBe(true);
    // Every pair asked once, whatever waited and whatever was refused.
    expect(s.rate!.accepted).toBe(6);
    expect(new Set(s.requests.map((r) => r.prompt)).size).toBe(6);
  });
});

describe("scheduling for the prompt cache", () => {
  it(
    "four Claude pairs sharing a specification at the default concurrency: one cache write, three reads; a Claude pair only other providers and models share with is not marked",
    { timeout: scaled(90_000) },
    async () => {
      const s = await startModelService({ key: KEY, answer: () => "done", latencyMs: 100 });
      services.push(s);
      // Some 1,050 words: long enough for the loopback's cache and for Claude's 1,024-token minimum.
      const spec = "The glossary and style every translation follows. ".repeat(150).trim();
      const config = (url: string) => `{base_url: "${url}", api_key_env: LOOPBACK_KEY, max_tokens: 200}`;
      const dir = tempRepo({
        "workflow.yml": [
          "name: cached",
          "model: claude-sonnet-4-5",
          "generator: anthropic",
          `generator_config: ${config(s.anthropicUrl)}`,
          `specification: "${spec}"`,
          "action_pairs:",
          ...["a", "b", "c", "d"].map((id) => `  ${id}: {output: out/${id}.txt, guard: contains, guard_config: {text: done}}`),
          `  lone: {output: out/lone.txt, model: claude-opus-4-1}`,
          `  o1: {output: out/o1.txt, generator: openai, model: gpt-4o-mini, generator_config: ${config(s.openaiUrl)}}`,
          `  o2: {output: out/o2.txt, generator: openai, model: gpt-4o-mini, generator_config: ${config(s.openaiUrl)}}`,
          "",
        ].join("\n"),
        "prompts.yml": ["a", "b", "c", "d", "lone", "o1", "o2"].map((id) => `${id}: {task: Translate part ${id}.}`).join("\n") + "\n",
      });
      const { code, report } = await cli(dir, ["run"]);
      expect(code).toBe(0);
      const tokens = (id: string) => report.pairs.find((p) => p.id === id)!.attempts[0]!.tokens!;
      const claude = ["a", "b", "c", "d"].map(tokens);
      const writes = claude.filter((t) => (t.cacheWrite ?? 0) > 0);
      expect(writes).toHaveLength(1);
      expect(claude.filter((t) => (t.cacheRead ?? 0) > 0 && t.cacheWrite === undefined).map((t) => t.cacheRead)).toEqual(
        [1, 2, 3].map(() => writes[0]!.cacheWrite),
      );
      // Sent as plain text: nothing marked, nothing written.
      const lone = s.requests.find((r) => r.body.model === "claude-opus-4-1")!;
      expect(typeof lone.body.messages[0]!.content).toBe("string");
      expect(tokens("lone").cacheWrite).toBeUndefined();

      // The estimate says the same ahead of a run.
      const planned = JSON.parse(
        await new Promise<string>((resolve) =>
          execFile(process.execPath, [CLI, "plan", "--json", "--force"], { cwd: dir, env: { ...process.env, NO_COLOR: "1" } }, (_e, out) => resolve(out)),
        ),
      ) as { pairs: { id: string; estimate: { tokens: { cacheWrite?: number; cacheRead?: number } } }[] };
      const estimate = (id: string) => planned.pairs.find((p) => p.id === id)!.estimate.tokens;
      expect(["a", "b", "c", "d"].filter((id) => estimate(id).cacheWrite !== undefined)).toHaveLength(1);
      expect(estimate("lone").cacheWrite ?? estimate("lone").cacheRead).toBeUndefined();
    },
  );
});
