/**
 * A failure in one line, for every place that has room for one: the job summary's headline of a
 * failed pair, its annotation, the CLI's `failed` line and the log's group title. A guard's
 * feedback is often a test runner's output, kept by its tail: its first line is whatever the cut
 * left (`[earlier output omitted]`), and the line that says why is somewhere in the middle. So the
 * headline quotes the lines that look like an error (or, with none, the first line), then the last
 * line, with what lies between elided and counted.
 */
import { visible } from "./visible.js";

/** What a command guard puts before the tail it kept (src/guards/command.ts). */
const OMITTED = "[earlier output omitted]";

/** Lines that say what went wrong, in most languages' test runners and tracebacks. */
const STRONG = /(error|errors|exception)\b|\b(assert\w*|expected|panic(ked)?|fatal|undefined|cannot|can't|unexpected|missing|invalid)\b/i;
/** Lines that only say that something went wrong. */
const WEAK = /\b(fail(ed|s|ure|ing)?|not ok|refused|rejected|denied)\b|[×✖✗❌]/i;

/** At most this many lines that look like an error are quoted. */
const MAX_ERROR_LINES = 2;
/** Each quoted line is cut to this many characters. */
const MAX_QUOTED = 120;

/**
 * `rejected after 2 attempts: → expected [ 1, 2 ] to deeply equal [ 2, 1 ] … 12 lines … Tests 1
 * failed | 18 passed (19)`: the note's lead (the text before its first colon on its first line,
 * when what follows is the output), then the quoted lines. At most `max` characters, made visible
 * (control characters shown as `\xNN`). With `last: false`, the last line is left out unless it says
 * why: where each failure is one line of many (a terminal's, a log's), the runner's count that ends
 * every one says nothing.
 */
export function failureHeadline(note: string | null, max = 240, options: { last?: boolean } = {}): string {
  const text = visible((note ?? "").replace(/\r\n?/g, "\n"));
  const [first = "", ...rest] = text.split("\n");
  // "rejected after 2 attempts: <first line of the feedback>": the lead, and the feedback's lines.
  const m = /^([^:]{1,80}?:)\s*(.*)$/.exec(first);
  const lead = m && rest.length > 0 ? m[1]! : "";
  const lines = [m && rest.length > 0 ? m[2]! : first, ...rest]
    .map((l) => l.replace(OMITTED, "").replace(/\s+/g, " ").trim())
    .filter((l) => l !== "" && !/^[-=_⎯─━*#~ ]+$/.test(l));
  if (lines.length === 0) return clip(lead.replace(/:$/, "") || "failed", max);

  const picked = errorLines(lines);
  if (picked.length === 0) picked.push(0);
  const last = lines.length - 1;
  if (options.last !== false && !picked.includes(last)) picked.push(last);

  let out = lead ? `${lead} ` : "";
  let previous = -1;
  for (const i of picked) {
    const gap = i - previous - 1;
    if (previous >= 0) out += gap === 0 ? " / " : ` … ${gap === 1 ? "1 line" : `${gap} lines`} … `;
    else if (gap > 0) out += "… ";
    out += clip(lines[i]!, MAX_QUOTED);
    previous = i;
  }
  return clip(out, max);
}

/**
 * Indices of the first lines that say what went wrong, without repeating one; only when none does,
 * the first lines that say that something failed.
 */
function errorLines(lines: string[]): number[] {
  const picked: number[] = [];
  const core = (l: string) => l.replace(/^[^\p{L}\p{N}]+/u, "").toLowerCase();
  const add = (pattern: RegExp) => {
    for (const [i, line] of lines.entries()) {
      if (picked.length >= MAX_ERROR_LINES) return;
      if (picked.includes(i) || !pattern.test(line)) continue;
      // The same message twice (`→ expected x`, then `AssertionError: expected x`) says nothing new.
      const c = core(line);
      if (picked.some((j) => core(lines[j]!).includes(c) || c.includes(core(lines[j]!)))) continue;
      picked.push(i);
    }
  };
  add(STRONG);
  if (picked.length === 0) add(WEAK);
  return picked.sort((a, b) => a - b);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
