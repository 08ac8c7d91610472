/**
 * The fast YAML path (src/config/yamlFast.ts) against the positioned parse it stands in for: on any
 * text, whenever the fast path gives a value, the positioned path accepts the text too and gives
 * the same value, down to the bytes it hashes to (`1.0` stays a float, big integers stay exact).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { issueAt, parseText } from "../../src/config/parse.js";
import { declines, fastYaml } from "../../src/config/yamlFast.js";
import type { ConfigIssue } from "../../src/model/errors.js";
import { canonicalJson } from "../../src/refs/canonical.js";
import { PyFloat } from "../../src/model/values.js";

/** What parseText makes of a text, by either path: the value, or the issues. */
function read(text: string, fast: boolean): { value?: unknown; issues: ConfigIssue[]; fast: boolean } {
  fastYaml.enabled = fast;
  try {
    const issues: ConfigIssue[] = [];
    const source = parseText(text, "f.yml", issues);
    if (!source) return { issues, fast: false };
    if (source.fastValue !== undefined) return { value: source.fastValue, issues, fast: true };
    try {
      // As parse.ts reads the value of a positioned document.
      return { value: source.doc.contents === null ? {} : source.doc.toJS({ maxAliasCount: 10_000 }), issues, fast: false };
    } catch (err) {
      return { issues: [...issues, { file: "f.yml", line: 1, column: 1, key: "", message: (err as Error).message }], fast: false };
    }
  } finally {
    fastYaml.enabled = true;
  }
}

/** The two paths agree on text: returns whether the fast path took it. */
function agree(text: string): boolean {
  const quick = read(text, true);
  const slow = read(text, false);
  if (!quick.fast) {
    expect(quick.issues).toEqual(slow.issues);
    return false;
  }
  expect(slow.issues, text).toEqual([]);
  expect(canonicalJson(quick.value), text).toBe(canonicalJson(slow.value));
  expect(floats(quick.value), text).toEqual(floats(slow.value));
  return true;
}

/** Where the value holds floats kept as such (PyFloat), by path: canonical JSON would show them too, but this names them. */
function floats(value: unknown, at = "$"): string[] {
  if (value instanceof PyFloat) return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => floats(v, `${at}[${i}]`));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => floats(v, `${at}.${k}`));
  return [];
}

afterEach(() => {
  fastYaml.enabled = true;
});

const TRICKY = [
  "a: 1.0\nb: 2e3\nc: 1.50\nd: -0.0\ne: .5\nf: 1.\ng: 0.1e-5",
  "a: 0x1F\nb: 0o17\nc: 0b101\nd: 1_000\ne: +1\nf: 00012\ng: 012.50",
  "big: 9007199254740993\nneg: -9007199254740993\nsafe: 9007199254740991",
  "a: .inf\nb: -.INF\nc: .NaN\nd: +.Inf",
  "a: ~\nb: Null\nc: NULL\nd:\ne: null\nf: nULL",
  "a: TRUE\nb: yes\nc: on\nd: False\ne: tRUE",
  "a: 2024-01-01\nb: 12:30:00\nc: 1:20",
  "1: one\n2: two\ntrue: yes\n0x10: hex",
  "'1': a\n1: b",
  "a: 1\na: 2",
  "? [a, b]\n: 1",
  "1.5: a",
  "~: a",
  "null: a",
  ": a",
  "a: &x [1, 2]\nb: *x",
  "a: *missing",
  "a: !!str 1\nb: !!int '3'",
  "a: !local x",
  "%YAML 1.1\n---\na: yes",
  "a: |\n  text\n   more\n\nb: >-\n  folded\n  text\n\n  para\n",
  "a: 'it''s'\nb: \"\\u00e9\\/\\t\\x41\"\nc: \"multi\n  line\"",
  "__proto__: 1",
  "a: {__proto__: {x: 1}}",
  "a: [1, 2.0, {b: c}, [d, 3e0]]",
  "- a\n- b",
  "",
  "# only a comment\n",
  "a: b: c",
  "a:\n\t- tab",
  "--- a\n--- b",
  "a: 1\n---\nb: 2",
  "\ufeffa: bom",
  "a: x #comment\nb: x#not",
  "a: 'unterminated",
  "key with spaces: value with: colon",
  "a: <<\n<<: {b: 1}",
  'emoji: "\\U0001F600"\nastral: 😀\nnul: "\\0"',
  '{"json": 1.0, "n": [1, 2.5e0], "s": "x\\u0000y"}',
  '{"dup": 1, "dup": 2}',
  'a: "unicode \\u2028 sep"',
  "a:\n  - b\n  -\n  - c: ~",
  "long: " + "x".repeat(2000),
  "k".repeat(1100) + ": v",
  `"${"\\u00e9".repeat(200)}": v`,
  "a: b\n  continued plain\nc: d",
  "a: - b",
  "a: [b, c,]",
  "a: {b: 1, b: 2}",
  'a: "\\q"',
  "a: @reserved",
  "a: `tick",
  "a:\n  b: 1\n c: 2",
  // Keys that begin with a letter and are not text to YAML, or have no JSON form as they are.
  "null: 1",
  "a:\n  Null: 1",
  "a: {NULL: 1}",
  "nULL: 1\n_null: 2\nnull_: 3",
  "a,b: 1",
  "list:\n  - x,y: 1",
];

describe("the fast YAML path", () => {
  it("agrees with the positioned parse on numbers, keys, tags, anchors, scalars and broken documents", () => {
    let taken = 0;
    for (const text of TRICKY) if (agree(text)) taken++;
    // Plain documents do take the fast path; the rest declined or were checked equal.
    expect(taken).toBeGreaterThan(10);
  });

  it("agrees on every workflow and prompts file of the examples and fixtures", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const file = path.join(dir, name);
        if (statSync(file).isDirectory()) walk(file);
        else if (/\.(ya?ml|json)$/.test(name)) files.push(file);
      }
    };
    walk("examples");
    walk("test/fixtures");
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) agree(readFileSync(file, "utf8"));
  });

  it("agrees on random documents written in YAML's many styles", () => {
    const scalar = fc.oneof(
      fc.string(),
      fc.string({ unit: "grapheme" }),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.constantFrom(1.0, 2e20, -0, 0.1, 1e-7, 2 ** 53 + 2, "1.0", "true", "null", "~", "0x1F", "yes", "", " lead", "a: b", "- x", "#x", "'q'"),
      fc.boolean(),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, scalar, fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(fc.string(), tie("value"), { maxKeys: 4 })),
    }));
    const options = fc.record({
      lineWidth: fc.constantFrom(0, 20, 80),
      defaultStringType: fc.constantFrom("PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE", "BLOCK_LITERAL", "BLOCK_FOLDED") as fc.Arbitrary<"PLAIN">,
      flowCollections: fc.boolean(),
      indentSeq: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), value, { minKeys: 1, maxKeys: 6 }), options, (doc, opts) => {
        agree(stringify(doc, { ...opts, aliasDuplicateObjects: false }));
      }),
      { numRuns: 300 },
    );
  });

  it("points at the same places as the positioned parse, whatever the text ends or starts with", () => {
    // The fast path keeps js-yaml's copy of the text for positions (see fastYamlValue): it must be the text.
    let taken = 0;
    const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
    const entry = fc.tuple(key, fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 })));
    fc.assert(
      fc.property(
        fc.uniqueArray(entry, { minLength: 1, maxLength: 6, selector: ([k]) => k }),
        fc.constantFrom("", "\n", "\n\n", " \n"),
        fc.boolean(),
        fc.boolean(),
        (entries, end, bom, crlf) => {
          let text = stringify(Object.fromEntries(entries)).replace(/\n$/, "") + end;
          if (crlf) text = text.replace(/\n/g, "\r\n");
          if (bom) text = "\ufeff" + text;
          const at = (fast: boolean) => {
            fastYaml.enabled = fast;
            const source = parseText(text, "f.yml", [])!;
            if (fast && source.fastValue === undefined) return undefined; // declined: nothing to compare
            if (fast) taken++;
            return entries.flatMap(([k]) => [issueAt(source, [k], "m"), issueAt(source, [k], "m", true)]);
          };
          const fast = at(true);
          if (fast !== undefined) expect(fast).toEqual(at(false));
        },
      ),
      { numRuns: 200 },
    );
    expect(taken).toBeGreaterThan(100);
  });

  it("declines exactly where its regular expression finds a tag, anchor, directive or complex key", () => {
    const DECLINE = /(?:^|[\s[{,])[!&]|^%|^\s*\?(?:\s|$)|(?:^|[\s[{,])\?\s/m;
    const unit = fc.constantFrom("!", "&", "%", "?", " ", "\t", "\n", "\r", "\u2028", "\u00a0", "[", "{", ",", "a", ":", "-", "#", '"');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (text) => {
        expect(declines(text)).toBe(DECLINE.test(text));
      }),
      { numRuns: 20_000 },
    );
  });
});
