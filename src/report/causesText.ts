/** Causes and failures as a terminal or a job log shows them: a line each, bounded to a screen. */
import type { Style } from "./color.js";
import { causeExtent, number, plural, rootsDiffer, type Cause, type Failure } from "./causes.js";
import { nameFor } from "./names.js";
import { columns, padColumns } from "./fit.js";

/** Roots listed under a cause, at most. */
const MAX_ROOT_LINES = 5;
/** Roots named on one line, at most. */
const MAX_NAMED = 5;

/**
 * The causes, at most `budget` lines: a line per cause (`prompt: prompt.task changed  5 pairs + 250
 * downstream · waves 1–20`), then, while lines are left, its pairs: a line each with its wave and
 * what follows from it, or, when they do not differ, one line naming the first few.
 */
export function causeLines(causes: readonly Cause[], style: Style, budget: number): string[] {
  const lines: string[] = [];
  const shown = causes.length > budget ? causes.slice(0, Math.max(0, budget - 1)) : causes;
  let spare = budget - shown.length - (shown.length < causes.length ? 1 : 0);
  for (const cause of shown) {
    const why = cause.failed > 0 ? style.red(nameFor(cause.why, "terminal")) : style.bold(nameFor(cause.why, "terminal"));
    lines.push(`  ${why}  ${causeExtent(cause, (id) => nameFor(id, "terminal"))}`);
    if (cause.roots.length < 2 || spare <= 0) continue;
    // One line left, or nothing to tell them apart: the first few named on one line.
    if (!rootsDiffer(cause) || spare === 1) {
      const named = cause.roots.slice(0, MAX_NAMED).map((r) => nameFor(r.id, "terminal"));
      const more = cause.roots.length - named.length;
      lines.push(style.dim(`    ${named.join(", ")}${more > 0 ? ` and ${number(more)} more` : ""}`));
      spare--;
      continue;
    }
    const room = Math.min(spare, MAX_ROOT_LINES);
    const listed = cause.roots.length > room ? cause.roots.slice(0, room - 1) : cause.roots;
    const width = Math.min(40, Math.max(...listed.map((r) => columns(nameFor(r.id, "terminal")))));
    const waveWidth = Math.max(...listed.map((r) => String(r.wave).length));
    for (const r of listed) {
      const status = r.status === "run" ? "" : `  ${r.status === "failed" ? style.red(r.status) : r.status}`;
      const down = r.downstream > 0 ? style.dim(`  + ${number(r.downstream)} downstream`) : "";
      lines.push(`    ${padColumns(nameFor(r.id, "terminal"), width)}  ${style.dim(`wave ${String(r.wave).padEnd(waveWidth)}`)}${status}${down}`);
    }
    if (listed.length < cause.roots.length) lines.push(style.dim(`    … and ${plural(cause.roots.length - listed.length, "more pair")}`));
    spare -= Math.min(room, cause.roots.length);
  }
  if (shown.length < causes.length) lines.push(style.dim(`  … and ${plural(causes.length - shown.length, "more cause")}`));
  return lines;
}

/** Failed pairs, a line each with their headline, at most `max`. */
export function failureLines(failures: readonly Failure[], style: Style, max: number): string[] {
  const shown = failures.length > max ? failures.slice(0, Math.max(0, max - 1)) : failures;
  const lines = shown.map((f) => {
    const blocked = f.blocked > 0 ? style.dim(` (blocked ${plural(f.blocked, "pair")})`) : "";
    return `  ${style.red("✖")} ${nameFor(f.id, "terminal")}${blocked}: ${f.headline}`;
  });
  if (shown.length < failures.length) lines.push(style.dim(`  … and ${plural(failures.length - shown.length, "more failed pair")}`));
  return lines;
}
