import { PyFloat } from "../model/values.js";

export function canonicalJson(value: unknown): string {
  return write(value);
}

/**
 * Marks a mapping or list that many hash inputs share (the workflow's context, in every pair's
 * reference): its canonical JSON is written once and reused wherever the same object appears. The
 * object must not change afterwards.
 */
export function sharedValue<T extends object>(value: T): T {
  shared.set(value, write(value));
  return value;
}

const shared = new WeakMap<object, string>();

/**
 * canonicalJson({ ...first, ...second }) without making the merged mapping: a pair's reference
 * is its own components with its dependencies' references and contents beside them.
 */
export function canonicalJsonOfBoth(first: Record<string, unknown>, second: Record<string, unknown>): string {
  const keys: string[] = [];
  for (const k of Object.keys(first)) if (first[k] !== undefined && !Object.hasOwn(second, k)) keys.push(k);
  for (const k of Object.keys(second)) if (second[k] !== undefined) keys.push(k);
  sortKeys(keys);
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    out += (i > 0 ? "," : "") + quote(k) + ":" + write(Object.hasOwn(second, k) ? second[k] : first[k]);
  }
  return out + "}";
}

/**
 * canonicalJson of a mapping whose values are lists of text, from its entries (each key once),
 * without making the mapping: the workflow's structure, every pair's id with its dependencies.
 */
export function canonicalJsonOfTextLists(entries: ReadonlyMap<string, readonly string[]>): string {
  const keys = [...entries.keys()];
  sortKeys(keys);
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const list = entries.get(keys[i]!)!;
    out += (i > 0 ? "," : "") + quote(keys[i]!) + ":[";
    for (let j = 0; j < list.length; j++) out += (j > 0 ? "," : "") + quote(list[j]!);
    out += "]";
  }
  return out + "}";
}

/**
 * Keys in the order Python sorts them, by code point. JavaScript's default sort compares UTF-16
 * units, which differs only for characters above U+FFFF against U+E000..U+FFFF: without
 * surrogates the two orders agree, and the default sort is many times faster.
 */
function sortKeys(keys: string[]): void {
  if (keys.length < 2) return;
  let surrogates = false;
  for (let i = 0; i < keys.length && !surrogates; i++) surrogates = SURROGATE.test(keys[i]!);
  keys.sort(surrogates ? compareCodePoints : undefined);
}

// Strings are concatenated, not pushed to a list and joined: V8 keeps the pieces as a rope that is
// flattened once, when the text is hashed.
function write(value: unknown): string {
  switch (typeof value) {
    case "string":
      return quote(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      // An integer as Python writes one: every digit, never an exponent (String(1e21) is "1e+21").
      if (Number.isInteger(value)) return Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
      return pyFloatRepr(value);
    case "bigint":
      return value.toString();
    case "undefined":
      return "null";
    case "object": {
      if (value === null) return "null";
      if (value instanceof PyFloat) return pyFloatRepr(value.value);
      const known = shared.get(value);
      if (known !== undefined) return known;
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + write(value[i]);
        return out + "]";
      }
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
      sortKeys(keys);
      let out = "{";
      for (let i = 0; i < keys.length; i++) out += (i > 0 ? "," : "") + quote(keys[i]!) + ":" + write(obj[keys[i]!]);
      return out + "}";
    }
    default:
      throw new TypeError(`cannot write ${typeof value} as canonical JSON`);
  }
}

function compareCodePoints(a: string, b: string): number {
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * What a JSON string must escape for Python's ensure_ascii: quote, backslash, anything outside
 * printable ASCII. One class (printable ASCII but `"` and `\\`), which scans a third faster than
 * the two alternatives it stands for.
 */
const ESCAPED = /[^ !#-[\]-~]/;

/** What JSON.stringify leaves outside printable ASCII: DEL and every character above it. */
const NON_ASCII = /[^ -~]/;

/**
 * A string as Python's json.dumps writes it with ensure_ascii: JSON.stringify escapes the quote,
 * the backslash and every control character exactly as Python does (\n, \t, \b, \f, \r, else
 * \u00XX in lower case; a lone surrogate as \udXXX), and leaves the rest as it is; then whatever is
 * not printable ASCII becomes \uXXXX. JavaScript strings are UTF-16 already, so astral characters
 * come out as surrogate pairs, as Python writes them.
 */
function quote(s: string): string {
  // Most text (keys, names, one-line values) needs no escape: tested first, since JSON.stringify
  // costs more per call than the test on short strings.
  if (!ESCAPED.test(s)) return '"' + s + '"';
  const json = JSON.stringify(s);
  if (!NON_ASCII.test(json)) return json;
  return json.replace(/[^ -~]/g, (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"));
}

/** Python's repr() of a float: shortest round-trip digits, fixed notation for exponents -4..15. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, expText] = x.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  if (exp >= -4 && exp < 16) {
    let text: string;
    if (exp < 0) {
      text = "0." + "0".repeat(-exp - 1) + digits;
    } else if (digits.length > exp + 1) {
      text = digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
    } else {
      text = digits + "0".repeat(exp + 1 - digits.length) + ".0";
    }
    return sign + text;
  }
  const m = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
  const e = (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  return `${sign}${m}e${e}`;
}
