/** What validators and run-time code read of a configuration value: plain numbers, nothing else changed. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { plain, PyFloat, type CanonicalValue } from "../../src/model/values.js";

const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("__proto__", "constructor", "toString"));
const { value } = fc.letrec<{ value: CanonicalValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true }),
    fc.double({ noNaN: true }).map((n) => new PyFloat(n)),
    fc.bigInt({ min: 2n ** 60n, max: 2n ** 70n }),
    fc.string({ maxLength: 8 }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie("value")), { maxLength: 4 }).map((entries) => {
      const out: Record<string, CanonicalValue> = {};
      for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    }),
  ),
}));

/** The same value as it would be written in JSON: the rule plain must keep. */
function expected(v: unknown): unknown {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(expected);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expected(x)]));
  return v;
}

const holdsWrapped = (v: unknown): boolean =>
  v instanceof PyFloat || typeof v === "bigint" || (v !== null && typeof v === "object" && Object.values(v).some(holdsWrapped));

describe("plain", () => {
  it("turns every PyFloat and big integer into a number, keeps every key (__proto__ too) and changes nothing it is given", () => {
    fc.assert(
      fc.property(value, (v) => {
        const before = expected(v);
        const made = plain(v);
        if (v !== null && typeof v === "object" && !(v instanceof PyFloat)) expect(Object.keys(made as object)).toEqual(Object.keys(v));
        expect(expected(made)).toEqual(before);
        expect(holdsWrapped(made)).toBe(false);
        // The input is left as it was: the hashable value keeps its number forms.
        expect(expected(v)).toEqual(before);
        if (!holdsWrapped(v)) expect(made).toBe(v);
      }),
      { numRuns: 500 },
    );
  });
});
