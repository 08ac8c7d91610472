/**
 * The fast way to read a workflow or prompts file that has nothing to report, which is nearly every
 * time: js-yaml builds plain values several times faster than the `yaml` library builds its document
 * of positioned nodes, and positions are needed only to point at a problem. parse.ts tries this
 * first and builds the positioned document only when this declines, or later when a check has
 * something to point at.
 *
 * The value must be the one the positioned parse would give, byte for byte once hashed, so:
 * - plain scalars are resolved by the very tags the positioned parse uses (YAML 1.2's core schema
 *   with pairflow's number rules: `1.0` stays a float, big integers stay exact), in the same order;
 * - whatever the positioned parse treats specially declines the fast path rather than being
 *   imitated: tags (`!`), anchors (`&`, so aliases and their expansion limit), directives (`%`),
 *   complex keys (`?`), keys that YAML reads as null or a float, long keys, `__proto__`, documents
 *   that are not a mapping, and anything js-yaml rejects (syntax errors, duplicate keys, several
 *   documents).
 * Declining costs only time: the positioned parse then reads the file and reports as it always did.
 */
import jsYaml, { type Schema as JsYamlSchema } from "js-yaml";
import { Document, isScalar, type DocumentOptions, type ParseOptions, type SchemaOptions } from "yaml";

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/**
 * Marks that decline: a tag or anchor where a node starts, a directive, an explicit (complex) key.
 * As a regular expression (test/config/yamlFast.test.ts holds the two together):
 *   /(?:^|[\s[{,])[!&]|^%|^\s*\?(?:\s|$)|(?:^|[\s[{,])\?\s/m
 * The scan below finds the same marks by jumping from one of the four characters to the next: the
 * expression tried its alternatives at every position, a few percent of a large plan.
 */
export function declines(text: string): boolean {
  MARK.lastIndex = 0;
  for (let found = MARK.exec(text); found !== null; found = MARK.exec(text)) {
    const i = found.index;
    const c = text.charCodeAt(i);
    const before = i === 0 ? -1 : text.charCodeAt(i - 1);
    const lineStart = before === -1 || isLineBreak(before);
    if (c === 0x25 /* % */) {
      if (lineStart) return true;
      continue;
    }
    const nodeStart = lineStart || isSpace(before) || before === 0x5b || before === 0x7b || before === 0x2c;
    if (c !== 0x3f /* ? */) {
      if (nodeStart) return true;
      continue;
    }
    const after = i + 1 < text.length ? text.charCodeAt(i + 1) : -1;
    if (after !== -1 && isSpace(after) && nodeStart) return true;
    // `^\s*\?$` at the very end of the text: only spaces between a line start and the mark.
    if (after === -1) {
      let j = i - 1;
      while (j >= 0 && isSpace(text.charCodeAt(j)) && !isLineBreak(text.charCodeAt(j))) j--;
      if (j < 0 || isLineBreak(text.charCodeAt(j))) return true;
    }
  }
  return false;
}

const MARK = /[!&%?]/g;

/** A line terminator of JavaScript's regular expressions: where `^` matches in multiline mode. */
function isLineBreak(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
}

/** `\s` of JavaScript's regular expressions. */
function isSpace(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Keys YAML reads as null or a float (a JSON key is text): js-yaml would make text of them. */
const SUSPECT_KEY =
  /^(?:~|[Nn]ull|NULL|)$|^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$|,|^\[object /;

/**
 * The positioned parse refuses implicit keys over 1,024 characters of source, which js-yaml takes;
 * a key whose text is longer than this may be written that long (six characters per `\uXXXX`).
 */
const LONG_KEY = 1024 / 6;

const schemas = new WeakMap<object, JsYamlSchema>();

/** Off, every text takes the positioned path: the tests compare the two paths through parse.ts this way. */
export const fastYaml = { enabled: true };

/**
 * The value of a YAML (or JSON) text whose top level is a mapping, read with the scalar rules of
 * `options` (as given to the `yaml` library's parseDocument); undefined when the fast path declines.
 */
export function fastYamlValue(text: string, options: Options): FastValue | undefined {
  if (!fastYaml.enabled || declines(text)) return undefined;
  let value: unknown;
  let copy: string | undefined;
  madeNonPlain = false;
  try {
    value = jsYaml.load(text, {
      schema: schemaFor(options),
      // js-yaml reads a copy of the text (with an end mark appended) and cuts the values out of it,
      // so the copy lives as long as they do; the first event hands it over, and there are no more.
      listener(this: void, _event: string, state: { input?: unknown; listener: unknown }) {
        if (typeof state.input === "string") copy = state.input;
        state.listener = null;
      },
    } as Parameters<typeof jsYaml.load>[1]);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  if (!keysAreText(value)) return undefined;
  return { value: value as Record<string, unknown>, text: sameText(copy, text) ? copy.slice(0, text.length) : text, plain: !madeNonPlain };
}

/** What the fast path read. */
export interface FastValue {
  value: Record<string, unknown>;
  /** The text, as js-yaml's copy that the values are cut from (see below). */
  text: string;
  /**
   * The value holds no scalar that plain() (src/model/values.ts) would turn into another value (a
   * float that keeps its source's form, a big integer): it is its own plain value, unwalked.
   */
  plain: boolean;
}

/** Whether the load under way has made a scalar that is not its own plain value. */
let madeNonPlain = false;

/**
 * Whether js-yaml's copy is the text with its end marks: a newline if the text had none, then a
 * NUL (a text with a byte order mark is copied without it, and is not taken).
 */
function sameText(copy: string | undefined, text: string): copy is string {
  const extra = (copy?.length ?? 0) - text.length;
  return copy !== undefined && text.charCodeAt(0) !== 0xfeff && (extra === 1 || extra === 2) && copy.charCodeAt(copy.length - 1) === 0;
}

/**
 * Every mapping key, at any depth, is one the positioned parse would take as text too. Only lists
 * and mappings are visited: a file's values are mostly text, and a call for each cost a few percent
 * of a large plan.
 */
function keysAreText(value: object): boolean {
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) if (typeof item === "object" && item !== null && !keysAreText(item)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return true;
  for (const key of Object.keys(value)) {
    if (!textKey(key)) return false;
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === "object" && item !== null && !keysAreText(item)) return false;
  }
  // A `__proto__` key is defined as an own property, which Object.keys lists; this is belt and braces.
  return !Object.prototype.hasOwnProperty.call(value, "__proto__");
}

/**
 * Whether a key is text to the positioned parse too. The same few key names come back in every
 * pair, so the answer is remembered for each (a bounded number of them).
 */
function textKey(key: string): boolean {
  // A key that begins with a letter or "_" can be suspect only as null's names, for a comma, or as
  // `__proto__`: most keys (pair ids, which come once each) are answered so, without the set.
  const c = key.charCodeAt(0);
  if (((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f) && key.length <= LONG_KEY) {
    return !key.includes(",") && key !== "null" && key !== "Null" && key !== "NULL" && key !== "__proto__";
  }
  if (textKeys.has(key)) return true;
  if (key === "__proto__" || key.length > LONG_KEY || SUSPECT_KEY.test(key)) return false;
  if (textKeys.size >= 100_000) textKeys.clear();
  textKeys.add(key);
  return true;
}

const textKeys = new Set<string>();

/**
 * js-yaml's failsafe schema (text, lists, mappings) with one implicit type per default scalar tag
 * of the `yaml` library's schema for these options, tried in the same order, each resolving with
 * that tag's own function. The types carry a tag name of their own, so an explicit `!!int` in a
 * text (which DECLINE turns away anyway) could never reach them.
 */
function schemaFor(options: Options): JsYamlSchema {
  const cached = schemas.get(options);
  if (cached) return cached;
  const tags = new Document(null, options).schema.tags.filter((tag) => tag.default === true && tag.test !== undefined && tag.resolve !== undefined);
  // js-yaml asks each type in turn of every plain scalar, most of which are text that none takes:
  // one expression of all their tests answers for the lot, asked once per scalar (the last answer
  // is kept), so each type's own test runs only when one of them matches. Tests with flags or
  // back references would not combine so: each type then tests alone.
  const flagless = tags.every((tag) => tag.test!.flags === "" && !/\\[1-9]|\(\?</.test(tag.test!.source));
  const any = flagless ? new RegExp(tags.map((tag) => `(?:${tag.test!.source})`).join("|")) : undefined;
  let last: string | undefined;
  let lastMatches = true;
  const mayMatch = (data: string): boolean => {
    if (any === undefined) return true;
    if (data !== last) {
      last = data;
      lastMatches = any.test(data);
    }
    return lastMatches;
  };
  const implicit = tags.map(
    (tag, i) =>
      new jsYaml.Type(`tag:pairflow.dev,fast:${i}`, {
        kind: "scalar",
        resolve: (data: unknown) => typeof data === "string" && mayMatch(data) && tag.test!.test(data),
        construct: (data: string) => {
          const resolved = (tag.resolve as (value: string, onError: (message: string) => void, options: Options) => unknown)(
            data,
            (message) => {
              throw new Error(message);
            },
            options,
          );
          const value: unknown = isScalar(resolved) ? resolved.value : resolved;
          // Numbers, text, booleans and null are plain; a PyFloat (an object) or a big integer is not.
          if (typeof value === "bigint" || (typeof value === "object" && value !== null)) madeNonPlain = true;
          return value;
        },
      }),
  );
  const schema = jsYaml.FAILSAFE_SCHEMA.extend({ implicit });
  schemas.set(options, schema);
  return schema;
}
