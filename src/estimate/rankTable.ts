/**
 * The o200k_base table in the form pairflow counts with: every token's bytes, its rank, and an
 * open-addressing hash table over them, laid out as one block of bytes.
 *
 * `encodeRankTable` makes the block from the ranks js-tiktoken ships (base64 tokens on lines of a
 * label, the rank of the line's first token, then tokens of consecutive ranks). The build writes it
 * to `dist/o200k_base.bin`, so the bundled CLI and action only read it and make views over it: no
 * 2.3 MB module to compile and no table to build in every process that estimates. Run from the
 * sources, the same block is made in memory instead (`loadTokenizer`), and decoded the same way.
 *
 * Layout, 32-bit integers little-endian:
 *   "PFT1" | count | slot count | longest token (bytes) | text length | pattern length
 *   | slots: int32[slot count], each an entry + 1 (0 is empty)
 *   | starts: int32[count] | ranks: int32[count] | lengths: uint8[count]
 *   | text: the tokens' bytes, one after another | pattern: the pre-tokenizer's regular expression, UTF-8
 */

const MAGIC = 0x31544650; // "PFT1" read little-endian
const HEADER_BYTES = 24;

export interface RankTableSource {
  /** The pre-tokenizer's regular expression. */
  pat_str: string;
  bpe_ranks: string;
}

export function encodeRankTable(source: RankTableSource): Uint8Array {
  const tokens: Buffer[] = [];
  const ranks: number[] = [];
  for (const line of source.bpe_ranks.split("\n")) {
    const fields = line.split(" ");
    if (fields.length < 3) continue;
    let rank = Number.parseInt(fields[1]!, 10);
    for (const token of fields.slice(2)) {
      if (token === "") continue;
      const bytes = Buffer.from(token, "base64");
      if (bytes.length === 0 || bytes.length > 255) throw new Error(`o200k_base: a token of ${bytes.length} bytes does not fit the table`);
      tokens.push(bytes);
      ranks.push(rank++);
    }
  }
  const count = tokens.length;
  let slotCount = 1;
  while (slotCount < count * 2) slotCount *= 2;
  const text = Buffer.concat(tokens);
  const pattern = Buffer.from(source.pat_str, "utf8");
  const layout = layoutOf(count, slotCount, text.length);
  const block = Buffer.alloc(layout.patternAt + pattern.length);
  const header = new DataView(block.buffer, block.byteOffset, HEADER_BYTES);
  header.setUint32(0, MAGIC, true);
  header.setUint32(4, count, true);
  header.setUint32(8, slotCount, true);
  header.setUint32(
    12,
    tokens.reduce((longest, t) => Math.max(longest, t.length), 0),
    true,
  );
  header.setUint32(16, text.length, true);
  header.setUint32(20, pattern.length, true);
  const slots = new Int32Array(slotCount);
  let at = 0;
  tokens.forEach((token, entry) => {
    block.writeInt32LE(at, layout.startsAt + entry * 4);
    block.writeInt32LE(ranks[entry]!, layout.ranksAt + entry * 4);
    block[layout.lengthsAt + entry] = token.length;
    let slot = hashBytes(token) & (slotCount - 1);
    while (slots[slot] !== 0) slot = (slot + 1) & (slotCount - 1);
    slots[slot] = entry + 1;
    at += token.length;
  });
  slots.forEach((value, i) => block.writeInt32LE(value, HEADER_BYTES + i * 4));
  text.copy(block, layout.textAt);
  pattern.copy(block, layout.patternAt);
  return block;
}

/** Where each part of a block starts. */
function layoutOf(count: number, slotCount: number, textLength: number) {
  const startsAt = HEADER_BYTES + slotCount * 4;
  const ranksAt = startsAt + count * 4;
  const lengthsAt = ranksAt + count * 4;
  const textAt = lengthsAt + count;
  return { startsAt, ranksAt, lengthsAt, textAt, patternAt: textAt + textLength };
}

/**
 * Token to rank, tokens given by their bytes as a binary string (one character per byte, as
 * `Buffer#toString("latin1")` makes them). Views over a block that `encodeRankTable` made.
 */
export class RankTable {
  private constructor(
    private readonly slots: Int32Array,
    private readonly starts: Int32Array,
    private readonly ranks: Int32Array,
    private readonly lengths: Uint8Array,
    /** Every token's bytes, as a binary string. */
    private readonly text: string,
    /** Length in bytes of the longest token: no merge can make a longer one. */
    readonly longest: number,
    /** The pre-tokenizer's regular expression. */
    readonly pattern: string,
  ) {}

  /** The table in a block, or undefined when the block is not one `encodeRankTable` made. */
  static decode(bytes: Uint8Array): RankTable | undefined {
    if (bytes.length < HEADER_BYTES) return undefined;
    const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
    if (header.getUint32(0, true) !== MAGIC) return undefined;
    const [count, slotCount, longest, textLength, patternLength] = [4, 8, 12, 16, 20].map((at) => header.getUint32(at, true)) as [
      number,
      number,
      number,
      number,
      number,
    ];
    if (slotCount === 0 || (slotCount & (slotCount - 1)) !== 0 || slotCount < count) return undefined;
    const layout = layoutOf(count, slotCount, textLength);
    if (bytes.length !== layout.patternAt + patternLength) return undefined;
    // Typed arrays need aligned, little-endian integers: copy the block once where it has neither.
    let block = bytes;
    if (block.byteOffset % 4 !== 0 || !LITTLE_ENDIAN) {
      block = new Uint8Array(bytes.length);
      block.set(bytes);
      if (!LITTLE_ENDIAN) Buffer.from(block.buffer, HEADER_BYTES, layout.lengthsAt - HEADER_BYTES).swap32();
    }
    const int32s = (at: number, length: number) => new Int32Array(block.buffer, block.byteOffset + at, length);
    const buffer = Buffer.from(block.buffer, block.byteOffset, block.length);
    const [slots, starts, lengths] = [int32s(HEADER_BYTES, slotCount), int32s(layout.startsAt, count), block.subarray(layout.lengthsAt, layout.textAt)];
    // A damaged block must not send a lookup out of the table, or round it for ever.
    let used = 0;
    // Indexed, not iterated: this runs once per process, before it is compiled, over a million slots.
    for (let i = 0; i < slotCount; i++) {
      const entry = slots[i]!;
      if (entry !== 0 && (entry < 0 || entry > count || ++used > count)) return undefined;
    }
    if (used !== count || slotCount < 2 * count) return undefined;
    for (let e = 0; e < count; e++) if (starts[e]! < 0 || starts[e]! + lengths[e]! > textLength) return undefined;
    return new RankTable(
      slots,
      starts,
      int32s(layout.ranksAt, count),
      lengths,
      buffer.toString("latin1", layout.textAt, layout.patternAt),
      longest,
      buffer.toString("utf8", layout.patternAt, layout.patternAt + patternLength),
    );
  }

  /** The rank of the token whose bytes are bytes[start, end), or undefined. */
  rank(bytes: string, start: number, end: number): number | undefined {
    const { text, starts, lengths, slots } = this;
    const mask = slots.length - 1;
    const length = end - start;
    let slot = hashOf(bytes, start, end) & mask;
    for (;;) {
      const entry = slots[slot]!;
      if (entry === 0) return undefined;
      const e = entry - 1;
      if (lengths[e] === length && sameChars(text, starts[e]!, bytes, start, length)) return this.ranks[e];
      slot = (slot + 1) & mask;
    }
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function sameChars(a: string, aAt: number, b: string, bAt: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a.charCodeAt(aAt + i) !== b.charCodeAt(bAt + i)) return false;
  return true;
}

/** FNV-1a over the characters of text[start, end). */
export function hashOf(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** FNV-1a over bytes: hashOf of their binary string. */
function hashBytes(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193);
  return h >>> 0;
}
