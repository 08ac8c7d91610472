/**
 * Canonical JSON is byte for byte what Python's json.dumps(value, sort_keys=True,
 * separators=(",", ":")) writes with ensure_ascii on: the rule every configRef vector rests on.
 */
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, canonicalJsonOfBoth, canonicalJsonOfTextLists, sharedValue } from "../../src/refs/canonical.js";

/** Python's ensure_ascii escaping, character by character as its json.encoder documents it. */
function pythonQuote(s: string): string {
  const short: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };
  let out = '"';
  for (const ch of s) {
    for (let i = 0; i < ch.length; i++) {
      const unit = ch[i]!;
      const code = unit.charCodeAt(0);
      out += short[unit] ?? (code >= 0x20 && code <= 0x7e ? unit : "\\u" + code.toString(16).padStart(4, "0"));
    }
  }
  return out + '"';
}

// Text of every kind: printable ASCII, controls, DEL, Latin-1, BMP, astral pairs and lone surrogates.
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('"', "\\", "\n", "\r", "\t", "\b", "\f", "\u0000", "\u001f", "\u007f", "\u0080", "é", "\u2028", "\ufeff", "😀", "\ud800", "\udfff", "/"),
    fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 40,
});

describe("canonical JSON", () => {
  it("escapes text as Python's ensure_ascii does", () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(canonicalJson(s)).toBe(pythonQuote(s));
        expect(canonicalJson({ [s]: [s] })).toBe(`{${pythonQuote(s)}:[${pythonQuote(s)}]}`);
      }),
      { numRuns: 2000 },
    );
  });

  it("writes a shared mapping exactly as the same mapping unshared", () => {
    const value = fc.dictionary(text, fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 3 })), { maxKeys: 5 });
    fc.assert(
      fc.property(value, value, (a, b) => {
        const plainText = canonicalJson({ a, b, list: [a] });
        const shared = sharedValue(structuredClone(a));
        expect(canonicalJson({ a: shared, b, list: [shared] })).toBe(plainText);
      }),
      { numRuns: 300 },
    );
  });

  it("writes two mappings side by side exactly as the one mapping that merges them", () => {
    // Keys in either or both, surrogates among them (which change the sort), values left out.
    const key = fc.oneof(text, fc.constantFrom("a", "b", "upstream_refs", "\ud83d\ude00", "\uffff"));
    const value = fc.dictionary(key, fc.oneof(text, fc.integer(), fc.constant(undefined), fc.array(text, { maxLength: 2 })), { maxKeys: 6 });
    fc.assert(
      fc.property(value, value, (first, second) => {
        expect(canonicalJsonOfBoth(first, second)).toBe(canonicalJson({ ...first, ...second }));
      }),
      { numRuns: 1000 },
    );
  });

  it("writes a mapping of lists of text from its entries exactly as the mapping itself", () => {
    // The workflow's structure (its workflowRef): pair ids with their dependencies.
    const key = fc.oneof(text, fc.constantFrom("__proto__", "0", "10", "\ud83d\ude00", "\uffff"));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, fc.array(text, { maxLength: 3 })), { selector: ([k]) => k, maxLength: 8 }), (entries) => {
        const mapping: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
        for (const [k, list] of entries) mapping[k] = list;
        expect(canonicalJsonOfTextLists(new Map(entries))).toBe(canonicalJson(mapping));
      }),
      { numRuns: 1000 },
    );
  });

  const python = spawnSync("python3", ["-c", "print(1)"], { encoding: "utf8" }).status === 0;
  it.skipIf(!python)("equals Python's json.dumps on random text (where python3 is installed)", () => {
    const samples = fc.sample(text, 500);
    const script = "import json,sys\nfor s in json.load(sys.stdin): print(json.dumps(s, sort_keys=True, separators=(',', ':')))";
    // JSON.stringify keeps lone surrogates as escapes, which Python's json.load reads back as they were.
    const result = spawnSync("python3", ["-c", script], { input: JSON.stringify(samples), encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout.split("\n").slice(0, -1)).toEqual(samples.map((s) => canonicalJson(s)));
  });
});
