/** The diff as people read it in a terminal, and as programs read it (a versioned JSON contract). */
import { planJson, reasonsText, type PlanJson } from "./plan.js";
import type { Style } from "./color.js";
import { displayPath } from "../config/parse.js";
import { baseName, willRun, type EntryChange, type PlanDiff } from "../diff/diff.js";

export interface DiffJson {
  version: 1;
  workflow: PlanJson["workflow"];
  base: { ref: string; commit: string; workflowFound: boolean };
  waves: PlanJson["waves"];
  /** Every pair of the head, planned against the base's accepted state, as in `pairflow plan --json`. */
  pairs: PlanJson["pairs"];
  added: string[];
  removed: string[];
  changes: EntryChange[];
  totals: PlanJson["totals"] & { added: number; removed: number };
}

export function diffJson(diff: PlanDiff, cwd = process.cwd()): DiffJson {
  const plan = planJson(diff.plan, cwd);
  return {
    version: 1,
    workflow: plan.workflow,
    base: { ...diff.base },
    waves: plan.waves,
    pairs: plan.pairs,
    added: [...diff.added],
    removed: [...diff.removed],
    changes: diff.changes.map((c) => ({ ...c })),
    totals: { ...plan.totals, added: diff.added.length, removed: diff.removed.length },
  };
}

export function diffText(diff: PlanDiff, style: Style, options: { cost?: string; cwd?: string } = {}): string {
  const { plan, base } = diff;
  const cwd = options.cwd ?? process.cwd();
  const lines: string[] = [];
  lines.push(style.bold(`Diff of "${plan.workflow.name}"`) + style.dim(` (${displayPath(plan.workflow.path, cwd)}) against ${baseName(base)}`));
  if (!base.workflowFound) lines.push(style.yellow(`${diff.workflowFile} does not exist at ${base.ref}: every pair is added`));
  const run = willRun(diff);
  lines.push(
    style.bold(`${run.length} to re-run, ${plan.pairs.length - run.length} unchanged`) + `; ${diff.added.length} added, ${diff.removed.length} removed`,
  );
  if (options.cost) lines.push(options.cost);

  if (run.length > 0) {
    const width = Math.min(40, Math.max(...run.map((p) => p.id.length)));
    lines.push("", style.bold("Will re-run"));
    for (const p of run) {
      lines.push(`  ${style.yellow(p.id.padEnd(width))}  ${style.dim(`wave ${p.wave}`)}  ${reasonsText(p)}`);
    }
  }
  if (diff.added.length > 0) lines.push("", `${style.bold("Added:")} ${diff.added.join(", ")}`);
  if (diff.removed.length > 0) lines.push("", `${style.bold("Removed:")} ${diff.removed.join(", ")}`);

  for (const change of diff.changes) {
    lines.push("", style.bold(`${changeTitle(change)} (${change.change})`));
    for (const line of change.patch.trimEnd().split("\n")) lines.push(colorLine(line, style));
  }
  if (diff.changes.length === 0) lines.push("", style.dim(`No workflow or prompts entry differs from ${base.ref}.`));
  return lines.join("\n") + "\n";
}

export function changeTitle(change: EntryChange): string {
  if (change.kind === "workflow") return "workflow settings";
  return `${change.kind === "pair" ? "configuration" : "prompt"} of ${change.id}`;
}

function colorLine(line: string, style: Style): string {
  if (line.startsWith("---") || line.startsWith("+++")) return style.bold(line);
  if (line.startsWith("@@")) return style.cyan(line);
  if (line.startsWith("+")) return style.green(line);
  if (line.startsWith("-")) return style.red(line);
  return line;
}
