/**
 * Counting the tokens of a prompt. OpenAI's current models (gpt-4o, gpt-4.1, gpt-4.5, gpt-5, the
 * o-series) use the o200k_base encoding, whose ranks js-tiktoken ships inside its package: it is
 * counted exactly, offline. Every other model is approximated as characters / 4, and said to be.
 *
 * The count is js-tiktoken's `encode(text).length` (test/estimate/tokens.test.ts holds the two
 * together), computed here without its encoder for two reasons:
 * - its byte-pair merge rescans and re-joins the whole piece on every merge, which is cubic in the
 *   length of one unbroken run of letters (a 20,000-character word took a minute); the merge here
 *   keeps the candidate merges in a heap, O(n log n) per piece and exact;
 * - its table keys every token by its bytes joined with commas, which takes about a second to build;
 *   the table here (./rankTable.ts) is made once, at build time, into a file the bundle reads as it is.
 * The table is loaded by `loadTokenizer` only, which the estimate calls when a pair it counts uses an
 * OpenAI model, so a command that counts nothing never reads it. Counts of pieces (words and the
 * spaces before them) already seen are remembered.
 */
import { encodeRankTable, hashOf, RankTable } from "./rankTable.js";

/** How a count was made: a real tokenizer, or the documented approximation. */
export type TokenMethod = "o200k_base" | "approximate";

/** Characters per token of the approximation: a common rule of thumb for English text and code. */
export const CHARS_PER_TOKEN = 4;

/**
 * What an OpenAI chat request adds to its one user message: 3 tokens per message, 1 for the role
 * and 3 that prime the reply, as OpenAI documents for counting chat tokens.
 */
export const CHAT_OVERHEAD_TOKENS = 7;

/** Model names (after any `provider/` prefix) of the o200k_base family. */
const O200K = /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o1|o3|o4)(\b|-|$)/;

/** The tokenizer for a model, or "approximate" when pairflow has none for its family. */
export function tokenMethod(model: string | null): TokenMethod {
  if (model === null) return "approximate";
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  return O200K.test(name) ? "o200k_base" : "approximate";
}

/**
 * Loads the o200k_base table, once: countO200k, and countTokens for a model of that family, need it
 * loaded first. `packaged` reads the table the build made (see ./rankTable.ts); without it, or
 * when it has none (run from the sources), the table is made here from js-tiktoken's ranks.
 */
export async function loadTokenizer(packaged?: () => Uint8Array | undefined): Promise<void> {
  if (o200k) return;
  let ranks = decodePackaged(packaged);
  if (!ranks) {
    const { default: base } = await import("js-tiktoken/ranks/o200k_base");
    if (!base) throw new Error("the o200k_base token table, o200k_base.bin beside pairflow's bundle, is missing or damaged: install pairflow again");
    ranks = RankTable.decode(encodeRankTable(base))!;
  }
  o200k ??= { split: new RegExp(ranks.pattern, "gu"), ranks, seen: new PieceCounts() };
}

function decodePackaged(packaged: (() => Uint8Array | undefined) | undefined): RankTable | undefined {
  const bytes = packaged?.();
  return bytes && RankTable.decode(bytes);
}

/** Tokens of `text` for `model`, with how they were counted (an o200k model's after loadTokenizer). */
export function countTokens(text: string, model: string | null): { tokens: number; method: TokenMethod } {
  const method = tokenMethod(model);
  if (method === "approximate") return { tokens: Math.ceil(text.length / CHARS_PER_TOKEN), method };
  return { tokens: countO200k(text), method };
}

/**
 * Tokens of text in o200k_base, special tokens counted as plain text (a prompt that contains
 * "<|endoftext|>" is sent, and counted, as text).
 */
export function countO200k(text: string): number {
  const encoding = o200k;
  if (!encoding) throw new Error("countO200k: the o200k_base table is not loaded (await loadTokenizer() first)");
  let tokens = 0;
  if (!NOT_ASCII.test(text)) {
    // Most prompts are ASCII: cut without the regular expression, and look pieces up by their
    // place in the text, without making a string of each (a third of a large plan's estimate).
    const n = text.length;
    for (let start = 0; start < n;) {
      // Most pieces are a word, after a space or not: cut and hashed here in one pass (the same
      // cut as asciiPieceEnd's first alternative, the same hash as hashOf); the rest go the long way.
      let h = FNV_OFFSET;
      let end = start;
      if (text.charCodeAt(end) === 0x20) h = Math.imul(h ^ text.charCodeAt(end++), FNV_PRIME);
      for (; end < n && isUpper(text.charCodeAt(end)); end++) h = Math.imul(h ^ text.charCodeAt(end), FNV_PRIME);
      const upper = end;
      for (; end < n && isLower(text.charCodeAt(end)); end++) h = Math.imul(h ^ text.charCodeAt(end), FNV_PRIME);
      if (end > upper && (end === n || text.charCodeAt(end) !== 0x27)) {
        tokens += encoding.seen.count(encoding, text, start, end, h >>> 0);
      } else {
        end = asciiPieceEnd(text, start);
        tokens += encoding.seen.count(encoding, text, start, end, hashOf(text, start, end));
      }
      start = end;
    }
    return tokens;
  }
  encoding.split.lastIndex = 0;
  for (const match of text.matchAll(encoding.split))
    tokens += encoding.seen.count(encoding, match[0], 0, match[0].length, hashOf(match[0], 0, match[0].length));
  return tokens;
}

/**
 * Tokens of texts made of units joined by a separator that ends in a line break ("\n\n" between
 * a prompt's sections and blocks, see src/prompt/render.ts), with the counts of the units many
 * texts share remembered: a prompt's context, a dependency's block, is counted once however many
 * prompts hold it. Units of one text only are counted together, as one text: remembering them
 * would cost more than it saves.
 *
 * A text can be counted in parts cut before a unit, after the separator's line break, when the unit
 * begins with neither white space nor `/`: the pre-tokenizer always cuts there, because no piece
 * goes on from a line break to such a character (only white space and, after symbols, more line
 * breaks and `/` follow one in a piece), and what comes before and after is cut the same in either
 * part alone. Before a unit that does not begin so, the text is not cut.
 */
export class JoinedTokens {
  /** Counts of a unit followed by the separator, and of a unit that ends the text. */
  private readonly followed = new Map<string, number>();
  private readonly ending = new Map<string, number>();
  /** Characters of the units remembered: past the bound, counts are made but no more are remembered. */
  private chars = 0;

  constructor(
    private readonly separator: string,
    private readonly bound = 1 << 22,
  ) {
    if (!/[\r\n]$/.test(separator)) throw new Error("JoinedTokens: the separator must end with a line break");
  }

  /**
   * Tokens of `units.slice(0, n).join(separator)` for `model` (an o200k model's after
   * loadTokenizer); the units from `shared[0]` up to `shared[1]` are those other texts hold too.
   */
  count(units: readonly string[], n: number, model: string | null, shared: readonly [number, number] = [0, 0]): { tokens: number; method: TokenMethod } {
    const method = tokenMethod(model);
    if (method === "approximate") {
      let length = n > 0 ? (n - 1) * this.separator.length : 0;
      for (let i = 0; i < n; i++) length += units[i]!.length;
      return { tokens: Math.ceil(length / CHARS_PER_TOKEN), method };
    }
    const [first, end] = shared;
    let tokens = 0;
    // The units from `from` on, not counted yet: cut before a shared unit and after one.
    let from = 0;
    for (let i = 1; i <= n; i++) {
      if (i < n && !(first < end && i >= first && i <= end && BEGINS_PIECE.test(units[i]!))) continue;
      const followed = i < n;
      if (i - from === 1 && from >= first && from < end) tokens += this.unit(units[from]!, followed);
      else tokens += countO200k(this.joined(units, from, i, followed));
      from = i;
    }
    return { tokens, method };
  }

  /** units[from, to) joined, with the separator after them when `followed`. */
  private joined(units: readonly string[], from: number, to: number, followed: boolean): string {
    let text = units[from]!;
    for (let i = from + 1; i < to; i++) text += this.separator + units[i]!;
    return followed ? text + this.separator : text;
  }

  private unit(unit: string, followed: boolean): number {
    const known = followed ? this.followed : this.ending;
    let tokens = known.get(unit);
    if (tokens === undefined) {
      tokens = countO200k(followed ? unit + this.separator : unit);
      if (this.chars < this.bound) {
        known.set(unit, tokens);
        this.chars += unit.length;
      }
    }
    return tokens;
  }
}

/** A unit whose first character is neither white space nor `/`: the pre-tokenizer cuts before it, after a line break. */
const BEGINS_PIECE = /^[^\s/]/;

/** Any character outside ASCII (surrogates included: they are above U+007F). */
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * Where the o200k_base piece starting at `start` ends, for ASCII text: the same cut as the
 * encoding's regular expression (test/estimate/tokens.test.ts holds the two together), whose
 * alternatives, in the order they are tried, come down in ASCII to:
 * 1. an optional character that is not a line break, letter or digit, then upper-case letters,
 *    then lower-case ones (at least one of either), then an optional contraction ('s, 're, ...);
 * 2. one to three digits;
 * 3. an optional space, then characters that are not space, letter or digit, then any \r, \n, /;
 * 4. spaces up to and including the last line break among them;
 * 5. spaces, but the last one when a word follows (it starts the next piece), or all at the end;
 *    a single space before a word is a piece of its own.
 */
function asciiPieceEnd(text: string, start: number): number {
  const n = text.length;
  const c = text.charCodeAt(start);
  // 1: with the optional first character, then without it (which only a letter can start).
  const from = isLetter(c) ? start : prefixable(c) ? start + 1 : -1;
  if (from >= 0) {
    let k = from;
    while (k < n && isUpper(text.charCodeAt(k))) k++;
    let m = k;
    while (m < n && isLower(text.charCodeAt(m))) m++;
    if (m > from) return contractionEnd(text, m);
  }
  // 2
  if (isDigit(c)) {
    let k = start + 1;
    while (k < n && k < start + 3 && isDigit(text.charCodeAt(k))) k++;
    return k;
  }
  // 3
  const symbols = c === 0x20 && start + 1 < n && isSymbol(text.charCodeAt(start + 1)) ? start + 1 : start;
  if (isSymbol(text.charCodeAt(symbols))) {
    let k = symbols + 1;
    while (k < n && isSymbol(text.charCodeAt(k))) k++;
    while (k < n && (text.charCodeAt(k) === 0x0a || text.charCodeAt(k) === 0x0d || text.charCodeAt(k) === 0x2f)) k++;
    return k;
  }
  // 4, 5: c is a space of some kind.
  let end = start + 1;
  while (end < n && isSpace(text.charCodeAt(end))) end++;
  for (let k = end - 1; k >= start; k--) {
    const d = text.charCodeAt(k);
    if (d === 0x0a || d === 0x0d) return k + 1;
  }
  return end === n || end - start === 1 ? end : end - 1;
}

/** After a word: the end of a contraction ('s, 't, 'm, 'd, 're, 've, 'll in any case) that follows, else `at`. */
function contractionEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== 0x27) return at;
  const a = text.charCodeAt(at + 1) | 0x20;
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return at + 2;
  const b = text.charCodeAt(at + 2) | 0x20;
  if ((a === 0x72 && b === 0x65) || (a === 0x76 && b === 0x65) || (a === 0x6c && b === 0x6c)) return at + 3;
  return at;
}

const isUpper = (c: number) => c >= 0x41 && c <= 0x5a;
const isLower = (c: number) => c >= 0x61 && c <= 0x7a;
const isLetter = (c: number) => isUpper(c) || isLower(c);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** `\s` in ASCII: tab, line feed, vertical tab, form feed, carriage return, space. */
const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
/** Neither space, letter nor digit: punctuation, symbols, control characters. */
const isSymbol = (c: number) => !isSpace(c) && !isLetter(c) && !isDigit(c);
/** What may come before a word in the same piece: anything but a line break, letter or digit. */
const prefixable = (c: number) => c !== 0x0a && c !== 0x0d && !isLetter(c) && !isDigit(c);

/**
 * Counts of pieces already merged, looked up by the piece's place in a text: an open-addressing
 * table of the pieces' strings and counts, keyed by a hash of their characters. Bounded: a
 * long-lived process that fills it starts it again.
 */
class PieceCounts {
  private size = 0;
  private pieces: (string | undefined)[] = new Array<string | undefined>(PIECE_SLOTS);
  private readonly counts = new Int32Array(PIECE_SLOTS);

  /** Tokens of text[start, end), whose hashOf is `hash`, merged on first sight. */
  count(encoding: Encoding, text: string, start: number, end: number, hash: number): number {
    const length = end - start;
    let slot = hash & (PIECE_SLOTS - 1);
    for (;;) {
      const piece = this.pieces[slot];
      if (piece === undefined) break;
      if (piece.length === length && text.startsWith(piece, start)) return this.counts[slot]!;
      slot = (slot + 1) & (PIECE_SLOTS - 1);
    }
    const piece = text.slice(start, end);
    const count = mergeCount(encoding, Buffer.from(piece, "utf8").toString("latin1"));
    if (this.size >= PIECE_SLOTS / 2) {
      this.pieces = new Array<string | undefined>(PIECE_SLOTS);
      this.size = 0;
      return count;
    }
    this.pieces[slot] = piece;
    this.counts[slot] = count;
    this.size++;
    return count;
  }
}

const PIECE_SLOTS = 1 << 18;

/** FNV-1a's start and multiplier, as hashOf (./rankTable.ts) uses them. */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

interface Encoding {
  /** The encoding's pre-tokenizer: text is cut into pieces that merge independently. */
  split: RegExp;
  ranks: RankTable;
  seen: PieceCounts;
}

let o200k: Encoding | undefined;

/**
 * Byte-pair merge of one piece (bytes as a binary string), returning how many tokens it makes: the
 * adjacent two parts whose concatenation has the lowest rank merge first, the leftmost on a tie,
 * until no adjacent two form a token. The candidates are kept in a binary heap keyed by (rank,
 * start), so each merge costs a logarithm instead of a rescan; every byte is a token of its own, so
 * the parts left are the tokens.
 */
function mergeCount(encoding: Encoding, bytes: string): number {
  const n = bytes.length;
  const { ranks } = encoding;
  const { longest } = ranks;
  if (n <= 1) return n;
  if (ranks.rank(bytes, 0, n) !== undefined) return 1;
  // Parts are identified by their start; next[start] is the start of the following part (n at the end).
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const alive = new Uint8Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  const heap = new MergeHeap();
  const offer = (start: number): void => {
    const mid = next[start]!;
    if (mid >= n) return;
    const end = next[mid]!;
    if (end - start > longest) return;
    const rank = ranks.rank(bytes, start, end);
    if (rank !== undefined) heap.push(rank, start, end);
  };
  for (let i = 0; i < n - 1; i++) offer(i);
  let parts = n;
  while (heap.size > 0) {
    const [start, end] = heap.pop();
    const mid = next[start]!;
    // Stale: the left part is gone, or either part has changed since this candidate was offered.
    if (!alive[start] || mid >= n || next[mid] !== end) continue;
    alive[mid] = 0;
    next[start] = end;
    if (end < n) prev[end] = start;
    parts--;
    if (prev[start]! >= 0) offer(prev[start]!);
    offer(start);
  }
  return parts;
}

/** A binary min-heap of (rank, start, end), ordered by rank, then start. */
class MergeHeap {
  private keys: number[] = [];
  private ends: number[] = [];
  get size(): number {
    return this.keys.length;
  }
  push(rank: number, start: number, end: number): void {
    const key = rank * 2 ** 32 + start;
    const { keys, ends } = this;
    let i = keys.length;
    keys.push(key);
    ends.push(end);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent]! <= key) break;
      keys[i] = keys[parent]!;
      ends[i] = ends[parent]!;
      i = parent;
    }
    keys[i] = key;
    ends[i] = end;
  }
  /** [start, end] of the lowest candidate, removed. */
  pop(): [number, number] {
    const { keys, ends } = this;
    const top: [number, number] = [keys[0]! % 2 ** 32, ends[0]!];
    const lastKey = keys.pop()!;
    const lastEnd = ends.pop()!;
    const size = keys.length;
    if (size > 0) {
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && keys[child + 1]! < keys[child]!) child++;
        if (keys[child]! >= lastKey) break;
        keys[i] = keys[child]!;
        ends[i] = ends[child]!;
        i = child;
      }
      keys[i] = lastKey;
      ends[i] = lastEnd;
    }
    return top;
  }
}
