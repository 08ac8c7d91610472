/**
 * The estimate with the providers' price levers: requests through a batch API at the batch price,
 * and the beginning pairs' prompts share served by the prompt cache, as the plan predicts it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { costOf, priceFor } from "../../src/estimate/prices.js";
import { tempRepo } from "../helpers/fixtures.js";
import { cli } from "./helpers.js";

/** Some 1,500 tokens by the approximate count (characters / 4): above Claude Sonnet's 1,024-token minimum. */
const SPEC = "The glossary and style every translation follows. ".repeat(120);

function project(generatorConfig = "{base_url: 'http://127.0.0.1:9'}", extra = ""): string {
  return tempRepo({
    "workflow.yml": `name: levers
model: claude-sonnet-4-5
generator: anthropic
generator_config: ${generatorConfig}
specification: "${SPEC}"
action_pairs:
  a: {output: out/a.txt}
  b: {output: out/b.txt}
  c: {output: out/c.txt}
  lone: {output: out/lone.txt, model: claude-haiku-4-5}
${extra}`,
    "prompts.yml": "a: {role: Translator, task: A}\nb: {role: Translator, task: B}\nc: {role: Translator, task: C}\nlone: {role: Other, task: D}\n",
  });
}

interface Estimate {
  tokens: { input: number; output: number; cacheRead?: number; cacheWrite?: number; batch?: boolean };
  cost: number;
  inputTokens: number;
}

async function plan(dir: string, ...flags: string[]) {
  const r = await cli(["plan", "--json", ...flags], { cwd: dir });
  expect(r.status, r.stderr).toBe(0);
  const json = JSON.parse(r.stdout) as { pairs: { id: string; estimate: Estimate }[]; totals: { estimate: { cost: number } } };
  return { byId: new Map(json.pairs.map((p) => [p.id, p.estimate])), total: json.totals.estimate.cost };
}

describe("the estimate", () => {
  it("predicts the prompt cache from the beginning pairs share: the first writes it, the others read it", async () => {
    const { byId } = await plan(project());
    const [a, b, c, lone] = ["a", "b", "c", "lone"].map((id) => byId.get(id)!);
    expect(a!.tokens.cacheWrite).toBeGreaterThan(1024);
    expect(a!.tokens.cacheRead).toBeUndefined();
    for (const e of [b!, c!]) {
      expect(e.tokens.cacheRead).toBe(a!.tokens.cacheWrite);
      expect(e.tokens.cacheWrite).toBeUndefined();
      expect(e.cost).toBeLessThan(a!.cost);
    }
    // Alone with its role: nothing shared, nothing cached.
    expect(lone!.tokens.cacheRead ?? lone!.tokens.cacheWrite).toBeUndefined();
    const price = priceFor("claude-sonnet-4-5")!;
    expect(b!.cost).toBeCloseTo(costOf(b!.tokens, price), 12);
    expect(b!.cost).toBeLessThan(costOf({ input: b!.tokens.input, output: b!.tokens.output }, price));
  });

  it("prices every request at the batch price under --batch, and a pair's own batch: true without it", async () => {
    const dir = project();
    const sync = await plan(dir);
    const batch = await plan(dir, "--batch");
    for (const [id, e] of batch.byId) {
      expect(e.tokens.batch, id).toBe(true);
      expect(e.cost).toBeCloseTo(sync.byId.get(id)!.cost / 2, 12);
    }
    expect(batch.total).toBeCloseTo(sync.total / 2, 12);

    const own = await plan(project("{base_url: 'http://127.0.0.1:9', batch: true}"));
    expect([...own.byId.values()].every((e) => e.tokens.batch === true)).toBe(true);

    const text = (await cli(["plan", "--batch"], { cwd: dir })).stdout;
    expect(text).toContain("batch prices for a, b, c, lone: their requests go through the provider's batch API");
    expect(text).toMatch(/prompt cache: [\d,]+ input tokens expected from it at the cached-input price, [\d,]+ written to it, as 3 pairs begin alike/);
  });

  it("lets the budget gate weigh batch prices: a run over --max-cost synchronously fits it in batches", async () => {
    const dir = project();
    const sync = await plan(dir);
    const between = ((sync.total + sync.total / 2) / 2).toFixed(4);
    const over = await cli(["run", "--max-cost", between], { cwd: dir, env: { LOOPBACK_KEY: "x" } });
    expect(over.status).toBe(1);
    expect(over.stderr).toMatch(/the estimated cost \$[\d.]+ exceeds --max-cost/);
    // In batches it fits, and so it starts (and fails here only for want of a provider).
    const batch = await cli(["run", "--batch", "--max-cost", between], { cwd: dir, env: { PAIRFLOW_HTTP_BACKOFF_MS: "1" } });
    expect(batch.stderr).not.toMatch(/exceeds --max-cost/);
    expect(batch.stdout).toMatch(/^Estimate: 4 pairs to run: [\d,]+ tokens, \$[\d.]+ \(pairflow plan shows the breakdown\)$/m);
  });

  it("predicts OpenAI's cache in its steps of 128 tokens from 1,024, with no charge for writing it", async () => {
    const dir = tempRepo({
      "workflow.yml": `name: o
model: gpt-4o
generator: openai
generator_config: {base_url: 'http://127.0.0.1:9'}
specification: "${SPEC.repeat(2)}"
action_pairs:
  a: {output: out/a.txt}
  b: {output: out/b.txt}
`,
    });
    const { byId } = await plan(dir);
    expect(byId.get("a")!.tokens.cacheRead ?? byId.get("a")!.tokens.cacheWrite).toBeUndefined();
    const read = byId.get("b")!.tokens.cacheRead!;
    expect(read).toBeGreaterThanOrEqual(1024);
    expect((read - 1024) % 128).toBe(0);
    expect(read).toBeLessThanOrEqual(byId.get("b")!.inputTokens);
  });
});

describe("a configured rate limit", () => {
  it("says how long the calls take at it, at least: what they ask beyond the first full minute, at the limit's rate", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 500, max: 20_000 }),
        fc.integer({ min: 1, max: 2_000 }),
        async (n, perMinute, maxTokens) => {
          const ids = Array.from({ length: n }, (_, i) => `p${i}`);
          const dir = tempRepo({
            "workflow.yml": [
              "name: paced",
              "model: local-model",
              "generator: openai",
              `generator_config: {base_url: "http://gpu-box:8000/v1", max_tokens: ${maxTokens}, rate_limit: {tokens_per_minute: ${perMinute}}}`,
              "action_pairs:",
              ...ids.map((id) => `  ${id}: {output: out/${id}.txt}`),
              "",
            ].join("\n"),
            "prompts.yml": ids.map((id) => `${id}: {task: Write ${id}.}`).join("\n") + "\n",
          });
          const r = await cli(["plan", "--all"], { cwd: dir });
          expect(r.status, r.stderr).toBe(0);
          const { byId } = await plan(dir);
          const asked = ids.reduce((sum, id) => sum + byId.get(id)!.inputTokens + maxTokens, 0);
          const minutes = Math.max(0, asked - perMinute) / perMinute;
          const takes = minutes < 1 ? "within the first minute" : `about ${Math.ceil(minutes)} min`;
          expect(r.stdout).toContain(
            `at ${perMinute.toLocaleString("en-US")} tokens/min (the rate_limit of http://gpu-box:8000/v1, local-model): ${takes} for ${n} call${n === 1 ? "" : "s"}`,
          );
        },
      ),
      { numRuns: 8 },
    );
  });
});
