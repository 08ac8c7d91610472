import { describe, expect, it } from "vitest";
import { priceFor } from "../../src/estimate/prices.js";
import { tempRepo } from "../helpers/fixtures.js";
import { cli } from "./helpers.js";

const GEN = `process.stdout.write("done\\n");\n`;

function project(pricing = ""): string {
  return tempRepo({
    "workflow.yml": `name: mixed
generator: command
generator_config: {run: node gen.mjs}
${pricing}
action_pairs:
  known: {model: claude-sonnet-4-5-20250929}
  unknown: {model: acme-large-2}
`,
    "gen.mjs": GEN,
  });
}

describe("a model with no known price", () => {
  it("shows its tokens and cost unknown, never a number, and totals only what is known", async () => {
    const dir = project();
    const text = (await cli(["plan"], { cwd: dir })).stdout;
    expect(text).toMatch(/^ {2}unknown +acme-large-2 +~\d+ +1,000 +1 +[\d,]+ +cost unknown$/m);
    expect(text).toMatch(/^ {2}known +claude-sonnet-4-5-20250929 +~\d+ +1,000 +1 +[\d,]+ +\$0\.01\d$/m);
    expect(text).toMatch(/^Estimate for 2 pairs to run: [\d,]+ tokens, \$0\.01\d \+ cost unknown for 1 pair$/m);

    const json = JSON.parse((await cli(["plan", "--json"], { cwd: dir })).stdout);
    expect(json.pairs[1].estimate).toMatchObject({ model: "acme-large-2", price: null, cost: null });
    expect(json.pairs[1].estimate.tokens.output).toBe(1000);
    expect(json.totals.estimate).toMatchObject({ cost: null, unpricedModels: ["acme-large-2"] });
    expect(json.totals.estimate.knownCost).toBeCloseTo(json.pairs[0].estimate.cost, 12);
  });

  it("cannot pass --max-cost: the run is refused and says how to price the model", async () => {
    const dir = project();
    const r = await cli(["run", "--max-cost", "100"], { cwd: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      "the cost of unknown is unknown (no price for acme-large-2), so it cannot be checked against --max-cost $100.00; add the model under pricing: in the workflow file",
    );
    expect(r.stdout).not.toMatch(/^accepted /m);
  });

  it("is priced once the workflow gives its price", async () => {
    const dir = project("pricing:\n  acme-large-2: {input: 1, output: 3}\n");
    const json = JSON.parse((await cli(["plan", "--json"], { cwd: dir })).stdout);
    const e = json.pairs[1].estimate;
    expect(e.price).toEqual({ input: 1, output: 3, source: "workflow" });
    expect(e.cost).toBeCloseTo((e.tokens.input * 1 + e.tokens.output * 3) / 1e6, 12);
    expect(json.totals.estimate.cost).toBeCloseTo(json.pairs[0].estimate.cost + e.cost, 12);
    expect((await cli(["run", "--max-cost", "1"], { cwd: dir })).status).toBe(0);
  });

  it("is a configuration error to give a price without both rates", async () => {
    const dir = project("pricing:\n  acme-large-2: {input: 1, ouput: 3}\n");
    const r = await cli(["plan"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('workflow.yml:5:17: pricing.acme-large-2: missing required key "output"');
    expect(r.stderr).toContain('unknown key "ouput"; did you mean "output"?');
  });
});

describe("built-in prices", () => {
  it("match dated snapshots and provider prefixes of a known model, and nothing else", () => {
    expect(priceFor("gpt-4.1-mini-2025-04-14")).toEqual({ input: 0.4, output: 1.6, source: "built-in" });
    expect(priceFor("openai/gpt-4o-mini")).toEqual({ input: 0.15, output: 0.6, source: "built-in" });
    expect(priceFor("claude-3-5-haiku-latest")).toEqual({ input: 0.8, output: 4, source: "built-in" });
    expect(priceFor("gpt-4o-mini-tts")).toBeNull();
    expect(priceFor("llama3")).toBeNull();
    expect(priceFor(null)).toBeNull();
  });
});
