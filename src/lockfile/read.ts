/**
 * Reading the lock file back: its text, read only when it is a regular file of a sane size, and its
 * value, checked entry by entry. A lock file is reviewed and merged by people, so a damaged one
 * (a merge conflict left in it, an entry edited by hand, a `null`) is a positioned configuration
 * error naming the entry and what to do, never a crash somewhere later in the planner.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { ConfigError, type ConfigIssue } from "../model/errors.js";
import { asDict } from "../model/dict.js";
import { type ComponentsText, LOCK_VERSION, type LockFile } from "../model/records.js";

/** A lock file holds one small entry a pair: larger than this, it is not one. */
export const MAX_LOCK_BYTES = 64 * 1024 * 1024;

const FIX = "restore it from version control, or delete it to plan every pair as new";

/** The lock file's text; a ConfigError when it is not a regular file or is too large. */
export function readLockText(file: string, display: string): string {
  const refuse = (message: string) => new ConfigError([{ file: display, line: 1, column: 1, key: "", message }]);
  const check = (stat: Stats) => {
    if (!stat.isFile()) throw refuse(`the lock file is not a regular file (a directory, a pipe or a device); remove it, and pairflow writes a new one`);
    if (stat.size > MAX_LOCK_BYTES) throw refuse(`the lock file is ${stat.size} bytes, more than any lock file pairflow writes; ${FIX}`);
  };
  check(statSync(file));
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    check(stat);
    const buffer = Buffer.alloc(Number(stat.size));
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0;) length += n;
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * The lock file's value, checked: every entry has the shape pairflow writes. Each entry's
 * components stay the text they are in the file (see LockEntry): decoding 50,000 of those small
 * mappings, each keyed by its pair's own dependencies, took more time and memory than the rest of
 * the file together.
 */
export function parseLock(text: string, display: string): LockFile {
  const cut = componentsCut(text);
  if (cut !== undefined) {
    try {
      const value: unknown = JSON.parse(cut.text);
      if (putComponentsBack(value, cut.components)) return checked(value, text, display, true);
    } catch {
      // Not JSON: the whole file, read below, says where.
    }
  }
  // Without components to cut out, or when a hostile file makes the cut read differently from the
  // whole: the whole file, as JSON reads it.
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // JSON.parse's message quotes the text around the mistake: only the place is shown.
    const offset = /position (\d+)/.exec((err as Error).message)?.[1];
    const before = text.slice(0, Number(offset ?? 0)).split("\n");
    throw new ConfigError([
      {
        file: display,
        line: offset === undefined ? 1 : before.length,
        column: offset === undefined ? 1 : before[before.length - 1]!.length + 1,
        key: "",
        message: `the lock file is not valid JSON (a merge conflict left in it?); ${FIX}`,
      },
    ]);
  }
  return checked(value, text, display, false);
}

/** Components mappings as pairflow writes them: no space, no newline, every key and value a string. */
const STRING = String.raw`"[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*"`;
const FLAT_MAPPING = new RegExp(String.raw`^\{(?:${STRING}:${STRING}(?:,${STRING}:${STRING})*)?\}$`);
const KEY = '"components"';

/**
 * The text with each entry's components mapping replaced by its number in `components`; undefined
 * unless every `"components"` in the text is such a key with such a mapping, as in every lock file
 * pairflow writes. A cut mapping's key follows a comma, so its opening quote is no quote inside a
 * text: it is a key and the mapping its value (in a file JSON can read at all), and putting another
 * value in its place reads the same everywhere else. With no other `"components"` anywhere, no
 * other value can be taken for a cut one.
 */
function componentsCut(text: string): { text: string; components: ComponentsText[] } | undefined {
  const pieces: string[] = [];
  const components: ComponentsText[] = [];
  let kept = 0;
  for (let at = text.indexOf(KEY); at !== -1; at = text.indexOf(KEY, kept)) {
    const open = at + KEY.length + 1;
    if (text.charCodeAt(at - 1) !== 0x2c || text.charCodeAt(open - 1) !== 0x3a || text.charCodeAt(open) !== 0x7b) return undefined;
    const close = text.indexOf("}", open);
    if (close === -1) return undefined;
    const mapping = text.slice(open, close + 1);
    if (!FLAT_MAPPING.test(mapping)) return undefined;
    pieces.push(text.slice(kept, open), String(components.length));
    components.push(mapping as ComponentsText);
    kept = close + 1;
  }
  if (components.length === 0) return undefined;
  pieces.push(text.slice(kept));
  return { text: pieces.join(""), components };
}

/**
 * Puts each cut mapping back into its entry; false when one was not an entry's components (a
 * components key somewhere else in the file), which the whole file's reading then reports.
 */
function putComponentsBack(value: unknown, components: readonly ComponentsText[]): boolean {
  if (!isObject(value) || !isObject(value.pairs)) return false;
  // Entries come in the file's order except those whose ids are array indices: counted, not ordered.
  const used = new Uint8Array(components.length);
  let found = 0;
  for (const entry of Object.values(value.pairs)) {
    if (!isObject(entry) || typeof entry.components !== "number") continue;
    const n = entry.components;
    if (used[n] !== 0) return false;
    used[n] = 1;
    found += 1;
    entry.components = components[n];
  }
  return found === components.length;
}

/** The value checked entry by entry; `cut` when its string components are mappings cut out of the text. */
function checked(value: unknown, text: string, display: string, cut: boolean): LockFile {
  const problems: { path: (string | number)[]; message: string }[] = [];
  if (!isObject(value) || value.version !== LOCK_VERSION) {
    problems.push({ path: isObject(value) ? ["version"] : [], message: `not a pairflow lock file of version ${LOCK_VERSION}; ${FIX}` });
  } else {
    if (typeof value.workflow !== "string") problems.push({ path: ["workflow"], message: `"workflow" must be the workflow's name; ${FIX}` });
    if (!isObject(value.pairs)) problems.push({ path: ["pairs"], message: `"pairs" must be a mapping of pair ids to entries; ${FIX}` });
    else {
      for (const [id, entry] of Object.entries(value.pairs)) {
        const wrong = entryProblem(entry, cut);
        if (wrong) problems.push({ path: ["pairs", id, ...wrong.at], message: `the entry of pair "${id}" ${wrong.what}; ${FIX}` });
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(positioned(text, display, problems));
  // Any text is a pair id, "constructor" and "__proto__" included: the entries are a dictionary.
  asDict((value as { pairs: Record<string, unknown> }).pairs);
  return value as unknown as LockFile;
}

/** The fields of a lock entry, each with its test and what it must be. */
const ENTRY_FIELDS: readonly [string, (v: unknown) => boolean, string][] = [
  ["configRef", isHash, "a sha256 hex digest"],
  ["contentHash", isHash, "a sha256 hex digest"],
  ["source", (v) => v === "generated" || v === "human", '"generated" or "human"'],
  ["model", (v) => v === null || typeof v === "string", "a model name or null"],
  ["components", (v) => isObject(v) && Object.values(v).every((d) => typeof d === "string"), "a mapping of names to digests"],
  ["attempts", (v) => Number.isInteger(v) && (v as number) >= 0, "a whole number"],
  ["tokens", (v) => isObject(v) && isCount(v.input) && isCount(v.output), "a mapping with input and output token counts"],
  ["durationMs", isCount, "a number of milliseconds"],
  ["acceptedAt", (v) => typeof v === "string", "a time"],
];

/** What is wrong with one entry, and where in it, or undefined. */
function entryProblem(entry: unknown, cut: boolean): { at: string[]; what: string } | undefined {
  if (!isObject(entry)) return { at: [], what: `is ${entry === null ? "null" : Array.isArray(entry) ? "a list" : typeof entry}, not a mapping` };
  for (const [key, ok, expected] of ENTRY_FIELDS) {
    if (!Object.hasOwn(entry, key)) return { at: [], what: `has no "${key}"` };
    if (cut && key === "components" && typeof entry[key] === "string") continue;
    if (!ok(entry[key])) return { at: [key], what: `has a "${key}" that is not ${expected}` };
  }
  // Optional: only entries a traced run wrote have it.
  if (Object.hasOwn(entry, "observed") && !isPathList(entry.observed)) return { at: ["observed"], what: 'has an "observed" that is not a list of file paths' };
  return undefined;
}

/** Each problem at its place in the text (JSON that has been parsed). */
function positioned(text: string, display: string, problems: { path: (string | number)[]; message: string }[]): ConfigIssue[] {
  const places = jsonPositions(
    text,
    problems.map((p) => p.path),
  );
  return problems.map(({ path, message }, i) => ({ file: display, line: places[i]![0], column: places[i]![1], key: path.join("."), message }));
}

/** A key path's node in a JSON text: its children by key, and where its value starts (-1: not found). */
interface Wanted {
  children: Map<string, Wanted>;
  offset: number;
}

/**
 * Where each key path's value is in a JSON text, as [line, column], or its nearest ancestor's
 * when the path goes beyond what the text holds. Of a key written twice, the last is shown: the
 * one JSON.parse keeps. One pass over the text, and a lookup per path: however many entries are
 * damaged, reporting them is linear in the file (a YAML parse of a lock file of 50,000 entries,
 * to position each problem, took most of a minute and gigabytes).
 *
 * The text must be valid JSON. Only the values along the paths are descended into, so the
 * descent is as deep as the longest path; every other value is skipped without recursion.
 */
function jsonPositions(text: string, paths: readonly (readonly (string | number)[])[]): [number, number][] {
  const root: Wanted = { children: new Map(), offset: -1 };
  for (const path of paths) {
    let node = root;
    for (const key of path) {
      let child = node.children.get(String(key));
      if (child === undefined) node.children.set(String(key), (child = { children: new Map(), offset: -1 }));
      node = child;
    }
  }
  let i = 0;
  const space = () => {
    while (isSpace(text.charCodeAt(i))) i++;
  };
  /** Past the string starting at i (its opening quote); returns its text as written, escapes and all. */
  const string = (): string => {
    const start = ++i;
    for (let c = text.charCodeAt(i); c !== 0x22 && i < text.length; c = text.charCodeAt(i)) i += c === 0x5c ? 2 : 1;
    return text.slice(start, i++);
  };
  /** Past the value starting at i. */
  const skip = () => {
    const c = text.charCodeAt(i);
    if (c === 0x22) string();
    // A number, true, false or null: up to the delimiter or space after it (or the end: NaN).
    else if (c !== 0x7b && c !== 0x5b) while (!isSpace(text.charCodeAt(i)) && !isEnd(text.charCodeAt(i))) i++;
    else {
      let depth = 0;
      do {
        const d = text.charCodeAt(i);
        if (d === 0x22) string();
        else {
          if (d === 0x7b || d === 0x5b) depth++;
          else if (d === 0x7d || d === 0x5d) depth--;
          i++;
        }
      } while (depth > 0 && i < text.length);
    }
  };
  const value = (wanted: Wanted | undefined): void => {
    space();
    if (wanted === undefined || wanted.children.size === 0) {
      if (wanted !== undefined) wanted.offset = i;
      skip();
      return;
    }
    wanted.offset = i;
    const open = text.charCodeAt(i++);
    if (open !== 0x7b && open !== 0x5b) {
      i--;
      skip();
      return;
    }
    const close = open === 0x7b ? 0x7d : 0x5d;
    for (let index = 0; i < text.length; index++) {
      space();
      if (text.charCodeAt(i) === close) break;
      let key = String(index);
      if (open === 0x7b) {
        const raw = string();
        key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
        space();
        i++; // the colon
      }
      value(wanted.children.get(key));
      space();
      if (text.charCodeAt(i) === 0x2c) i++;
    }
    i++;
  };
  value(root);

  const lineStarts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lineStarts.push(at + 1);
  const place = (offset: number): [number, number] => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return [lo + 1, offset - lineStarts[lo]! + 1];
  };
  return paths.map((path) => {
    let node = root;
    let offset = Math.max(root.offset, 0);
    for (const key of path) {
      const child = node.children.get(String(key))!;
      if (child.offset === -1) break;
      node = child;
      offset = child.offset;
    }
    return place(offset);
  });
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** A comma, a closing bracket or brace, or past the end of the text (charCodeAt gives NaN). */
function isEnd(c: number): boolean {
  return c === 0x2c || c === 0x5d || c === 0x7d || Number.isNaN(c);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A list of file paths as a traced run writes it. */
export function isPathList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((f) => typeof f === "string" && f !== "");
}

function isHash(v: unknown): boolean {
  return typeof v === "string" && /^[0-9a-f]{64}$/.test(v);
}

function isCount(v: unknown): boolean {
  return typeof v === "number" && Number.isFinite(v) && v >= 0;
}
