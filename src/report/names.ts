/**
 * Names are data everywhere. A pair id, a file or input name, a piece id, a lock-file path or a
 * reason naming one comes from the repository, and so from whoever wrote the pull request: it is
 * shown as written and never acts in the medium it is shown in. `nameFor` renders one for each:
 *
 * - `terminal` (and the job log): one line, every control, bidi and format character and every
 *   new line made visible (report/visible.ts), so no escape sequence reaches the terminal.
 * - `markdown`: inline text. As `terminal`, then Markdown's metacharacters escaped (no emphasis,
 *   link, table cell, heading, HTML or `<!--`; an `_` inside a word, which never emphasises, kept), and a zero-width joiner after an `@` or `#` and
 *   in `://` and `www.`, so no one is mentioned, no issue is linked and no address made a link. As it has no new line, it never starts a
 *   heading or a list item.
 * - `code`: inline code (which GitHub neither mentions nor links in), its fence longer than any
 *   run of backticks in the name. `cell` is the same inside a table row, its `|` escaped.
 * - `html`: text inside an HTML element of a Markdown page (`<summary>`, `<code>`).
 * - `mermaid`: text inside a quoted Mermaid label.
 */
import { visibleName } from "./visible.js";

export type Medium = "terminal" | "markdown" | "code" | "cell" | "html" | "mermaid";

const ENTITY: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };
/** Mermaid's own entity codes: `#` starts one. */
const MERMAID: Record<string, string> = { "#": "#35;", "&": "#amp;", "<": "#lt;", ">": "#gt;", '"': "#quot;", "`": "#96;" };

/** A zero-width joiner: after `@` or `#`, GitHub sees no mention and no issue reference. */
const JOIN = "\u200d";

export function nameFor(name: string, medium: Medium): string {
  const line = visibleName(name);
  switch (medium) {
    case "terminal":
      return line;
    case "markdown":
      return line
        .replace(/[&<>]/g, (c) => ENTITY[c]!)
        .replace(/[\\`*[\]|~#$!]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, "\\$&")
        .replace(/[@#]|:(?=\/\/)|\bwww(?=\.)/gi, `$&${JOIN}`);
    case "code":
      return inlineCode(line);
    case "cell":
      // A table row is cut at every `|` after an even run of backslashes, code spans included: the
      // run before a pipe is doubled and the pipe escaped, so the cell ends only where it ends (a
      // backslash the name has before a pipe is then shown twice; no cell can show it once).
      return inlineCode(line).replace(/(\\*)\|/g, "$1$1\\|");
    case "html":
      return line.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/@/g, `&#64;${JOIN}`);
    case "mermaid":
      return line.replace(/[#&<>"`]/g, (c) => MERMAID[c]!);
  }
}

/** Inline code that survives any content, including backticks. */
function inlineCode(text: string): string {
  const ticks = "`".repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = text.startsWith("`") || text.endsWith("`") || /^ .* $/.test(text) ? " " : "";
  return `${ticks}${pad}${text}${pad}${ticks}`;
}
