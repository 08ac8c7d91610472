/**
 * File names are bytes; pairflow's paths are text. A name that is valid UTF-8 is its text. A name
 * that is not keeps every byte: each byte that is no part of a valid UTF-8 sequence becomes the
 * lone surrogate U+DC80 + (byte - 0x80), as Python's `surrogateescape` does. Valid UTF-8 never
 * decodes to a lone surrogate, so the text names exactly one byte string and turns back into it
 * (nameBytes); in the lock file and in references, canonical JSON writes it as `\udce9`.
 *
 * Node's file system calls encode a text path as UTF-8, which turns a lone surrogate into U+FFFD
 * (another file): such a path is handed to them as its bytes (src/workspace/glob.ts, fsPath).
 */
const LOW = 0xdc80;
/** Decodes valid UTF-8 only, a leading byte-order mark kept: it is part of the name. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The text of a file name's bytes (see above). */
export function nameText(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    // not UTF-8: byte by byte below
  }
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const n = validSequence(bytes, i);
    if (n === 0) {
      out += String.fromCharCode(LOW + bytes[i]! - 0x80);
      i++;
    } else {
      out += Buffer.from(bytes.subarray(i, i + n)).toString("utf8");
      i += n;
    }
  }
  return out;
}

/** The bytes a name's text stands for: the inverse of nameText. */
export function nameBytes(text: string): Buffer {
  if (!ESCAPED_BYTE.test(text)) return Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  let start = 0;
  for (const match of text.matchAll(new RegExp(ESCAPED_BYTE, "g"))) {
    parts.push(Buffer.from(text.slice(start, match.index), "utf8"), Buffer.of(match[0].charCodeAt(0) - LOW + 0x80));
    start = match.index + 1;
  }
  parts.push(Buffer.from(text.slice(start), "utf8"));
  return Buffer.concat(parts);
}

/** A low surrogate that no high one precedes, in U+DC80..U+DCFF: a byte nameText kept. */
const ESCAPED_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

/** Whether a name's text stands for valid UTF-8 (it holds no byte nameText kept). */
export function isUtf8Name(text: string): boolean {
  return !ESCAPED_BYTE.test(text);
}

/** A name for a message: each byte that is not UTF-8 written `\xE9`. */
export function shownName(text: string): string {
  return text.replace(new RegExp(ESCAPED_BYTE, "g"), (c) => `\\x${(c.charCodeAt(0) - LOW + 0x80).toString(16).toUpperCase()}`);
}

/** The length of the valid UTF-8 sequence at bytes[i] (1 to 4), or 0 when none starts there. */
function validSequence(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  if (b < 0x80) return 1;
  const [n, min, max] =
    b >= 0xc2 && b <= 0xdf
      ? [2, 0x80, 0xbf]
      : b === 0xe0
        ? [3, 0xa0, 0xbf]
        : b === 0xed
          ? [3, 0x80, 0x9f]
          : b >= 0xe1 && b <= 0xef
            ? [3, 0x80, 0xbf]
            : b === 0xf0
              ? [4, 0x90, 0xbf]
              : b >= 0xf1 && b <= 0xf3
                ? [4, 0x80, 0xbf]
                : b === 0xf4
                  ? [4, 0x80, 0x8f]
                  : [0, 0, 0];
  if (n === 0 || i + n > bytes.length) return 0;
  // The second byte's range rules out overlong forms, surrogates and code points above U+10FFFF.
  if (bytes[i + 1]! < min || bytes[i + 1]! > max) return 0;
  for (let k = 2; k < n; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return 0;
  return n;
}
