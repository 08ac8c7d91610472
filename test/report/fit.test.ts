/**
 * Text on a terminal fits its width: each line is cut, its colours kept and reset, so no line wraps
 * and a plan takes a row per line at 80 columns, not two or three.
 */
import { stripVTControlCharacters } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cut, fitLines } from "../../src/report/fit.js";
import { styleFor } from "../../src/report/color.js";
import { planText } from "../../src/report/plan.js";
import type { Reason } from "../../src/model/plan.js";
import { worlds } from "./worlds.js";

const colour = styleFor({ isTTY: true }, {});
const styled = fc
  .array(fc.tuple(fc.string({ maxLength: 30 }), fc.constantFrom("plain", "bold", "red", "dim")), { maxLength: 6 })
  .map((parts) => parts.map(([text, how]) => (how === "plain" ? text : colour[how as "bold" | "red" | "dim"](text))).join(""));

describe("fitting a terminal", () => {
  it("cuts a line to the width, marks the cut, keeps it whole when it fits, and leaves no colour open", () => {
    fc.assert(
      fc.property(
        styled.filter((s) => !s.includes("\n")),
        fc.integer({ min: 2, max: 120 }),
        (line, width) => {
          const out = cut(line, width);
          const shown = [...stripVTControlCharacters(out)];
          const whole = [...stripVTControlCharacters(line)];
          expect(shown.length).toBeLessThanOrEqual(width);
          if (whole.length <= width) expect(out).toBe(line);
          else {
            expect(shown.join("")).toBe(whole.slice(0, width - 1).join("") + "…");
            if (out !== stripVTControlCharacters(out)) expect(out.endsWith("\x1b[0m")).toBe(true);
          }
        },
      ),
    );
  });

  it("a plan takes a row per line at the terminal's width", () => {
    const long: Reason = { kind: "inputs", detail: `inputs changed: ${Array.from({ length: 12 }, (_, i) => `docs/guide/section-${i}.md`).join(", ")}` };
    fc.assert(
      fc.property(worlds, fc.integer({ min: 40, max: 120 }), ({ plan }, columns) => {
        for (const p of plan.pairs) if (p.action === "run") (p.reasons as Reason[]).unshift(long);
        const whole = planText(plan, colour, "/r");
        const fitted = planText(plan, colour, "/r", undefined, { columns });
        expect(fitted.split("\n")).toHaveLength(whole.split("\n").length);
        for (const line of fitted.split("\n")) expect(stripVTControlCharacters(line).length).toBeLessThan(columns);
        expect(fitLines(whole, columns)).toBe(fitted);
      }),
      { numRuns: 20 },
    );
  });
});
