import { sha256Hex } from "./hash.js";

/**
 * A pair id as a file or key name: ordinary ids as they are; an instance id (`translate[docs/a.md]`)
 * with every character outside letters, digits, "_", "." and "-" percent-encoded, so that it makes
 * one path segment and no commas. Reversible with decodeURIComponent while it is at most
 * KEY_BYTES long; a longer one (a file name of 240 bytes makes one of 255 and more, which no file
 * system takes) is boundedKey's readable start and a hash of the whole id. Whatever is stored
 * under a key names its whole id, and is checked against it when read.
 */
export function pairKey(id: string): string {
  const key = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(id) ? id : id.replace(/[^A-Za-z0-9_.-]/gu, (c) => encodeURIComponent(c).replace(/[!'()*]/g, escapeChar));
  return boundedKey(key, id);
}

/** The longest key kept whole, in bytes (ASCII): well under the 255 a file name may have. */
export const KEY_BYTES = 150;

/**
 * `key` when it is at most KEY_BYTES long; else its first 80 characters (cut before a
 * percent-escape it would split) and "~" (which no encoded key holds) and the sha256 of `whole`:
 * 145 characters, readable, and distinct for every id.
 */
export function boundedKey(key: string, whole: string): string {
  if (key.length <= KEY_BYTES) return key;
  let start = key.slice(0, 80);
  const escape = start.lastIndexOf("%");
  if (escape > start.length - 3) start = start.slice(0, escape);
  return `${start}~${sha256Hex(whole)}`;
}

/** Whether a key is boundedKey's shortened form: its id cannot be read back from it. */
export function isHashedKey(key: string): boolean {
  return key.includes("~");
}

function escapeChar(c: string): string {
  return "%" + c.charCodeAt(0).toString(16).toUpperCase();
}
