/** Values as they come from configuration files, shared by every layer. */

/**
 * Canonical JSON, byte-for-byte as Python's `json.dumps(value, sort_keys=True, separators=(",", ":"))`
 * writes it (ensure_ascii on), because configRef vectors are defined by that formula.
 *
 * Values are plain JSON values, plus `PyFloat` for numbers written with a fraction or exponent in the
 * source (`1.0`): Python keeps those as floats and prints `1.0`, where JavaScript would print `1`;
 * and `bigint` for integers outside JavaScript's safe range, which Python keeps and prints exactly.
 */

export class PyFloat {
  constructor(readonly value: number) {}
}

export type CanonicalValue = null | boolean | number | bigint | string | PyFloat | CanonicalValue[] | { [key: string]: CanonicalValue };

/**
 * The value with PyFloat wrappers and big integers replaced by (the nearest) numbers: what
 * validators and runtime code see.
 */
export function plain(value: unknown): unknown {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "bigint") return Number(value);
  if (value === null || typeof value !== "object") return value;
  // What holds no PyFloat or big integer is returned as it is: at 10,000 pairs, copying every
  // mapping and list of both files was a tenth of a plan's time and a good part of its memory.
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const made = plain(item);
      if (out === undefined && made !== item) out = value.slice(0, i);
      out?.push(made);
    }
    return out ?? value;
  }
  const entries = Object.entries(value);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < entries.length; i++) {
    const made = plain(entries[i]![1]);
    if (out === undefined && made !== entries[i]![1]) {
      out = {};
      for (let j = 0; j < i; j++) define(out, entries[j]![0], entries[j]![1]);
    }
    if (out !== undefined) define(out, entries[i]![0], made);
  }
  return out ?? value;
}

/**
 * defineProperty, not assignment: a "__proto__" key stays a key, as the parser made it, rather than
 * replacing the object's prototype (and vanishing from what the schema checks).
 */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
