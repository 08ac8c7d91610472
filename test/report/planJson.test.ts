/** `plan --json` writes each wave and pair on a line of its own, and the text is the plan's JSON exactly. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planJsonText, type PlanJson } from "../../src/report/plan.js";

const id = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
const pair = fc.record({
  id,
  wave: fc.nat(40),
  requires: fc.array(id, { maxLength: 3 }),
  configRef: fc.option(fc.stringMatching(/^[0-9a-f]{64}$/), { nil: null }),
  action: fc.constantFrom("run" as const, "skip" as const),
  reasons: fc.array(fc.record({ kind: fc.constantFrom("new" as const, "prompt" as const, "upstream" as const), detail: fc.string({ unit: "grapheme" }) }), {
    maxLength: 3,
  }),
});
const planOf = (pairs: fc.Arbitrary<PlanJson["pairs"]>): fc.Arbitrary<PlanJson> =>
  fc.record({
    version: fc.constant(1 as const),
    workflow: fc.record({ name: fc.string({ unit: "grapheme" }), path: fc.string(), workflowRef: fc.stringMatching(/^[0-9a-f]{64}$/) }),
    waves: fc.array(fc.array(id, { maxLength: 4 }), { maxLength: 4 }),
    pairs,
    totals: fc.record({ pairs: fc.nat(), run: fc.nat(), skip: fc.nat() }),
  });

// Small plans, and plans that span several of the pieces the text is written in.
const plan = fc.oneof(
  { arbitrary: planOf(fc.array(pair, { maxLength: 6 })), weight: 9 },
  { arbitrary: planOf(fc.array(pair, { minLength: 250, maxLength: 600 })), weight: 1 },
);

describe("plan --json text", () => {
  it("parses back to the plan's JSON, one line per wave and per pair", () => {
    fc.assert(
      fc.property(plan, (json) => {
        const text = [...planJsonText(json)].join("");
        expect(JSON.parse(text)).toEqual(json);
        expect(JSON.stringify(JSON.parse(text))).toBe(JSON.stringify(json));
        const lines = text.split("\n");
        const shown = new Set(lines);
        for (const p of json.pairs) expect(shown).toContain(`    ${JSON.stringify(p)}` + (p === json.pairs.at(-1) ? "" : ","));
        expect(text.endsWith("}\n")).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
