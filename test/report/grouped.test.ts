/** Counts in every report are grouped by thousands as en-US writes them, without loading ICU for it. */
import fc from "fast-check";
import { expect, it } from "vitest";
import { grouped } from "../../src/model/text.js";
import { tokensText } from "../../src/report/estimate.js";

it("writes every integer as toLocaleString('en-US') does, and anything else through it", () => {
  fc.assert(
    fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: -1_000_000, max: 1_000_000 })), (n) => {
      expect(grouped(n)).toBe(n.toLocaleString("en-US"));
    }),
    { numRuns: 2000 },
  );
  for (const n of [0, 999, 1000, 12_345, -1_234_567, Number.MAX_SAFE_INTEGER, 1.5, 12_345.678, 1e21]) expect(grouped(n)).toBe(n.toLocaleString("en-US"));
});

it("writes a count of tokens, whole or not, as en-US's number format rounds it", () => {
  const format = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
  fc.assert(
    fc.property(
      fc.oneof(
        fc.nat(),
        fc.double({ min: 0, max: 1e12, noNaN: true }),
        fc.integer({ min: 0, max: 2_000_000 }).map((n) => n + 0.5),
      ),
      (n) => {
        expect(tokensText(n)).toBe(format.format(n));
      },
    ),
    { numRuns: 2000 },
  );
});
