/** Text on a terminal: each line cut to its width, so none wraps (a wrapped line doubles the rows a report takes). */

// eslint-disable-next-line no-control-regex -- the escape that starts a colour is what is matched
const SGR = /\x1b\[[0-9;]*m/g;

/**
 * The text cut to `width` characters (code points), the last one then `…`, its colours (SGR
 * sequences, which take no room) kept and reset when cut. What pairflow prints of data holds no
 * other escape (report/visible.ts).
 */
export function cut(text: string, width: number): string {
  if ([...text.replace(SGR, "")].length <= width) return text;
  let out = "";
  let shown = 0;
  let from = 0;
  for (const sgr of [...text.matchAll(SGR), null]) {
    const end = sgr === null ? text.length : sgr.index;
    for (const ch of text.slice(from, end)) {
      if (shown === width - 1) return `${out}…${out.includes("\x1b[") ? "\x1b[0m" : ""}`;
      out += ch;
      shown++;
    }
    if (sgr === null) break;
    out += sgr[0];
    from = end + sgr[0].length;
  }
  return out;
}

/** Each line of `text` cut to `columns` less one (the last column left free, so no terminal wraps); the whole text without `columns`. */
export function fitLines(text: string, columns: number | undefined): string {
  if (columns === undefined || columns < 2) return text;
  return text
    .split("\n")
    .map((line) => cut(line, columns - 1))
    .join("\n");
}
