/**
 * Tables that fit GitHub's column: every table of the job summary, the pull request comment, the
 * estimate and the estimate against what the run spent has at most four columns, every row as many
 * cells as its header; what does not fit is in a collapsed table under it. A priced run's
 * "Estimated against actual" keeps the pair and the two costs, its tokens in the details.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PlanEstimate } from "../../src/estimate/estimate.js";
import { comparisonMarkdown, estimateMarkdown, type RunComparison } from "../../src/report/estimate.js";
import { diffMarkdown } from "../../src/report/diffMarkdown.js";
import { planSummaryMarkdown, runSummaryMarkdown } from "../../src/report/summary.js";
import { worlds } from "./worlds.js";
import { diffOf } from "../helpers/diff.js";

/** Each table of some Markdown: its header's cells and its rows' cells. */
function tables(markdown: string): { header: string[]; rows: string[][] }[] {
  const lines = markdown.split("\n");
  const cells = (line: string) => line.slice(1, -1).split(/(?<!\\)\|/);
  const found: { header: string[]; rows: string[][] }[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.startsWith("|") || !/^\|( ?-+:? ?\|)+$/.test(lines[i + 1]!)) continue;
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j]!.startsWith("|"); j++) rows.push(cells(lines[j]!));
    found.push({ header: cells(lines[i]!).map((c) => c.trim()), rows });
    i = j - 1;
  }
  return found;
}

function expectFits(markdown: string): void {
  for (const t of tables(markdown)) {
    expect(t.header.length).toBeLessThanOrEqual(4);
    for (const row of t.rows) expect(row).toHaveLength(t.header.length);
  }
}

const usage = fc.record({ input: fc.nat({ max: 100_000 }), output: fc.nat({ max: 10_000 }) });
const cost = fc.option(fc.double({ min: 0, max: 5, noNaN: true }), { freq: 3 });

const comparisons: fc.Arbitrary<RunComparison> = fc
  .array(
    fc.record({
      status: fc.constantFrom("executed", "failed", "blocked", "reused", "not run" as const),
      estimated: fc.record({ tokens: usage, cost }),
      actual: fc.record({ tokens: fc.option(usage), cost }),
    }),
    { minLength: 1, maxLength: 30 },
  )
  .map((list) => {
    const pairs = list.map((p, i) => ({ id: `p${i}`, ...p })) as RunComparison["pairs"];
    const known = pairs.every((p) => p.estimated.cost !== null);
    return {
      pairs,
      totals: {
        estimated: { tokens: { input: 1, output: 1 }, cost: known ? pairs.reduce((s, p) => s + p.estimated.cost!, 0) : null },
        actual: { tokens: null, cost: null },
      },
    };
  });

const estimates: fc.Arbitrary<PlanEstimate> = fc
  .array(fc.record({ model: fc.option(fc.constantFrom("gpt-4o", "claude-x")), tokens: usage, cost, attempts: fc.integer({ min: 1, max: 4 }) }), {
    minLength: 1,
    maxLength: 30,
  })
  .map(
    (list) =>
      ({
        pairs: list.map((p, i) => ({
          id: `p${i}`,
          model: p.model,
          inputTokens: p.tokens.input,
          tokenizer: "o200k_base",
          outputTokens: p.tokens.output,
          outputBasis: "default",
          attempts: p.attempts,
          attemptsBasis: "default",
          tokens: p.tokens,
          price: null,
          cost: p.cost,
          notes: [],
        })),
        totals: { pairs: list.length, tokens: { input: 1, output: 1 }, cost: null, knownCost: 0, unpricedModels: [] },
        pricesAsOf: "2026-01-01",
        paced: [],
      }) as unknown as PlanEstimate,
  );

describe("tables", () => {
  it("of the job summaries and the comment have at most four columns, whatever the plan and the run", () => {
    fc.assert(
      fc.property(worlds, ({ plan, report }) => {
        expectFits(planSummaryMarkdown(plan));
        const run = runSummaryMarkdown(plan, report);
        expectFits(run);
        // A run's attempts, tokens and references are under the table, collapsed.
        expect(run).toContain("<details><summary>Attempts, tokens and reference of each pair</summary>");
        expectFits(diffMarkdown(diffOf(plan)));
      }),
      { numRuns: 20 },
    );
  });

  it("of the estimate have at most four columns, the rest of each pair's figures collapsed under them", () => {
    fc.assert(
      fc.property(estimates, (estimate) => {
        const markdown = estimateMarkdown(estimate);
        expectFits(markdown);
        const [main, details] = tables(markdown);
        expect(main!.header).toEqual(["pair", "model", "tokens", "cost"]);
        expect(details!.header).toEqual(["pair", "input", "output", "attempts"]);
        expect(main!.rows).toHaveLength(estimate.pairs.length + 1);
      }),
      { numRuns: 50 },
    );
  });

  it("of a priced run's estimate against actual keep pair, estimate and actual cost, the tokens in the details", () => {
    fc.assert(
      fc.property(comparisons, (c) => {
        const markdown = comparisonMarkdown(c);
        expectFits(markdown);
        const [main, ...rest] = tables(markdown);
        const priced = c.totals.estimated.cost !== null || c.pairs.some((p) => p.estimated.cost !== null || p.actual.cost !== null);
        if (priced) {
          expect(main!.header).toEqual(["pair", "estimate", "actual"]);
          expect(markdown).toContain("<details><summary>Status and tokens of each pair</summary>");
          expect(rest.map((t) => t.header)).toEqual([["pair", "status", "est. tokens", "actual tokens"]]);
        } else expect(main!.header).toEqual(["pair", "status", "est. tokens", "actual tokens"]);
        expect(main!.rows).toHaveLength(c.pairs.length + 1);
      }),
      { numRuns: 50 },
    );
  });
});
