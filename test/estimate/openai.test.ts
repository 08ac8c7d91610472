/**
 * Estimates against a real run: the `openai` generator talks to a chat-completions endpoint on
 * 127.0.0.1 that reports token usage, so the run records actual tokens and the next plan learns.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readLock } from "../../src/lockfile/lockfile.js";
import { tempRepo } from "../helpers/fixtures.js";
import { cli, loopbackProvider, type Provider } from "./helpers.js";

let provider: Provider;

beforeEach(async () => {
  // The answer quotes the task, so a changed task gives changed content, as a model would.
  provider = await loopbackProvider((prompt) => {
    const task = /# Task\n\n(.*)/.exec(prompt)?.[1] ?? "";
    return `Answer to "${task}":\n` + "A stack keeps its items in order and hands back the newest first. ".repeat(6);
  });
});
afterEach(() => provider.close());

function project(options: { pricing?: string } = {}): string {
  return tempRepo({
    "workflow.yml": `name: priced
model: gpt-4.1-mini
generator: openai
generator_config: {base_url: "${provider.baseUrl}", retries: 0}
${options.pricing ?? ""}
action_pairs:
  spec: {output: out/spec.md}
  code: {requires: [spec], output: out/code.md}
`,
    "prompts.yml": "spec: {role: You write specifications., task: Specify a stack.}\ncode: {role: You write code., task: Implement the specification.}\n",
  });
}

interface PairJson {
  id: string;
  action: string;
  estimate: {
    inputTokens: number;
    outputTokens: number;
    outputBasis: string;
    attempts: number;
    attemptsBasis: string;
    tokenizer: string;
    tokens: { input: number; output: number };
    cost: number | null;
    notes: string[];
  } | null;
}

async function planJson(dir: string): Promise<{ pairs: PairJson[]; totals: { estimate: { cost: number | null; tokens: { input: number; output: number } } } }> {
  const r = await cli(["plan", "--json"], { cwd: dir });
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

const byId = (pairs: PairJson[], id: string) => pairs.find((p) => p.id === id)!;

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(file, text.replace(from, to));
}

describe("the estimate of an openai workflow", () => {
  it("counts the prompt exactly as the provider does, prices it, and learns output tokens from the run", async () => {
    const dir = project();
    const first = await planJson(dir);
    const spec1 = byId(first.pairs, "spec").estimate!;
    const code1 = byId(first.pairs, "code").estimate!;
    expect(spec1).toMatchObject({ tokenizer: "o200k_base", outputTokens: 1000, outputBasis: "default", attempts: 1, attemptsBasis: "default" });
    // gpt-4.1-mini's built-in price: $0.40 in, $1.60 out per million tokens.
    expect(spec1.cost).toBeCloseTo((spec1.inputTokens * 0.4 + 1000 * 1.6) / 1e6, 12);
    expect(code1.notes).toEqual(["spec has no accepted content here yet: counted as its expected output (1,000 tokens)"]);

    const run = await cli(["run", "--json"], { cwd: dir });
    expect(run.status).toBe(0);
    expect(provider.requests).toHaveLength(2);
    const [specCall, codeCall] = provider.requests;
    // The estimate rendered the very prompt the run sent.
    expect(spec1.inputTokens).toBe(specCall!.usage.prompt_tokens);

    // The run recorded actual tokens, and shows them against the estimate.
    const lock = readLock(path.join(dir, "workflow.lock.json"))!;
    expect(lock.pairs.spec!.tokens).toEqual({ input: specCall!.usage.prompt_tokens, output: specCall!.usage.completion_tokens });
    const report = JSON.parse(run.stdout);
    expect(report.estimate.pairs[0]).toEqual({
      id: "spec",
      status: "executed",
      estimated: { tokens: spec1.tokens, cost: spec1.cost },
      actual: {
        tokens: { input: specCall!.usage.prompt_tokens, output: specCall!.usage.completion_tokens },
        cost: expect.closeTo((specCall!.usage.prompt_tokens * 0.4 + specCall!.usage.completion_tokens * 1.6) / 1e6, 12),
      },
    });
    expect(run.stderr).toMatch(/^Estimated against actual$/m);

    // spec's task changes, so spec runs again and code after it: the estimate now starts from the first run.
    edit(path.join(dir, "prompts.yml"), "Specify a stack.", "Specify a bounded stack.");
    const second = await planJson(dir);
    const spec2 = byId(second.pairs, "spec").estimate!;
    const code2 = byId(second.pairs, "code").estimate!;
    expect(spec2).toMatchObject({ outputTokens: specCall!.usage.completion_tokens, outputBasis: "history", attempts: 1, attemptsBasis: "history" });
    expect(code2.notes).toEqual(["spec will run: estimated with its last accepted content"]);
    // code's prompt is estimated with spec's last accepted output: what the first run sent it.
    expect(code2.inputTokens).toBe(codeCall!.usage.prompt_tokens);

    const actual =
      (specCall!.usage.prompt_tokens + codeCall!.usage.prompt_tokens) * 0.4 + (specCall!.usage.completion_tokens + codeCall!.usage.completion_tokens) * 1.6;
    const error1 = Math.abs(first.totals.estimate.cost! * 1e6 - actual);
    const error2 = Math.abs(second.totals.estimate.cost! * 1e6 - actual);
    expect(error2).toBeLessThan(error1 / 5);
  });

  it("refuses a run over --max-cost, printing the breakdown and executing nothing", async () => {
    const dir = project();
    const r = await cli(["run", "--max-cost", "0.0001"], { cwd: dir });
    expect(r.status).toBe(1);
    expect(provider.requests).toHaveLength(0);
    expect(existsSync(path.join(dir, "workflow.lock.json"))).toBe(false);
    expect(existsSync(path.join(dir, "out"))).toBe(false);
    expect(r.stdout).toMatch(/^Estimate for 2 pairs to run: [\d,]+ tokens, \$0\.00\d+$/m);
    expect(r.stdout).toMatch(/^ {2}spec +gpt-4\.1-mini +[\d,]+ +1,000 +1 +[\d,]+ +\$0\.00\d+$/m);
    expect(r.stdout).toMatch(/^ {2}code +gpt-4\.1-mini /m);
    expect(r.stdout).not.toMatch(/^(start|accepted) /m);
    expect(r.stderr).toMatch(/^error the estimated cost \$0\.00\d+ exceeds --max-cost \$0\.00010; nothing was executed$/m);
  });

  it("runs when the estimate fits the budget", async () => {
    const dir = project();
    const r = await cli(["run", "--max-cost", "$0.50"], { cwd: dir });
    expect(r.status).toBe(0);
    expect(provider.requests).toHaveLength(2);
  });

  it("prices a model from the workflow's pricing: over the built-in price", async () => {
    const dir = project({ pricing: "pricing:\n  gpt-4.1-mini: {input: 100, output: 200}" });
    const spec = byId((await planJson(dir)).pairs, "spec").estimate!;
    expect(spec.cost).toBeCloseTo((spec.inputTokens * 100 + 1000 * 200) / 1e6, 12);
    const text = await cli(["plan"], { cwd: dir });
    expect(text.stdout).toContain("prices: the workflow's pricing: for gpt-4.1-mini");
  });

  it("rejects a --max-cost that is not an amount", async () => {
    const r = await cli(["run", "--max-cost", "lots"], { cwd: project() });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("expected an amount of US dollars, such as 0.50");
    expect(provider.requests).toHaveLength(0);
  });
});
