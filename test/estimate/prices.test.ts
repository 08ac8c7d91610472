import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILT_IN_PRICES, costOf, priceFor } from "../../src/estimate/prices.js";
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
    expect(priceFor("gpt-4.1-mini-2025-04-14")).toEqual({ input: 0.4, output: 1.6, cachedInput: 0.1, batchDiscount: 0.5, source: "built-in" });
    expect(priceFor("openai/gpt-4o-mini")).toEqual({ input: 0.15, output: 0.6, cachedInput: 0.075, batchDiscount: 0.5, source: "built-in" });
    expect(priceFor("claude-3-5-haiku-latest")).toEqual({ input: 0.8, output: 4, cachedInput: 0.08, cacheWrite: 1, batchDiscount: 0.5, source: "built-in" });
    expect(priceFor("gpt-4o-mini-tts")).toBeNull();
    expect(priceFor("llama3")).toBeNull();
    expect(priceFor(null)).toBeNull();
  });
});

describe("batch and cache prices", () => {
  it("are the providers' own: batches at half price, cached input a tenth (gpt-5, Claude) to a half (gpt-4o) of input, Claude's cache writes 1.25x (Claude 3 Haiku: $0.03 and $0.30)", () => {
    for (const [model, price] of Object.entries(BUILT_IN_PRICES)) {
      expect(price.batchDiscount, model).toBe(0.5);
      const ratio = price.cachedInput! / price.input;
      if (model === "claude-3-haiku") {
        // Anthropic's price list gives Claude 3 Haiku its own cache prices.
        expect([price.cachedInput, price.cacheWrite]).toEqual([0.03, 0.3]);
      } else if (model.startsWith("claude-")) {
        expect(ratio, model).toBeCloseTo(0.1, 6);
        expect(price.cacheWrite! / price.input, model).toBeCloseTo(1.25, 6);
      } else {
        expect(price.cacheWrite, model).toBeUndefined();
        const expected = model.startsWith("gpt-5") ? 0.1 : model.startsWith("gpt-4o") || model === "o3-mini" ? 0.5 : 0.25;
        expect(ratio, model).toBeCloseTo(expected, 6);
      }
    }
  });

  const usage = fc.record({
    input: fc.integer({ min: 0, max: 2_000_000 }),
    output: fc.integer({ min: 0, max: 200_000 }),
    read: fc.double({ min: 0, max: 1, noNaN: true }),
    write: fc.double({ min: 0, max: 1, noNaN: true }),
    batch: fc.boolean(),
  });
  const priced = fc.constantFrom(...Object.values(BUILT_IN_PRICES));

  it("never costs more than the same tokens uncached and synchronous, save for Anthropic's cache writes, and exactly half in a batch", () => {
    fc.assert(
      fc.property(usage, priced, (u, price) => {
        const cacheRead = Math.floor(u.input * u.read);
        const cacheWrite = Math.floor((u.input - cacheRead) * u.write);
        const plain = costOf({ input: u.input, output: u.output }, price);
        const sync = costOf({ input: u.input, output: u.output, cacheRead, cacheWrite }, price);
        const batched = costOf({ input: u.input, output: u.output, cacheRead, cacheWrite, batch: true }, price);
        expect(batched).toBeCloseTo(sync / 2, 12);
        const premium = (cacheWrite * ((price.cacheWrite ?? price.input) - price.input)) / 1e6;
        expect(sync).toBeLessThanOrEqual(plain + premium + 1e-12);
        expect(costOf({ input: u.input, output: u.output, cacheRead }, price)).toBeLessThanOrEqual(plain + 1e-12);
      }),
    );
  });

  it("prices cache reads and writes the workflow's way, and nothing off what its pricing leaves out", () => {
    const price = { input: 2, output: 10 };
    expect(costOf({ input: 1_000_000, output: 0, cacheRead: 600_000, cacheWrite: 400_000, batch: true }, price)).toBe(2);
    const full = { input: 2, output: 10, cachedInput: 0.5, cacheWrite: 3, batchDiscount: 0.25 };
    // 0.6 M read at 0.5, 0.3 M written at 3, 0.1 M fresh at 2, 0.5 M out at 10; 25 % off.
    expect(costOf({ input: 1_000_000, output: 500_000, cacheRead: 600_000, cacheWrite: 300_000, batch: true }, full)).toBeCloseTo(
      (0.3 + 0.9 + 0.2 + 5) * 0.75,
      12,
    );
  });

  it("are read from the workflow's pricing:", async () => {
    const dir = project("pricing:\n  acme-large-2: {input: 1, output: 3, cached_input: 0.1, cache_write: 1.5, batch_discount: 0.5}\n");
    const json = JSON.parse((await cli(["plan", "--json"], { cwd: dir })).stdout);
    expect(json.pairs[1].estimate.price).toEqual({ input: 1, output: 3, cachedInput: 0.1, cacheWrite: 1.5, batchDiscount: 0.5, source: "workflow" });
    const bad = project("pricing:\n  acme-large-2: {input: 1, output: 3, batch_discount: 2}\n");
    const r = await cli(["plan"], { cwd: bad });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/pricing\.acme-large-2\.batch_discount: found the number 2; expected a value that must be <= 1/);
  });
});
