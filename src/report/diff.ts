/** The diff as people read it in a terminal, and as programs read it (a versioned JSON contract). */
import { planJson, reasonsText, type PlanJson } from "./plan.js";
import type { Style } from "./color.js";
import { displayPath } from "../config/parse.js";
import { alreadyAccepted, baseName, willRun, type AcceptedOn, type EntryChange, type PlanDiff, type SinceBase } from "../diff/diff.js";

export interface DiffJson {
  version: 1;
  workflow: PlanJson["workflow"];
  base: { ref: string; commit: string; workflowFound: boolean };
  waves: PlanJson["waves"];
  /** Every pair of the head's plan, as in `pairflow plan --json` there, and each against the base. */
  pairs: (PlanJson["pairs"][number] & { sinceBase: SinceBase })[];
  added: string[];
  removed: string[];
  changes: EntryChange[];
  /** `accepted`: pairs that changed since the base and will not re-run (accepted on the branch). */
  totals: PlanJson["totals"] & { accepted: number; added: number; removed: number };
}

export function diffJson(diff: PlanDiff, cwd = process.cwd()): DiffJson {
  const plan = planJson(diff.plan, cwd);
  return {
    version: 1,
    workflow: plan.workflow,
    base: { ...diff.base },
    waves: plan.waves,
    pairs: plan.pairs.map((p) => {
      const since = diff.sinceBase.get(p.id)!;
      return { ...p, sinceBase: { ...since, changes: since.changes.map((r) => ({ ...r })) } };
    }),
    added: [...diff.added],
    removed: [...diff.removed],
    changes: diff.changes.map((c) => ({ ...c })),
    totals: { ...plan.totals, accepted: alreadyAccepted(diff).length, added: diff.added.length, removed: diff.removed.length },
  };
}

/** How a changed pair that will not re-run was accepted on the branch, as people read it. */
export function acceptedText(on: AcceptedOn): string {
  switch (on) {
    case "committed":
      return "regenerated and committed on the branch";
    case "edited":
      return "output edited by hand on the branch; kept as accepted";
    case "store":
      return "accepted in the local store, not in the committed lock file";
    case "remote":
      return "accepted in the remote store";
  }
}

/** What changed in a pair since the base, in the words of the plan's reasons. */
export function sinceBaseText(since: SinceBase): string {
  if (since.changes.length === 0) return "only its content";
  return since.changes.map((r) => (r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`)).join("; ");
}

/** `2 to re-run after merging, 1 already accepted, 1 unchanged`: the pairs of the plan, counted three ways. */
export function countsOf(diff: PlanDiff): { run: number; accepted: number; unchanged: number } {
  const run = willRun(diff).length;
  const accepted = alreadyAccepted(diff).length;
  return { run, accepted, unchanged: diff.plan.pairs.length - run - accepted };
}

export function diffText(diff: PlanDiff, style: Style, options: { cost?: string; cwd?: string } = {}): string {
  const { plan, base } = diff;
  const cwd = options.cwd ?? process.cwd();
  const lines: string[] = [];
  lines.push(style.bold(`Diff of "${plan.workflow.name}"`) + style.dim(` (${displayPath(plan.workflow.path, cwd)}) against ${baseName(base)}`));
  if (!base.workflowFound) lines.push(style.yellow(`${diff.workflowFile} does not exist at ${base.ref}: every pair is added`));
  const run = willRun(diff);
  const accepted = alreadyAccepted(diff);
  const counts = countsOf(diff);
  lines.push(
    style.bold(`${counts.run} to re-run after merging, ${counts.accepted > 0 ? `${counts.accepted} already accepted, ` : ""}${counts.unchanged} unchanged`) +
      `; ${diff.added.length} added, ${diff.removed.length} removed`,
  );
  if (options.cost) lines.push(options.cost);

  if (run.length > 0) {
    const width = Math.min(40, Math.max(...run.map((p) => p.id.length)));
    lines.push("", style.bold("Will re-run"));
    for (const p of run) {
      lines.push(`  ${style.yellow(p.id.padEnd(width))}  ${style.dim(`wave ${p.wave}`)}  ${reasonsText(p)}`);
    }
  }
  if (accepted.length > 0) {
    const width = Math.min(40, Math.max(...accepted.map((p) => p.id.length)));
    lines.push("", style.bold("Changed, already accepted") + style.dim(" (merging re-runs nothing for these)"));
    for (const p of accepted) {
      const since = diff.sinceBase.get(p.id)!;
      lines.push(`  ${style.green(p.id.padEnd(width))}  ${style.dim(`wave ${p.wave}`)}  ${sinceBaseText(since)} (${acceptedText(since.accepted!)})`);
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
