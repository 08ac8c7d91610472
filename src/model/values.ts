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
  if (Array.isArray(value)) return value.map(plain);
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    // defineProperty, not assignment: a "__proto__" key stays a key, as the parser made it, rather
    // than replacing the object's prototype (and vanishing from what the schema checks).
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: plain(v), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}
function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof PyFloat);
}
