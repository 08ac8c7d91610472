/** What a run bought, priced call by call as it was bought: batch requests at the batch price, cached input at the cache's. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { spendOf } from "../../src/estimate/spend.js";
import { costOf, priceFor } from "../../src/estimate/prices.js";
import type { AttemptRecord, PairOutcome } from "../../src/model/run.js";
import { spendLine } from "../../src/report/spend.js";
import { workflowOf } from "../core/world.js";

const MODEL = "claude-sonnet-4-5";

const attempt = fc
  .record({
    input: fc.integer({ min: 0, max: 50_000 }),
    output: fc.integer({ min: 0, max: 5_000 }),
    read: fc.double({ min: 0, max: 1, noNaN: true }),
    write: fc.double({ min: 0, max: 1, noNaN: true }),
    batch: fc.boolean(),
  })
  .map(({ input, output, read, write, batch }): AttemptRecord => {
    const cacheRead = Math.floor(input * read);
    const cacheWrite = Math.floor((input - cacheRead) * write);
    return {
      attempt: 1,
      accepted: true,
      feedback: "",
      durationMs: 1,
      tokens: { input, output, ...(cacheRead > 0 ? { cacheRead } : {}), ...(cacheWrite > 0 ? { cacheWrite } : {}), ...(batch ? { batch } : {}) },
    };
  });

function report(attempts: AttemptRecord[][]) {
  const { workflow } = workflowOf(attempts.map((_, i) => ({ id: `p${i}`, model: MODEL })));
  const pairs: PairOutcome[] = attempts.map((list, i) => ({
    id: `p${i}`,
    configRef: null,
    status: "executed",
    attempts: list,
    contentHash: null,
    reasons: [],
    durationMs: 1,
    note: null,
  }));
  return { workflow, pairs };
}

describe("what a run bought", () => {
  it("costs each call at the price it was bought at, and counts the batched calls and the cache's tokens", () => {
    fc.assert(
      fc.property(fc.array(fc.array(attempt, { minLength: 1, maxLength: 3 }), { maxLength: 6 }), (attempts) => {
        const { workflow, pairs } = report(attempts);
        const spend = spendOf({ pairs }, workflow);
        const all = attempts.flat();
        const price = priceFor(MODEL)!;
        expect(spend.bought.calls).toBe(all.length);
        expect(spend.bought.batched).toBe(all.filter((a) => a.tokens!.batch).length);
        expect(spend.bought.cost).toBeCloseTo(
          all.reduce((sum, a) => sum + costOf(a.tokens!, price), 0),
          12,
        );
        const read = all.reduce((sum, a) => sum + (a.tokens!.cacheRead ?? 0), 0);
        expect(spend.bought.tokens?.cacheRead ?? 0).toBe(read);
        // Never more than the same tokens bought synchronously and uncached, but for what writing the cache costs extra.
        const plain = all.reduce((sum, a) => sum + costOf({ input: a.tokens!.input, output: a.tokens!.output }, price), 0);
        const premium = all.reduce((sum, a) => sum + ((a.tokens!.cacheWrite ?? 0) * (price.cacheWrite! - price.input)) / 1e6, 0);
        expect(spend.bought.cost!).toBeLessThanOrEqual(plain + premium + 1e-9);
      }),
    );
  });

  it("says what the batch API and the prompt cache took off", () => {
    const tokens = { input: 3000, output: 100, cacheRead: 2500, batch: true };
    const { workflow, pairs } = report([[{ attempt: 1, accepted: true, feedback: "", durationMs: 1, tokens }]]);
    expect(spendLine(spendOf({ pairs }, workflow))).toMatch(
      /^bought 1 call \(3,100 tokens, \$0\.\d+; all in batches at the batch price, 2,500 input tokens from the prompt cache\)$/,
    );
  });
});
