/**
 * Text as a terminal or a log shows it when pairflow did not write it: what a generator or guard
 * printed (feedback, stderr, a failure's note) and names that come from the repository (pair ids
 * made from file names, input names, piece ids, lock-file paths). Every character that a terminal
 * would act on or that shows as nothing is made visible: control characters as `\xNN` (ESC as the
 * four characters `\x1b`, a carriage return as `\x0d`, C1 controls and DEL too) and Unicode format
 * characters (the bidi controls U+202A-U+202E and U+2066-U+2069, zero-width characters, the byte
 * order mark), line and paragraph separators and lone surrogates as `\uXXXX` (but one that stands
 * for a byte of a file name that is not UTF-8, model/fileName.ts, as that byte: `\xE9`). So none is
 * interpreted: no changed window title or clipboard, no cleared line hiding a rejection, no
 * colour, no text reordered to read otherwise than it runs. What is stored (feedback in records)
 * stays as it was; only what is shown is escaped, and pairflow's own colours are put around text
 * already escaped.
 */
import { isUtf8Name, shownName } from "../model/fileName.js";

/** What a command printed, lines and tabs kept: every other hidden character made visible. */
export function visible(text: string): string {
  return text.replace(HIDDEN_IN_TEXT, escape);
}

/**
 * A name (an id, a file or input name, a piece id, a path, a reason naming them) on one line:
 * as `visible`, and a new line or tab in it made visible too (`\x0a`), so a name never starts a
 * line of its own. report/names.ts renders it for each medium.
 */
export function visibleName(text: string): string {
  return text.replace(HIDDEN_IN_NAME, escape);
}

// eslint-disable-next-line no-control-regex -- the control characters are what is matched
const HIDDEN_IN_TEXT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
// eslint-disable-next-line no-control-regex -- the control characters are what is matched
const HIDDEN_IN_NAME = /[\x00-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

function escape(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
  // A byte of a file name that is not UTF-8, as pairflow holds it (model/fileName.ts): that byte.
  if (!isUtf8Name(ch)) return shownName(ch);
  const hex = code.toString(16).padStart(4, "0");
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex}`;
}
