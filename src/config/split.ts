/**
 * The pieces of a file, for `foreach: {files, split}` (docs/foreach.md): a pair over the sections
 * of a Markdown page, the keys of a JSON or YAML catalogue, or the parts a regular expression
 * starts, so that an edit re-runs the piece it touched and no other. Each piece has a stable,
 * readable id; the pieces' results are put back together in the file's order (`assemble`).
 *
 * Pure: texts in, pieces out.
 */
import { createHash } from "node:crypto";
import { isMap, isScalar, isSeq, parseDocument, type Document } from "yaml";

import type { SplitSpec } from "../model/workflow.js";
import { githubAnchor } from "./anchor.js";

export type { SplitSpec };

/** The generator of the instance that puts a split file's pieces back together: pairflow's own (src/generators/assemble.ts). */
export const ASSEMBLE = "assemble";

export interface Piece {
  /** Stable and readable: a heading's slug (occurrence-numbered), a key's path, a part's first words. */
  id: string;
  /** The piece's text, as it is in the file: the pieces of a Markdown or regex split join back into the file. */
  text: string;
  /** The file's title (its first level-1 heading), for a translator's context. */
  title: string;
  /** The headings the piece is under, outermost first, its own last (Markdown). */
  headings: string[];
}

/** The pieces of `text` as `spec` says; a text that cannot be split (JSON that is not an object) throws, saying why. */
export function splitText(text: string, spec: SplitSpec): Piece[] {
  const pieces =
    spec.kind === "markdown"
      ? splitMarkdown(text)
      : spec.kind === "regex"
        ? splitRegex(text, spec.regex ?? "")
        : spec.kind === "json"
          ? catalogue(parseJsonObject(text))
          : catalogue(parseYamlObject(text));
  return spec.maxChars !== undefined && (spec.kind === "markdown" || spec.kind === "regex") ? bounded(pieces, spec.maxChars) : pieces;
}

// ---------------------------------------------------------------------------------------------
// Markdown: sections by ATX heading, outside fenced code and HTML blocks

/**
 * An ATX heading's level and text, as CommonMark reads the line: up to three spaces, one to six
 * `#`, then a blank or the line's end; the text without the blanks around it and without a closing
 * run of `#` that a blank precedes. Read character by character: no expression to backtrack on
 * a long line.
 */
export function atxHeading(line: string): { level: number; text: string } | null {
  let end = line.length;
  if (line.endsWith("\n")) end--;
  if (end > 0 && line[end - 1] === "\r") end--;
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  let level = 0;
  while (i + level < end && line[i + level] === "#") level++;
  if (level === 0 || level > 6) return null;
  i += level;
  if (i < end && line[i] !== " " && line[i] !== "\t") return null;
  const blank = (c: string | undefined) => c === " " || c === "\t";
  while (i < end && blank(line[i])) i++;
  while (end > i && blank(line[end - 1])) end--;
  // A closing run of # goes when a blank precedes it, or when it is the whole text.
  let hashes = end;
  while (hashes > i && line[hashes - 1] === "#") hashes--;
  if (hashes < end && (hashes === i || blank(line[hashes - 1]))) {
    end = hashes;
    while (end > i && blank(line[end - 1])) end--;
  }
  return { level, text: line.slice(i, end) };
}

/** A code fence line as CommonMark reads it: up to three spaces, three or more backticks or tildes, then its info string. */
interface Fence {
  char: string;
  length: number;
  info: string;
}

function fenceOf(line: string): Fence | null {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  const char = line[i];
  if (char !== "`" && char !== "~") return null;
  let length = 0;
  while (line[i + length] === char) length++;
  if (length < 3) return null;
  const info = line.slice(i + length).trim();
  // A backtick fence's info string holds no backtick (that line is inline code, not a fence).
  if (char === "`" && info.includes("`")) return null;
  return { char, length, info };
}

/** Whether `line` closes the block `open` opened: the same character, at least as many, and nothing after. */
function closes(open: Fence, line: string): boolean {
  const f = fenceOf(line);
  return f !== null && f.char === open.char && f.length >= open.length && f.info === "";
}

/**
 * The ends an HTML block that `line` starts waits for, when it is one of the kinds CommonMark runs
 * across blank lines to an end (a comment, `<pre>`, `<script>`, `<style>`, `<textarea>`, `<?...?>`,
 * `<!DOCTYPE ...>`, CDATA) and the line does not end it too; else null. What such a block holds is
 * not Markdown: a `#` line in it is no heading (GitHub gives it no anchor).
 */
function htmlBlock(line: string): string[] | null {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  if (line[i] !== "<") return null;
  const rest = line.slice(i).toLowerCase();
  const ends = rest.startsWith("<!--")
    ? ["-->"]
    : rest.startsWith("<![cdata[")
      ? ["]]>"]
      : rest.startsWith("<?")
        ? ["?>"]
        : /^<![a-z]/.test(rest)
          ? [">"]
          : /^<(pre|script|style|textarea)([ \t>\r\n]|$)/.test(rest)
            ? ["</pre>", "</script>", "</style>", "</textarea>"]
            : null;
  return ends === null || endsHtml(ends, line) ? null : ends;
}

function endsHtml(ends: readonly string[], line: string): boolean {
  const lower = line.toLowerCase();
  return ends.some((end) => lower.includes(end));
}

export function splitMarkdown(text: string): Piece[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const pieces: { id: string; lines: string[]; headings: string[] }[] = [];
  let i = 0;
  // Front matter: a first line of `---` up to the next `---` line.
  if (/^---\r?\n$/.test(lines[0] ?? "")) {
    const close = lines.findIndex((l, n) => n > 0 && /^(---|\.\.\.)\r?\n?$/.test(l));
    if (close > 0) {
      pieces.push({ id: "front-matter", lines: lines.slice(0, close + 1), headings: [] });
      i = close + 1;
    }
  }
  let title = "";
  const stack: { level: number; text: string }[] = [];
  const ids = new Ids();
  if (pieces.length > 0) ids.take("front-matter");
  let preamble = true;
  let current: { id: string; lines: string[]; headings: string[] } = { id: "preamble", lines: [], headings: [] };
  let fence: Fence | null = null;
  let html: string[] | null = null;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence !== null || html !== null) {
      if (fence !== null && closes(fence, line)) fence = null;
      if (html !== null && endsHtml(html, line)) html = null;
      current.lines.push(line);
      continue;
    }
    fence = fenceOf(line);
    html = fence ? null : htmlBlock(line);
    const h = fence || html ? null : atxHeading(line);
    if (!h) {
      current.lines.push(line);
      continue;
    }
    const { level, text: heading } = h;
    if (level === 1 && title === "") title = heading;
    while (stack.length > 0 && stack.at(-1)!.level >= level) stack.pop();
    stack.push({ level, text: heading });
    // The text before the first heading is a piece of its own unless it is blank (see below).
    if (preamble && current.lines.join("").trim() !== "") ids.take("preamble");
    preamble = false;
    pieces.push(current);
    current = { id: ids.take(slugOf(heading)), lines: [line], headings: stack.map((s) => s.text) };
  }
  pieces.push(current);
  // Blank lines before the first heading belong to it: no piece of whitespace alone.
  const kept = pieces.filter((p) => p.lines.length > 0);
  const out: Piece[] = [];
  for (let n = 0; n < kept.length; n++) {
    const p = kept[n]!;
    if (p.id === "preamble" && p.lines.join("").trim() === "" && kept[n + 1]) {
      kept[n + 1]!.lines.unshift(...p.lines);
      continue;
    }
    out.push({ id: p.id, text: p.lines.join(""), title, headings: p.headings });
  }
  return out;
}

/** A heading's anchor as GitHub makes it (./anchor.ts); `section` for a heading that leaves nothing. */
export function slugOf(heading: string): string {
  const slug = githubAnchor(heading);
  return slug === "" ? "section" : slug;
}

/** A regex piece's first line as an id: lower case, punctuation dropped, spaces as hyphens. */
function lineSlug(line: string): string {
  const slug = line
    .replace(/[`*_~[\]()<>]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- ]/gu, "")
    .trim()
    .replace(/ /g, "-");
  return slug === "" ? "section" : slug;
}

/**
 * Unique ids, numbered as GitHub numbers repeated anchors: an id already taken gets `-1`, `-2`, ...,
 * skipping numbered ids that are taken too (`Setup`, `Setup`, `Setup 1` give `setup`, `setup-1`,
 * `setup-1-1`), so no two pieces ever share one.
 */
export class Ids {
  private readonly occurrences = new Map<string, number>();

  take(id: string): string {
    let result = id;
    while (this.occurrences.has(result)) {
      const n = this.occurrences.get(id)! + 1;
      this.occurrences.set(id, n);
      result = `${id}-${n}`;
    }
    this.occurrences.set(result, 0);
    return result;
  }
}

// ---------------------------------------------------------------------------------------------
// Regex: a piece starts at each match

function splitRegex(text: string, pattern: string): Piece[] {
  const re = new RegExp(pattern, "gm");
  const starts = [0];
  for (const m of text.matchAll(re)) if (m.index! > 0 && m.index !== starts.at(-1)) starts.push(m.index!);
  const ids = new Ids();
  return starts.map((start, n) => {
    const piece = text.slice(start, starts[n + 1] ?? text.length);
    const slug = n === 0 && start === 0 && !re.test(piece) ? "preamble" : lineSlug(piece.split("\n")[0]!.slice(0, 60));
    re.lastIndex = 0;
    return { id: ids.take(slug), text: piece, title: "", headings: [] };
  });
}

// ---------------------------------------------------------------------------------------------
// Catalogues: every text leaf, by the path of its keys

type Catalogue = { kind: "json"; value: unknown } | { kind: "yaml"; doc: Document };

function parseJsonObject(text: string): Catalogue {
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new Error("split: json takes a file holding a JSON object (a catalogue of keys)");
  return { kind: "json", value };
}

function parseYamlObject(text: string): Catalogue {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`split: yaml: ${doc.errors[0]!.message}`);
  if (!isMap(doc.contents)) throw new Error("split: yaml takes a file holding a mapping (a catalogue of keys)");
  return { kind: "yaml", doc };
}

/** The path of a key as a piece id: keys joined by ".", a key holding "." or "\" escaped with "\". */
function pathId(keys: readonly string[]): string {
  return keys.map((k) => k.replace(/[\\.]/g, (c) => `\\${c}`)).join(".");
}

function catalogue(c: Catalogue): Piece[] {
  const pieces: Piece[] = [];
  for (const { keys, text } of leaves(c)) pieces.push({ id: pathId(keys), text, title: "", headings: keys.slice(0, -1) });
  return pieces;
}

function leaves(c: Catalogue): { keys: string[]; text: string }[] {
  const out: { keys: string[]; text: string }[] = [];
  if (c.kind === "json") {
    const walk = (value: unknown, keys: string[]) => {
      if (typeof value === "string") out.push({ keys, text: value });
      else if (value !== null && typeof value === "object")
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(v, [...keys, Array.isArray(value) ? String(Number(k)) : k]);
    };
    walk(c.value, []);
    return out;
  }
  const walk = (node: unknown, keys: string[]) => {
    if (isScalar(node)) {
      if (typeof node.value === "string") out.push({ keys, text: node.value });
    } else if (isMap(node)) {
      for (const item of node.items) walk(item.value, [...keys, String(isScalar(item.key) ? item.key.value : item.key)]);
    } else if (isSeq(node)) node.items.forEach((item, n) => walk(item, [...keys, String(n)]));
  };
  walk(c.doc.contents, []);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Bounds: small pieces join the next, large ones are cut where their lines say

/**
 * A piece under an eighth of `maxChars` joins the piece after it (a heading alone, a one-line
 * preamble): that depends on its own size only, so an edit elsewhere moves no boundary. A piece
 * over `maxChars` is cut after lines whose digest says so (content-defined, as deduplicating
 * stores cut files): inserting text moves the cuts near it and no other. Fenced code is never cut.
 */
function bounded(pieces: Piece[], maxChars: number): Piece[] {
  const small = Math.max(1, Math.floor(maxChars / 8));
  const joined: Piece[] = [];
  let carry: Piece | null = null;
  for (const p of pieces) {
    const piece: Piece = carry ? { ...carry, text: carry.text + p.text, id: carry.id } : p;
    carry = piece.text.length < small ? piece : null;
    if (!carry) joined.push(piece);
  }
  if (carry) {
    const last = joined.pop();
    joined.push(last ? { ...last, text: last.text + carry.text } : carry);
  }
  const ids = new Ids();
  return joined
    .flatMap((p) => (p.text.length > maxChars ? cut(p, maxChars) : [p]))
    .map((p) => {
      const id = ids.take(p.id);
      return id === p.id ? p : { ...p, id };
    });
}

function cut(piece: Piece, maxChars: number): Piece[] {
  const lines = piece.text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const min = Math.floor(maxChars / 4);
  // On average a cut every half of maxChars: a line closes a chunk when its digest's low bits are zero.
  const meanLines = Math.max(1, Math.round(maxChars / 2 / Math.max(1, piece.text.length / Math.max(1, lines.length))));
  const chunks: string[][] = [[]];
  let size = 0;
  let fence: Fence | null = null;
  for (const line of lines) {
    if (fence !== null) {
      if (closes(fence, line)) fence = null;
    } else fence = fenceOf(line);
    chunks.at(-1)!.push(line);
    size += line.length;
    const boundary = parseInt(createHash("sha256").update(line).digest("hex").slice(0, 8), 16) % meanLines === 0;
    if (fence === null && size >= min && (boundary || size >= maxChars)) {
      chunks.push([]);
      size = 0;
    }
  }
  const texts = chunks.map((c) => c.join("")).filter((t) => t !== "");
  return texts.map((text, n) => ({
    ...piece,
    // The first keeps the piece's id; the others are named by their first line, so an insertion
    // before them does not rename them.
    id: n === 0 ? piece.id : `${piece.id}~${createHash("sha256").update(text.split("\n")[0]!).digest("hex").slice(0, 6)}`,
    text,
  }));
}

// ---------------------------------------------------------------------------------------------
// Putting the results back

/**
 * The file made of the pieces' results, in the file's order. Markdown and regex pieces are joined
 * as they are (a result not ending with a new line gets one, so the next piece starts a line); a
 * catalogue keeps the file's structure, each text leaf replaced by its piece's result (one
 * trailing new line dropped), in the file's own formatting where YAML keeps it.
 */
export function assemble(spec: SplitSpec, source: string, results: readonly string[]): string {
  if (spec.kind === "markdown" || spec.kind === "regex") return results.map((r) => (r === "" || r.endsWith("\n") ? r : `${r}\n`)).join("");
  const values = results.map((r) => r.replace(/\r?\n$/, ""));
  let n = 0;
  if (spec.kind === "json") {
    const value = JSON.parse(source) as unknown;
    const replace = (v: unknown): unknown => {
      if (typeof v === "string") return values[n++] ?? v;
      if (Array.isArray(v)) return v.map(replace);
      if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replace(x)]));
      return v;
    };
    const indent = /\n([ \t]+)"/.exec(source)?.[1] ?? "";
    return JSON.stringify(replace(value), null, indent) + (source.endsWith("\n") ? "\n" : "");
  }
  const doc = parseDocument(source);
  const replace = (node: unknown) => {
    if (isScalar(node)) {
      if (typeof node.value === "string") node.value = values[n++] ?? node.value;
    } else if (isMap(node)) for (const item of node.items) replace(item.value);
    else if (isSeq(node)) for (const item of node.items) replace(item);
  };
  replace(doc.contents);
  return doc.toString();
}
