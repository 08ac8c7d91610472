/** Text on a terminal: each line cut to its width, so none wraps (a wrapped line doubles the rows a report takes). */
import { eastAsianWidth } from "get-east-asian-width";

// eslint-disable-next-line no-control-regex -- the escape that starts a colour is what is matched
const SGR = /\x1b\[[0-9;]*m/g;
const PLAIN_ASCII = /^[\x20-\x7e]*$/;
/** What takes no column: marks that go on the character before, format characters (a zero-width joiner), variation selectors, controls. */
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]$/u;
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;
const EMOJI_PRESENTATION = /^\p{Emoji_Presentation}$/u;
const EMOJI_STYLE = "\ufe0f";

/**
 * The columns a code point takes on a terminal, given whether it comes before every character
 * that shows (`alone`) and the code point after it: East Asian wide and full-width characters and
 * emoji take two, marks and format characters (a zero-width joiner) none, unless alone: with
 * nothing to go on, each takes a column of its own. Where terminals disagree it errs wide, as a
 * line cut a column early never wraps: each pictograph of a joined sequence (a family) counts,
 * which some terminals show as one, and so does a pictograph asked to look like an emoji.
 */
function columnsOf(ch: string, alone: boolean, after: string | undefined): number {
  if (ZERO.test(ch)) return alone ? 1 : 0;
  if (PICTOGRAPH.test(ch) && (EMOJI_PRESENTATION.test(ch) || after === EMOJI_STYLE)) return 2;
  return eastAsianWidth(ch.codePointAt(0)!, { ambiguousAsWide: false });
}

/** The columns text takes on a terminal, its colours (SGR sequences) taking none. */
export function columns(text: string): number {
  const plain = text.includes("\x1b") ? text.replace(SGR, "") : text;
  if (PLAIN_ASCII.test(plain)) return plain.length;
  const chars = [...plain];
  let total = 0;
  let shown = false;
  for (let i = 0; i < chars.length; i++) {
    total += columnsOf(chars[i]!, !shown, chars[i + 1]);
    shown ||= !ZERO.test(chars[i]!);
  }
  return total;
}

/** Text padded with spaces to `width` columns (String.padEnd counts UTF-16 units, not columns). */
export function padColumns(text: string, width: number): string {
  const taken = columns(text);
  return taken >= width ? text : text + " ".repeat(width - taken);
}

/**
 * The text cut to `width` columns, the last one then `…`, its colours (SGR sequences, which take
 * no room) kept and reset when cut. What pairflow prints of data holds no other escape
 * (report/visible.ts).
 */
export function cut(text: string, width: number): string {
  if (columns(text) <= width) return text;
  let out = "";
  let shown = 0;
  let glyph = false;
  let from = 0;
  for (const sgr of [...text.matchAll(SGR), null]) {
    const end = sgr === null ? text.length : sgr.index;
    const chars = [...text.slice(from, end)];
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i]!;
      const taken = columnsOf(ch, !glyph, chars[i + 1]);
      // Room is kept for the `…`.
      if (shown + taken > width - 1) return `${out}…${out.includes("\x1b[") ? "\x1b[0m" : ""}`;
      out += ch;
      shown += taken;
      glyph ||= !ZERO.test(ch);
    }
    if (sgr === null) break;
    out += sgr[0];
    from = end + sgr[0].length;
  }
  return out;
}

/** Each line of `text` cut to `columns` less one (the last column left free, so no terminal wraps); the whole text without `columns`. */
export function fitLines(text: string, width: number | undefined): string {
  if (width === undefined || width < 2) return text;
  return text
    .split("\n")
    .map((line) => cut(line, width - 1))
    .join("\n");
}
