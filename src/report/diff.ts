/** The diff as people read it in a terminal, and as programs read it (a versioned JSON contract). */
import { planJson, reasonsText, SCREEN_LINES, type PlanJson } from "./plan.js";
import { causesOf, changesFor, number, planNodes } from "./causes.js";
import { causeLines } from "./causesText.js";
import type { Style } from "./color.js";
import { nameFor } from "./names.js";
import { visible } from "./visible.js";
import { displayPath } from "../config/parse.js";
import { alreadyAccepted, baseName, willRun, type AcceptedOn, type EntryChange, type PlanDiff, type SinceBase } from "../diff/diff.js";
import { columns, fitLines, padColumns } from "./fit.js";

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

/** Lines of entry diffs a diff shows without `all`; the rest are counted. */
export const PATCH_LINES = 200;

export interface DiffTextOptions {
  cost?: string;
  cwd?: string;
  /** Every pair that re-runs, and every entry's diff, however many. */
  all?: boolean;
  /** A terminal's width: each line but the entries' diffs is cut to it, so none wraps. */
  columns?: number;
}

/**
 * The diff as people read it in a terminal: what re-runs and why, what changed but was accepted on
 * the branch, added and removed pairs, then each changed entry's unified diff. While the pairs fit
 * on a screen each is a line; a larger diff is put by cause (the change, the pairs it reaches
 * counted, the entries that explain it in that order first), and its entry diffs stop after some
 * 200 lines, saying how many more there are (`all`: every one).
 */
export function diffText(diff: PlanDiff, style: Style, options: DiffTextOptions = {}): string {
  const { plan, base } = diff;
  const cwd = options.cwd ?? process.cwd();
  const lines: string[] = [];
  lines.push(
    style.bold(`Diff of "${nameFor(plan.workflow.name, "terminal")}"`) +
      style.dim(` (${nameFor(displayPath(plan.workflow.path, cwd), "terminal")}) against ${baseName(base, (s) => nameFor(s, "terminal"))}`),
  );
  if (!base.workflowFound)
    lines.push(style.yellow(`${nameFor(diff.workflowFile, "terminal")} does not exist at ${nameFor(base.ref, "terminal")}: every pair is added`));
  const run = willRun(diff);
  const accepted = alreadyAccepted(diff);
  const counts = countsOf(diff);
  lines.push(
    style.bold(
      `${number(counts.run)} to re-run after merging, ${counts.accepted > 0 ? `${number(counts.accepted)} already accepted, ` : ""}${number(counts.unchanged)} unchanged`,
    ) + `; ${number(diff.added.length)} added, ${number(diff.removed.length)} removed`,
  );
  if (options.cost) lines.push(options.cost);

  const byPair = options.all || run.length + accepted.length + 12 <= SCREEN_LINES;
  const causes = byPair ? [] : causesOf(planNodes(plan));
  if (run.length > 0 && byPair) {
    const width = Math.min(40, Math.max(...run.map((p) => columns(nameFor(p.id, "terminal")))));
    lines.push("", style.bold("Will re-run"));
    for (const p of run) {
      lines.push(`  ${style.yellow(padColumns(nameFor(p.id, "terminal"), width))}  ${style.dim(`wave ${p.wave}`)}  ${nameFor(reasonsText(p), "terminal")}`);
    }
  } else if (run.length > 0) {
    lines.push("", style.bold("Will re-run, by cause"), ...causeLines(causes, style, SCREEN_LINES - lines.length - 12));
  }
  if (accepted.length > 0) {
    const shown = byPair ? accepted : accepted.slice(0, MAX_LISTED);
    const width = Math.min(40, Math.max(...shown.map((p) => columns(nameFor(p.id, "terminal")))));
    lines.push("", style.bold("Changed, already accepted") + style.dim(" (merging re-runs nothing for these)"));
    for (const p of shown) {
      const since = diff.sinceBase.get(p.id)!;
      lines.push(
        `  ${style.green(padColumns(nameFor(p.id, "terminal"), width))}  ${style.dim(`wave ${p.wave}`)}  ${nameFor(`${sinceBaseText(since)} (${acceptedText(since.accepted!)})`, "terminal")}`,
      );
    }
    if (shown.length < accepted.length) lines.push(style.dim(`  … and ${accepted.length - shown.length} more`));
  }
  if (diff.added.length > 0) lines.push("", `${style.bold("Added:")} ${idsText(diff.added, byPair)}`);
  if (diff.removed.length > 0) lines.push("", `${style.bold("Removed:")} ${idsText(diff.removed, byPair)}`);

  // What re-runs is cut to the terminal's width; the entries' diffs are not: a change may lie past the cut.
  if (options.columns !== undefined) lines.splice(0, lines.length, ...fitLines(lines.join("\n"), options.columns).split("\n"));

  // The entries that explain the first causes come first.
  const templateOf = (id: string) => plan.workflow.pairs?.get(id)?.template;
  const first = new Set(causes.flatMap((c) => changesFor(c, diff.changes, templateOf)));
  const changes = [...first, ...diff.changes.filter((c) => !first.has(c))];
  let budget = options.all ? Infinity : PATCH_LINES;
  let shown = 0;
  for (const change of changes) {
    const patch = change.patch.trimEnd().split("\n");
    if (shown > 0 && patch.length + 2 > budget) break;
    lines.push("", style.bold(`${nameFor(changeTitle(change), "terminal")} (${change.change})`));
    for (const line of patch) lines.push(colorLine(visible(line), style));
    budget -= patch.length + 2;
    shown++;
  }
  if (shown < changes.length) {
    const left = changes.slice(shown).reduce((n, c) => n + c.patch.trimEnd().split("\n").length, 0);
    lines.push("", style.dim(`… and ${changes.length - shown} more changed entries (${left} lines): pairflow diff --all shows every one.`));
  }
  if (diff.changes.length === 0) lines.push("", style.dim(`No workflow or prompts entry differs from ${nameFor(base.ref, "terminal")}.`));
  return lines.join("\n") + "\n";
}

/** Pairs listed without `all`, at most. */
const MAX_LISTED = 10;

function idsText(ids: string[], all: boolean): string {
  const shown = all ? ids : ids.slice(0, MAX_LISTED);
  return shown.map((id) => nameFor(id, "terminal")).join(", ") + (shown.length < ids.length ? ` and ${ids.length - shown.length} more` : "");
}

/** What each kind of entry is called before its id: `prompt of g_impl`, `file src/app/models.py`. */
export const ENTRY_WORDS: Record<Exclude<EntryChange["kind"], "workflow">, string> = {
  pair: "configuration of",
  prompt: "prompt of",
  file: "file",
  section: "section",
};

export function changeTitle(change: EntryChange): string {
  if (change.kind === "workflow") return "workflow settings";
  return `${ENTRY_WORDS[change.kind]} ${change.id}`;
}

function colorLine(line: string, style: Style): string {
  if (line.startsWith("---") || line.startsWith("+++")) return style.bold(line);
  if (line.startsWith("@@")) return style.cyan(line);
  if (line.startsWith("+")) return style.green(line);
  if (line.startsWith("-")) return style.red(line);
  return line;
}
