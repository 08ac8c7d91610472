/**
 * The estimate of the example workflow (examples/tdd-stack): its generator is a command and its
 * model, stand-in-1, has no tokenizer, so the estimate is approximate. The example prices it at
 * zero; these tests take that price out, to show an unpriced model's estimate.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadWorkflow } from "../../src/workspace/load.js";
import { renderPrompt } from "../../src/prompt/render.js";
import { copyToTempRepo, REPO } from "../helpers/fixtures.js";
import { cli } from "./helpers.js";

const EXAMPLE = path.join(REPO, "examples/tdd-stack");

/** The example with no price for its model. */
function unpriced(): string {
  const dir = copyToTempRepo(EXAMPLE);
  const file = path.join(dir, "workflow.yml");
  const text = readFileSync(file, "utf8");
  writeFileSync(file, text.slice(0, text.indexOf("\n# What the model costs")) + "\n");
  return dir;
}

/** The prompt of `id` as the run renders it, given its dependencies' contents. */
function prompt(dir: string, id: string, dependencies: { id: string; content: string }[]): string {
  const { workflow } = loadWorkflow(dir);
  return renderPrompt({
    prompt: workflow.pairs.get(id)!.prompt,
    specification: workflow.specification,
    constraints: workflow.constraints,
    dependencies,
    history: [],
  });
}

describe("the estimate of the example", () => {
  it("shows every pair's tokens, approximated and labelled so, with cost unknown and no invented number", async () => {
    const dir = unpriced();
    const r = await cli(["plan"], { cwd: dir });
    expect(r.status).toBe(0);
    const estimate = r.stdout.slice(r.stdout.indexOf("Estimate for"));
    expect(estimate).toMatch(/^Estimate for 3 pairs to run: [\d,]+ tokens, cost unknown$/m);
    const approx = Math.ceil(prompt(dir, "g_test", []).length / 4);
    expect(estimate).toMatch(new RegExp(`^ {2}g_test +stand-in-1 +~${approx} +1,000 +1 +${(approx + 1000).toLocaleString("en-US")} +cost unknown$`, "m"));
    expect(estimate).toMatch(/^ {2}total +[\d,]+ +cost unknown$/m);
    expect(estimate).toContain("~ approximate input: characters / 4, as pairflow has no tokenizer for stand-in-1");
    expect(estimate).toContain("prices: no price for stand-in-1 (add it under pricing: in the workflow file)");
    expect(estimate).toContain("g_impl: g_test has no accepted content here yet: counted as its expected output (1,000 tokens)");
    expect(estimate).not.toMatch(/\$/);
  });

  it("adds an estimate to each pair and to the totals of plan --json, keeping every other field", async () => {
    const dir = unpriced();
    const json = JSON.parse((await cli(["plan", "--json"], { cwd: dir })).stdout);
    expect(Object.keys(json)).toEqual(["version", "workflow", "waves", "pairs", "totals"]);
    expect(Object.keys(json.pairs[0])).toEqual(["id", "wave", "requires", "configRef", "action", "reasons", "estimate"]);
    expect(json.pairs[0].estimate).toEqual({
      model: "stand-in-1",
      inputTokens: Math.ceil(prompt(dir, "g_test", []).length / 4),
      tokenizer: "approximate",
      outputTokens: 1000,
      outputBasis: "default",
      attempts: 1,
      attemptsBasis: "default",
      tokens: { input: Math.ceil(prompt(dir, "g_test", []).length / 4), output: 1000 },
      price: null,
      cost: null,
      notes: [],
    });
    expect(json.totals).toMatchObject({ pairs: 3, run: 3, skip: 0 });
    expect(json.totals.estimate).toMatchObject({
      pairs: 3,
      cost: null,
      knownCost: 0,
      unpricedModels: ["stand-in-1"],
      pricesAsOf: expect.stringMatching(/^\d{4}-\d{2}/),
    });
  });

  it("estimates a pair whose upstream will re-run with the upstream's last accepted content, and says so", async () => {
    const dir = unpriced();
    expect((await cli(["run"], { cwd: dir })).status).toBe(0);
    const prompts = path.join(dir, "prompts.yml");
    writeFileSync(prompts, readFileSync(prompts, "utf8").replace("task: Implement the Stack class.", "task: Implement the Stack class with a list."));

    const json = JSON.parse((await cli(["plan", "--json"], { cwd: dir })).stdout);
    expect(json.pairs.map((p: { action: string }) => p.action)).toEqual(["skip", "run", "run"]);
    expect(json.pairs[0].estimate).toBeNull();
    const review = json.pairs[2].estimate;
    expect(review.notes).toEqual(["g_impl will run: estimated with its last accepted content"]);
    const accepted = (file: string) => readFileSync(path.join(dir, "out", file), "utf8");
    const rendered = prompt(dir, "g_review", [
      { id: "g_test", content: accepted("test_stack.py") },
      { id: "g_impl", content: accepted("stack.py") },
    ]);
    expect(review.inputTokens).toBe(Math.ceil(rendered.length / 4));
    // The command generator reports no usage: attempts are learnt, output tokens are not.
    expect(review).toMatchObject({ attempts: 1, attemptsBasis: "history", outputTokens: 1000, outputBasis: "default" });
  });

  it("says after a run that a command generator reported no tokens, rather than a zero", async () => {
    const dir = unpriced();
    const r = await cli(["run"], { cwd: dir });
    const after = r.stdout.slice(r.stdout.indexOf("Estimated against actual"));
    expect(after).toMatch(/^ {2}g_test +executed +[\d,]+ +not reported +cost unknown +-$/m);
    expect(after).toContain("not reported: the generator gave no token usage");
  });
});
