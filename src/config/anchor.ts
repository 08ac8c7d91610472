/**
 * A Markdown heading's anchor as GitHub makes it: the heading's text as it is shown (inline markup
 * rendered away: link targets, inline HTML tags, emphasis markers and code span backticks gone,
 * escaped characters kept as the characters they stand for), lower-cased, every character that is
 * not a letter, a mark, a digit, a connector (`_`), `-` or a space removed, and each space a `-`.
 * So `Eager Watchers \*` is `eager-watchers-`, `Once <sup class="badge" /> new` is `once--new`,
 * `my_var` is `my_var`. Repeats are numbered by the caller (src/config/split.ts `Ids`).
 *
 * One pass over the heading with precomputed matches: no regular expression that can backtrack,
 * so a heading of any length costs time in proportion to it.
 *
 * Pure: text in, text out.
 */

/** What GitHub keeps in an anchor: letters, marks, decimal and letter numbers, connectors, `-` and spaces. */
const NOT_KEPT = /[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\- ]/gu;

export function githubAnchor(heading: string): string {
  return shownText(heading).toLowerCase().replace(NOT_KEPT, "").replace(/ /g, "-");
}

const ASCII_PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

const ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  copy: "©",
  reg: "®",
  hellip: "…",
  mdash: "—",
  ndash: "–",
};

/** A piece of shown text: literal (an escaped character, code) or an underscore run that may be emphasis. */
type Part = { text: string } | { run: number; open: boolean; close: boolean };

/** The heading's text as GitHub shows it (what its anchor is made from). */
export function shownText(source: string): string {
  const matches = precompute(source);
  const parts = inline(source, 0, source.length, matches);
  return emphasisRemoved(parts);
}

interface Matches {
  /** For a `[` its matching `]`, for a `(` its matching `)`: -1 when there is none. */
  close: Int32Array;
  /** The start of every backtick run, by its length, in order, with how many of them are behind. */
  ticks: Map<number, { at: number[]; passed: number }>;
  /** Where the last `-->` is: a comment opening after it has no end. */
  lastCommentEnd: number;
}

/** Bracket and parenthesis pairs (escaped ones skipped) and backtick runs, found in one pass each. */
function precompute(s: string): Matches {
  const close = new Int32Array(s.length).fill(-1);
  const brackets: number[] = [];
  const parens: number[] = [];
  const ticks = new Map<number, { at: number[]; passed: number }>();
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && i + 1 < s.length && ASCII_PUNCTUATION.has(s[i + 1]!)) {
      i++;
      continue;
    }
    if (c === "[") brackets.push(i);
    else if (c === "]" && brackets.length > 0) close[brackets.pop()!] = i;
    else if (c === "(") parens.push(i);
    else if (c === ")" && parens.length > 0) close[parens.pop()!] = i;
    else if (c === "`") {
      let j = i;
      while (j < s.length && s[j] === "`") j++;
      const list = ticks.get(j - i) ?? { at: [], passed: 0 };
      list.at.push(i);
      ticks.set(j - i, list);
      i = j - 1;
    }
  }
  return { close, ticks, lastCommentEnd: s.lastIndexOf("-->") };
}

/** The next backtick run of exactly `length` starting at or after `from`, or -1. */
function nextTicks(m: Matches, length: number, from: number): number {
  const list = m.ticks.get(length);
  if (list === undefined) return -1;
  // Runs are looked for left to right: those behind are passed once, so the whole heading costs one pass.
  while (list.passed < list.at.length && list.at[list.passed]! < from) list.passed++;
  return list.at[list.passed] ?? -1;
}

function isSpace(c: string | undefined): boolean {
  return c === undefined || c === " " || c === "\t" || c === "\n" || c === "\u00a0";
}

function isPunctuation(c: string | undefined): boolean {
  return c !== undefined && (ASCII_PUNCTUATION.has(c) || /[\p{P}\p{S}]/u.test(c));
}

/** The shown parts of `s` from `start` to `end`. */
function inline(s: string, start: number, end: number, m: Matches, depth = 0): Part[] {
  const parts: Part[] = [];
  const text = (t: string) => parts.push({ text: t });
  let i = start;
  while (i < end) {
    const c = s[i]!;
    if (c === "\\" && i + 1 < end && ASCII_PUNCTUATION.has(s[i + 1]!)) {
      text(s[i + 1]!);
      i += 2;
    } else if (c === "`") {
      let j = i;
      while (j < end && s[j] === "`") j++;
      const n = j - i;
      const closing = nextTicks(m, n, j);
      if (closing === -1 || closing + n > end) {
        text(s.slice(i, j));
        i = j;
        continue;
      }
      let code = s.slice(j, closing);
      if (code.length >= 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim() !== "") code = code.slice(1, -1);
      text(code);
      i = closing + n;
    } else if (c === "<") {
      const after = html(s, i, end, m);
      if (after === -1) {
        text("<");
        i++;
      } else {
        const inner = s.slice(i + 1, after - 1);
        // An autolink shows its address; a tag or a comment shows nothing.
        if (/^[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*$/.test(inner) || /^[^\s<>@]+@[^\s<>@]+$/.test(inner)) text(inner);
        i = after;
      }
    } else if ((c === "[" || (c === "!" && s[i + 1] === "[")) && linkEnd(s, c === "!" ? i + 1 : i, end, m) !== -1) {
      const open = c === "!" ? i + 1 : i;
      const label = m.close[open]!;
      // A link shows its text; an image shows nothing (its description is an attribute).
      if (c === "[" && depth < 32) parts.push(...inline(s, open + 1, label, m, depth + 1));
      else if (c === "[") text(s.slice(open + 1, label));
      i = linkEnd(s, open, end, m);
    } else if (c === "&") {
      // An entity's name is short: looking no further keeps a heading of many "&" linear.
      const semi = s.slice(i, Math.min(end, i + 34)).indexOf(";") + i;
      const name = semi < i ? "" : s.slice(i + 1, semi);
      const decoded = entity(name);
      if (decoded === undefined) {
        text("&");
        i++;
      } else {
        text(decoded);
        i = semi + 1;
      }
    } else if (c === "_") {
      let j = i;
      while (j < end && s[j] === "_") j++;
      const before = i === start ? undefined : s[i - 1];
      const next = j === end ? undefined : s[j];
      const left = !isSpace(next) && (!isPunctuation(next) || isSpace(before) || isPunctuation(before));
      const right = !isSpace(before) && (!isPunctuation(before) || isSpace(next) || isPunctuation(next));
      parts.push({ run: j - i, open: left && (!right || isPunctuation(before)), close: right && (!left || isPunctuation(next)) });
      i = j;
    } else {
      let j = i + 1;
      while (j < end && !"\\`<[!&_".includes(s[j]!)) j++;
      text(s.slice(i, j));
      i = j;
    }
  }
  return parts;
}

/** Where an inline link or reference that opens with the `[` at `open` ends, or -1: `[text](target)`, `[text][ref]`. */
function linkEnd(s: string, open: number, end: number, m: Matches): number {
  const label = m.close[open]!;
  if (label === -1 || label >= end) return -1;
  const next = s[label + 1];
  if (next === "(" || next === "[") {
    const target = m.close[label + 1]!;
    return target === -1 || target >= end ? -1 : target + 1;
  }
  return -1;
}

/** Where inline HTML (a tag, a comment) or an autolink that starts at `<` ends, or -1. */
function html(s: string, i: number, end: number, m: Matches): number {
  if (s.startsWith("<!--", i)) {
    if (m.lastCommentEnd < i + 4) return -1;
    const close = s.indexOf("-->", i + 4);
    return close === -1 || close + 3 > end ? -1 : close + 3;
  }
  const c = s[i + 1];
  if (c === undefined || !(/[A-Za-z]/.test(c) || (c === "/" && /[A-Za-z]/.test(s[i + 2] ?? "")))) return -1;
  // A tag ends at the first ">" (one inside a quoted value is not looked for), and none holds a
  // "<": each character is looked at by one "<" only.
  for (let j = i + 1; j < end; j++) {
    const d = s[j]!;
    if (d === ">") return j + 1;
    if (d === "<") return -1;
  }
  return -1;
}

/** The character an entity name stands for (`amp`, `#38`, `#x26`), or undefined. */
function entity(name: string): string | undefined {
  if (Object.hasOwn(ENTITIES, name)) return ENTITIES[name];
  const code = /^#[0-9]{1,7}$/.test(name) ? Number(name.slice(1)) : /^#[xX][0-9a-fA-F]{1,6}$/.test(name) ? parseInt(name.slice(2), 16) : NaN;
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/** The text with underscore runs that open and close emphasis taken out, the others kept as `_`. */
function emphasisRemoved(parts: readonly Part[]): string {
  const shown: string[] = [];
  const openers: number[] = [];
  for (const p of parts) {
    if ("text" in p) {
      shown.push(p.text);
      continue;
    }
    if (p.close && openers.length > 0) {
      shown[openers.pop()!] = "";
      shown.push("");
      continue;
    }
    if (p.open) openers.push(shown.length);
    shown.push("_".repeat(p.run));
  }
  return shown.join("");
}
