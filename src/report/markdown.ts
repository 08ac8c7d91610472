/** Small pieces of Markdown every report shares: text shown as written, inline code, sizes. */
import { nameFor } from "./names.js";

/** Text on one line with Markdown's special characters escaped, so details such as file names show as written (names.ts). */
export function md(text: string): string {
  return nameFor(text, "markdown");
}

/** Inline code that survives any content, including backticks and new lines (names.ts). */
export function code(text: string): string {
  return nameFor(text, "code");
}

export function longestRun(lines: string[], ch: string): number {
  let best = 0;
  for (const line of lines) {
    let run = 0;
    for (const c of line) {
      run = c === ch ? run + 1 : 0;
      if (run > best) best = run;
    }
  }
  return best;
}

/** Shown as written: GitHub would otherwise take `<tag>` in a pair's feedback for HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Size as GitHub may count it, erring high: UTF-8 bytes are never fewer than characters. */
export function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
