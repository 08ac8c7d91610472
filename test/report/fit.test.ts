/**
 * Text on a terminal fits its width: each line is cut, its colours kept and reset, so no line wraps
 * and a plan takes a row per line at 80 columns, not two or three. Widths are a terminal's columns,
 * not characters: CJK text and emoji take two, combining marks none, as xterm.js (with Unicode 11
 * widths) lays them out.
 */
import { stripVTControlCharacters } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import xterm from "@xterm/headless";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { columns, cut, fitLines, padColumns } from "../../src/report/fit.js";
import { styleFor } from "../../src/report/color.js";
import { planText } from "../../src/report/plan.js";
import type { Reason } from "../../src/model/plan.js";
import { worlds } from "./worlds.js";

const colour = styleFor({ isTTY: true }, {});
const styled = fc
  .array(fc.tuple(fc.string({ maxLength: 30 }), fc.constantFrom("plain", "bold", "red", "dim")), { maxLength: 6 })
  .map((parts) => parts.map(([text, how]) => (how === "plain" ? text : colour[how as "bold" | "red" | "dim"](text))).join(""));

/** Where a terminal of `cols` columns leaves its cursor after `text`: how wide it laid the text out, and whether it wrapped. */
async function laidOut(text: string, cols: number): Promise<{ x: number; y: number }> {
  const term = new xterm.Terminal({ cols, rows: 4, allowProposedApi: true });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = "11";
  await new Promise<void>((resolve) => term.write(text, resolve));
  const { cursorX: x, cursorY: y } = term.buffer.active;
  term.dispose();
  return { x, y };
}

/** Text of the kinds terminals agree on: ASCII, CJK, accented letters written with a combining mark, emoji. */
const agreed = fc
  .array(fc.constantFrom("a", "Z", " ", "-", "漢", "字", "ｶ", "é", "e\u0301", "한", "🎉", "🚀", "✅"), { maxLength: 24 })
  .map((parts) => parts.join(""));
/** And those they do not: joined emoji, emoji asked for by a variation selector, zero-width joiners alone. */
const any = fc
  .array(fc.oneof(agreed, fc.constantFrom("👨\u200d👩\u200d👧", "☺\ufe0f", "\u200d", "🇫🇷", "👍🏽", "\u0301")), { maxLength: 6 })
  .map((parts) => parts.join(""));

describe("fitting a terminal", () => {
  it("counts columns as a terminal lays them out, and pads to them", async () => {
    await fc.assert(
      fc.asyncProperty(agreed, fc.integer({ min: 0, max: 30 }), async (text, width) => {
        expect(columns(text)).toBe((await laidOut(text, 200)).x);
        expect((await laidOut(padColumns(text, width) + "|", 200)).x).toBe(Math.max(width, columns(text)) + 1);
      }),
      { numRuns: 60 },
    );
  });

  it("never lets a cut line wrap, whatever it holds", async () => {
    await fc.assert(
      fc.asyncProperty(any, fc.integer({ min: 2, max: 40 }), async (text, width) => {
        const out = cut(text, width);
        // A terminal one column wider than the cut: the line stays on its row, the cursor within the width.
        const at = await laidOut(out, width + 1);
        expect(at.y).toBe(0);
        expect(at.x).toBeLessThanOrEqual(width);
        if (columns(text) <= width) expect(out).toBe(text);
      }),
      { numRuns: 80 },
    );
  });

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
