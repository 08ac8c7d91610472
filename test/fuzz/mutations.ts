/**
 * Mutations of configuration, lock and run-record files, as fast-check arbitraries: each mutation
 * is plain data (so a failing case prints as something a person can read and replay), applied
 * deterministically to a file's text by applyMutation.
 */
import fc from "fast-check";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

/** Values a mutation puts in place of another: every JSON type, and awkward members of each. */
export const ODD_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  true,
  "",
  " ",
  "x".repeat(5000),
  "🙂\u0000\u202e\u2028\uFEFF",
  "../../etc/passwd",
  "/dev/zero",
  [],
  {},
  ["a", 1, null],
  { a: { b: [1, { c: null }] } },
  { __proto__: 1 },
];

/** Keys a mutation renames a key to, or adds. */
export const ODD_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "$schema",
  "",
  " ",
  "ключ",
  "a.b",
  "../x",
  "x-note",
  "\u0000",
  "🙂",
];

/** Whole documents that replace a file. */
export const DOCUMENTS = [
  "",
  "---",
  "---\n",
  "~",
  "null",
  "...",
  "[]",
  "{}",
  "42",
  '"text"',
  "--- |\n  block\n",
  "---\na: 1\n---\nb: 2\n",
  "\uFEFF",
  "\u0000",
  "%YAML 1.1\n---\na: yes\n",
  "a: b: c\n",
  "{",
  '{"version": 1, "workflow": "x", "pairs": {"g_test": null}}',
  '{"version": 1, "workflow": "x", "pairs": []}',
  '{"version": 1, "workflow": 5, "pairs": {"g_test": {"configRef": 5}}}',
];

/** YAML snippets inserted at the start of a line: aliases, tags, odd keys, deep nesting. */
export const SNIPPETS = [
  // an alias bomb: ten levels of ten aliases each
  "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(", ")}]\n`).join(""),
  "r: &r [*r]\n",
  "r: &r {self: *r}\n",
  "u: *undefined_anchor\n",
  "b: !!binary aGVsbG8=\n",
  "s: !!set {a, b}\n",
  "c: !custom value\n",
  "d: !!timestamp 2020-01-01\n",
  "m: &m {k: v}\nn: {<<: *m}\n",
  "? [a, b]\n: c\n",
  "? {a: 1}\n: c\n",
  "1.5: float key\n",
  "~: null key\n",
  "__proto__: {polluted: true}\n",
  "constructor: {prototype: {polluted: true}}\n",
  "deep: " + "[".repeat(300) + "]".repeat(300) + "\n",
  "deep: " + "[".repeat(100) + "]".repeat(100) + "\n",
  "big: 123456789012345678901234567890\n",
  "nan: .nan\ninf: -.inf\n",
  "str: 'unterminated\n",
  "\t: tab\n",
];

/** Paths the configuration may name, pointing anywhere: outside, devices, pipes, directories. */
export const ODD_PATHS = [
  "/dev/zero",
  "../outside.yml",
  "/etc/passwd",
  "/etc/*",
  ".",
  "..",
  "out",
  "out/",
  "fifo",
  "model.mjs/x",
  ".git",
  "link-out",
  "link-out/x",
  "",
  "{../outside.yml,x}",
  "**/../../*",
  "~/x",
];

export type Op =
  | { kind: "setValue"; at: number; value: unknown }
  | { kind: "deleteKey"; at: number }
  | { kind: "renameKey"; at: number; key: string }
  | { kind: "addKey"; at: number; key: string; value: unknown }
  | { kind: "setPath"; field: "prompts" | "output" | "inputs" | "schema_file"; at: number; path: string }
  | { kind: "hugeRequires"; at: number; size: number; mix: number }
  | { kind: "document"; text: string }
  | { kind: "snippet"; line: number; text: string }
  | { kind: "insertChar"; offset: number; char: string }
  | { kind: "truncate"; offset: number }
  | { kind: "bom" }
  | { kind: "crlf" }
  | { kind: "deleteLine"; line: number }
  | { kind: "duplicateLine"; line: number }
  | { kind: "indent"; line: number; by: number }
  | { kind: "binary"; bytes: number[] };

const STRUCTURAL = new Set(["setValue", "deleteKey", "renameKey", "addKey", "setPath", "hugeRequires"]);

const controlChar = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom(
    "\u007f",
    "\u0085",
    "\u00a0",
    "\u2028",
    "\u2029",
    "\uFEFF",
    "\uD800",
    "\uDFFF",
    "\u202e",
    "'",
    '"',
    ":",
    "#",
    "&",
    "*",
    "!",
    "|",
    ">",
    "%",
    "@",
    "`",
    "{",
    "}",
    "[",
    "]",
    ",",
  ),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 3 }),
);

const odd = fc.constantFrom(...ODD_VALUES);

export const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("setValue" as const), at: fc.nat(), value: odd }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("deleteKey" as const), at: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("renameKey" as const), at: fc.nat(), key: fc.constantFrom(...ODD_KEYS) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("addKey" as const), at: fc.nat(), key: fc.constantFrom(...ODD_KEYS), value: odd }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant("setPath" as const),
      field: fc.constantFrom("prompts" as const, "output" as const, "inputs" as const, "schema_file" as const),
      at: fc.nat(),
      path: fc.constantFrom(...ODD_PATHS),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("hugeRequires" as const), at: fc.nat(), size: fc.integer({ min: 1000, max: 5_000 }), mix: fc.nat({ max: 3 }) }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant("document" as const), text: fc.constantFrom(...DOCUMENTS) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("snippet" as const), line: fc.nat(), text: fc.constantFrom(...SNIPPETS) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("insertChar" as const), offset: fc.nat(), char: controlChar }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("truncate" as const), offset: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("bom" as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("crlf" as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("deleteLine" as const), line: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("duplicateLine" as const), line: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("indent" as const), line: fc.nat(), by: fc.integer({ min: -4, max: 4 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("binary" as const), bytes: fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 2048 }) }), weight: 1 },
);

/** One to three mutations; structural ones are applied first, to the parsed value. */
export const ops = fc.array(op, { minLength: 1, maxLength: 3 });

/** The file's bytes after the mutations; `json` says how a value is written back. */
export function applyMutation(text: string, mutations: readonly Op[], json: boolean): Buffer {
  const structural = mutations.filter((m) => STRUCTURAL.has(m.kind));
  const textual = mutations.filter((m) => !STRUCTURAL.has(m.kind));
  if (structural.length > 0) {
    let value: unknown;
    try {
      value = json ? JSON.parse(text) : parseYaml(text);
    } catch {
      value = undefined;
    }
    if (value !== undefined) {
      for (const m of structural) value = applyStructural(value, m);
      text = json ? JSON.stringify(value, null, 2) : safeYaml(value);
    }
  }
  for (const m of textual) {
    if (m.kind === "binary") return Buffer.from(m.bytes);
    text = applyText(text, m);
  }
  return Buffer.from(text, "utf8");
}

function safeYaml(value: unknown): string {
  try {
    return stringifyYaml(value, { lineWidth: 0 });
  } catch {
    return JSON.stringify(value) ?? "";
  }
}

type Container = Record<string, unknown> | unknown[];

/** Every container in the value with the path to it, the root first. */
function containers(value: unknown): Container[] {
  const out: Container[] = [];
  const walk = (v: unknown, depth: number) => {
    if (v === null || typeof v !== "object" || depth > 20) return;
    out.push(v as Container);
    for (const child of Object.values(v)) walk(child, depth + 1);
  };
  walk(value, 0);
  return out;
}

function keysOf(c: Container): (string | number)[] {
  return Array.isArray(c) ? c.map((_, i) => i) : Object.keys(c);
}

function set(c: Container, key: string | number, value: unknown): void {
  // defineProperty: a "__proto__" key is written as a key, as a parser would make it.
  Object.defineProperty(c, key, { value, enumerable: true, writable: true, configurable: true });
}

function applyStructural(root: unknown, m: Op): unknown {
  if (m.kind !== "setPath" && m.kind !== "hugeRequires" && m.kind !== "setValue" && m.kind !== "deleteKey" && m.kind !== "renameKey" && m.kind !== "addKey")
    return root;
  const all = containers(root);
  if (m.kind === "setPath") return setPath(root, m);
  if (m.kind === "hugeRequires") {
    const pairs = isObject(root) && isObject(root.action_pairs) ? root.action_pairs : undefined;
    const ids = pairs ? Object.keys(pairs) : [];
    if (!pairs || ids.length === 0) return root;
    const target = pairs[ids[m.at % ids.length]!];
    if (!isObject(target)) return root;
    target.requires = Array.from({ length: m.size }, (_, i) =>
      m.mix === 0 ? ids[i % ids.length] : m.mix === 1 ? `missing_${i}` : m.mix === 2 ? ids[0] : i % 2 ? ids[i % ids.length] : `p${i}`,
    );
    return root;
  }
  if (all.length === 0) return m.kind === "setValue" ? m.value : root;
  const c = all[m.at % all.length]!;
  const keys = keysOf(c);
  const key = keys.length > 0 ? keys[m.at % keys.length]! : undefined;
  switch (m.kind) {
    case "setValue":
      if (key === undefined) return m.at % 2 ? m.value : root;
      set(c, key, structuredClone(m.value));
      return root;
    case "deleteKey":
      if (key === undefined) return root;
      if (Array.isArray(c)) c.splice(key as number, 1);
      else delete c[key as string];
      return root;
    case "renameKey": {
      if (key === undefined || Array.isArray(c)) return root;
      const v = c[key as string];
      delete c[key as string];
      set(c, m.key, v);
      return root;
    }
    case "addKey":
      if (Array.isArray(c)) c.push(structuredClone(m.value));
      else set(c, m.key, structuredClone(m.value));
      return root;
  }
  return root;
}

/** The field set to an odd path: prompts at the top, the others on some pair. */
function setPath(root: unknown, m: Extract<Op, { kind: "setPath" }>): unknown {
  if (!isObject(root)) return root;
  if (m.field === "prompts") {
    root.prompts = m.path;
    return root;
  }
  const pairs = isObject(root.action_pairs) ? root.action_pairs : undefined;
  const ids = pairs ? Object.keys(pairs) : [];
  if (!pairs || ids.length === 0) return root;
  const pair = pairs[ids[m.at % ids.length]!];
  if (!isObject(pair)) return root;
  if (m.field === "output") pair.output = m.path;
  else if (m.field === "inputs") pair.inputs = [m.path];
  else {
    pair.guard = "json_schema";
    pair.guard_config = { schema_file: m.path };
  }
  return root;
}

function applyText(text: string, m: Op): string {
  const lines = text.split("\n");
  const line = (n: number) => n % Math.max(lines.length, 1);
  switch (m.kind) {
    case "document":
      return m.text;
    case "snippet": {
      lines.splice(line(m.line), 0, m.text.replace(/\n$/, ""));
      return lines.join("\n");
    }
    case "insertChar": {
      const at = m.offset % (text.length + 1);
      return text.slice(0, at) + m.char + text.slice(at);
    }
    case "truncate":
      return text.slice(0, m.offset % (text.length + 1));
    case "bom":
      return "\uFEFF" + text;
    case "crlf":
      return text.replace(/\n/g, "\r\n");
    case "deleteLine":
      lines.splice(line(m.line), 1);
      return lines.join("\n");
    case "duplicateLine": {
      const i = line(m.line);
      lines.splice(i, 0, lines[i] ?? "");
      return lines.join("\n");
    }
    case "indent": {
      const i = line(m.line);
      const l = lines[i] ?? "";
      lines[i] = m.by >= 0 ? " ".repeat(m.by) + l : l.replace(new RegExp(`^ {0,${-m.by}}`), "");
      return lines.join("\n");
    }
    default:
      return text;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Shape mutations of a JSON record (a run's plan.json, result.json or one trace line). */
export const recordOps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant("setValue" as const), at: fc.nat(), value: odd }),
    fc.record({ kind: fc.constant("deleteKey" as const), at: fc.nat() }),
    fc.record({ kind: fc.constant("renameKey" as const), at: fc.nat(), key: fc.constantFrom(...ODD_KEYS) }),
    fc.record({ kind: fc.constant("addKey" as const), at: fc.nat(), key: fc.constantFrom(...ODD_KEYS), value: odd }),
  ),
  { minLength: 1, maxLength: 3 },
);

/** A JSON value with shape mutations applied, written back as JSON. */
export function mutateJson(text: string, mutations: readonly Op[]): string {
  let value: unknown = JSON.parse(text);
  for (const m of mutations) value = applyStructural(value, m);
  return JSON.stringify(value) ?? "null";
}
