/** Counts in every report are grouped by thousands as en-US writes them, without loading ICU for it. */
import fc from "fast-check";
import { expect, it } from "vitest";
import { grouped } from "../../src/model/text.js";

it("writes every integer as toLocaleString('en-US') does, and anything else through it", () => {
  fc.assert(
    fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: -1_000_000, max: 1_000_000 })), (n) => {
      expect(grouped(n)).toBe(n.toLocaleString("en-US"));
    }),
    { numRuns: 2000 },
  );
  for (const n of [0, 999, 1000, 12_345, -1_234_567, Number.MAX_SAFE_INTEGER, 1.5, 12_345.678, 1e21]) expect(grouped(n)).toBe(n.toLocaleString("en-US"));
});
