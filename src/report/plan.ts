/** The plan as people read it (by wave) and as programs read it (the versioned JSON contract). */
import { displayPath } from "../config/parse.js";
import { shortRef } from "../refs/hash.js";
import { totals } from "../plan/plan.js";
import { instanceId } from "../config/foreach.js";
import type { Plan, PlannedPair } from "../model/plan.js";
import { commandNetwork } from "../model/workflow.js";
import { nameFor } from "./names.js";
import { columns, fitLines, padColumns } from "./fit.js";
import {
  estimateHeadline,
  estimateNotes,
  estimateText,
  pairEstimateJson,
  totalsEstimateJson,
  type PairEstimateJson,
  type TotalsEstimateJson,
} from "./estimate.js";
import { callsModel, type PlanEstimate } from "../estimate/estimate.js";
import type { Style } from "./color.js";
import { causesOf, number, planNodes, plural } from "./causes.js";
import { causeLines } from "./causesText.js";
import { grouped } from "../model/text.js";

/** One pair of the plan's JSON. */
export type PairJson = Pick<PlannedPair, "id" | "wave" | "requires" | "configRef" | "action" | "reasons" | "reuse"> & {
  /** For an instance of a foreach pair: the pair as written (docs/foreach.md). */
  template?: string;
  /** With an estimate: this pair's, or null for a pair that will not run (docs/cost.md). */
  estimate?: PairEstimateJson | null;
};

/** The plan's JSON with its pairs as any iterable: `planJsonStream` makes them one at a time. */
export interface PlanJsonOf<Pairs> {
  version: 1;
  workflow: { name: string; path: string; workflowRef: string };
  waves: string[][];
  pairs: Pairs;
  /** Present when the lock file records pairs the workflow no longer has: the run drops them. */
  removed?: string[];
  totals: { pairs: number; run: number; skip: number; estimate?: TotalsEstimateJson };
}

export type PlanJson = PlanJsonOf<PairJson[]>;

export function planJson(plan: Plan, cwd = process.cwd(), estimate?: PlanEstimate): PlanJson {
  const json = planJsonStream(plan, cwd, estimate);
  return { ...json, pairs: [...json.pairs] };
}

/**
 * The plan's JSON with each pair made only when it is read: `plan --json` writes them as they come,
 * so that at 10,000 pairs neither every pair's object nor the whole text is held at once.
 */
export function planJsonStream(plan: Plan, cwd = process.cwd(), estimate?: PlanEstimate): PlanJsonOf<Iterable<PairJson>> {
  return {
    version: 1,
    workflow: { name: plan.workflow.name, path: displayPath(plan.workflow.path, cwd), workflowRef: plan.workflowRef },
    waves: plan.graph.waves.map((w) => [...w]),
    pairs: (function* () {
      for (const p of plan.pairs) yield pairJson(plan, p, estimate);
    })(),
    ...(plan.removed && plan.removed.length > 0 ? { removed: [...plan.removed] } : {}),
    totals: { ...totals(plan), ...(estimate ? { estimate: totalsEstimateJson(estimate) } : {}) },
  };
}

function pairJson(plan: Plan, p: PlannedPair, estimate: PlanEstimate | undefined): PairJson {
  const template = plan.workflow.pairs.get(p.id)?.template;
  return {
    id: p.id,
    ...(template !== undefined ? { template } : {}),
    wave: p.wave,
    // Shared with the plan, not copied: the JSON is written out, never changed.
    requires: p.requires,
    configRef: p.configRef,
    action: p.action,
    reasons: p.reasons,
    ...(p.reuse ? { reuse: p.reuse } : {}),
    ...(estimate ? { estimate: pairEstimateJson(estimate, p.id) } : {}),
  };
}

/**
 * The plan's JSON as `plan --json` writes it, in pieces of some 32 KB: indented, with each
 * wave and each pair on one line (a pair indented key by key took some 1.3 KB, mostly spaces and
 * line breaks, at 10,000 pairs 13 MB). The pieces joined are one JSON text.
 */
export function* planJsonText(json: PlanJsonOf<Iterable<PairJson>>): Generator<string> {
  const { version, workflow, waves, pairs, totals, ...rest } = json;
  let piece = `{\n  "version": ${JSON.stringify(version)},\n  "workflow": ${JSON.stringify(workflow)},\n  "waves": ${list(waves)},\n  "pairs": [`;
  let first = true;
  for (const pair of pairs) {
    piece += `${first ? "" : ","}\n    ${JSON.stringify(pair)}`;
    first = false;
    if (piece.length >= PIECE_LENGTH) {
      yield piece;
      piece = "";
    }
  }
  piece += `${first ? "]" : "\n  ]"},\n  "totals": ${JSON.stringify(totals)}`;
  // Any field added to PlanJson later still comes out.
  for (const [key, value] of Object.entries(rest)) piece += `,\n  ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  yield `${piece}\n}\n`;
}

/**
 * Small enough that a piece, made flat to be written, is not a large object: those are made in the
 * old generation, and at 50,000 pairs they added their 40 MB to the peak until the next full collection.
 */
const PIECE_LENGTH = 32 * 1024;

function list(items: unknown[]): string {
  return items.length === 0 ? "[]" : `[\n${items.map((item) => `    ${JSON.stringify(item)}`).join(",\n")}\n  ]`;
}

const MAX_DETAILS = 3;

/** One line of reasons: `prompt: prompt.task changed; upstream: g_test will run`. */
export function reasonsText(pair: PlannedPair): string {
  if (pair.action === "skip") {
    if (pair.stale) return "a person's edit kept, though its sources changed since (carry_edits: true carries it forward)";
    if (pair.artifact?.source === "workspace") return "output edited by hand; kept as accepted (delete the file to regenerate it)";
    if (pair.artifact?.edited) return "unchanged (output edited by hand; kept as accepted)";
    return pair.artifact?.source === "remote" ? "unchanged (accepted artifact in the remote store)" : "unchanged";
  }
  const shown = pair.reasons.slice(0, MAX_DETAILS).map((r) => (r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`));
  const more = pair.reasons.length - shown.length;
  return shown.join("; ") + (more > 0 ? `; and ${more} more` : "");
}

/**
 * Of the pairs that run and call a model, those whose requests were answered before: they make no
 * model call. A pair whose generator calls none (a command naming no model) is not counted: it
 * spares no call.
 */
export function withoutCalls(plan: Pick<Plan, "pairs" | "workflow">): number {
  return plan.pairs.filter((p) => p.action === "run" && (p.reuse?.kind === "request" || p.reuse?.kind === "rejudge") && pairCallsModel(plan, p.id)).length;
}

/** " (1 with no model call)" after a count of pairs that run, or "". */
export function withoutCallsText(plan: Pick<Plan, "pairs" | "workflow">): string {
  const n = withoutCalls(plan);
  return n === 0 ? "" : ` (${grouped(n)} with no model call: ${n === 1 ? "its request was" : "their requests were"} answered before)`;
}

/** Whether a pair of the plan calls a model; one the workflow does not describe is taken to. */
function pairCallsModel(plan: Pick<Plan, "workflow">, id: string): boolean {
  const pair = plan.workflow.pairs?.get(id);
  return pair === undefined || callsModel(pair);
}

/**
 * What a pair that runs expects as to model calls, in words; "" when it makes them. `calls`:
 * whether its generator calls a model at all; of one that does not (a command naming no model),
 * no model call is ever said to be spared.
 */
export function reuseText(pair: Pick<PlannedPair, "reuse">, calls = true): string {
  const reuse = pair.reuse;
  if (reuse === undefined) return "";
  if (reuse.kind === "request") return `request answered before${calls ? ": no model call" : ""}`;
  if (reuse.kind === "rejudge")
    return calls ? "re-judge: no model call if the guard accepts what the same request returned" : "re-judge: the guard judges what the same request returned";
  if (!calls) return "";
  if (reuse.kind !== "unless") return "";
  return `no model call if ${reuse.deps.join(", ")} ${reuse.deps.length === 1 ? "reproduces its" : "reproduce their"} content`;
}

/** What fits on one screen: a plan longer than this is shown by cause, with counts (`--all`: every pair). */
export const SCREEN_LINES = 40;

export interface PlanTextOptions {
  /** Every pair, wave by wave, and the estimate of each, however long. */
  all?: boolean;
  /** How to see every pair, said under a plan shown by cause; default: `pairflow plan --all`. */
  more?: string;
  /** A terminal's width: each line is cut to it, so none wraps (a wrapped plan takes rows by the dozen). */
  columns?: number;
}

/**
 * The plan as people read it. A plan that fits on a screen (SCREEN_LINES), or any with `all`, is
 * shown pair by pair, by wave (planListText). A longer one is shown by cause: each change with the
 * pairs it reaches counted, the totals and the estimate's headline, and how to see the rest; at
 * 1,000 pairs that is some 20 lines, not 1,000.
 */
export function planText(plan: Plan, style: Style, cwd = process.cwd(), estimate?: PlanEstimate, options: PlanTextOptions = {}): string {
  const estimateLines = estimate && estimate.pairs.length > 0 ? estimate.pairs.length + 4 + estimateNotes(estimate, options.all).length : 0;
  if (options.all || listLines(plan) + estimateLines <= SCREEN_LINES) return fitLines(planListText(plan, style, cwd, estimate, options.all), options.columns);
  const t = totals(plan);
  const lines = [planHeader(plan, style, cwd)];
  const removed = removedLine(plan, style);
  const network = networkLine(plan, style);
  const tail = [
    "",
    totalsLine(plan, style),
    ...(network ? [network] : []),
    ...(estimate && estimate.pairs.length > 0 ? [style.bold(`Estimate for ${estimateHeadline(estimate, t.run)}`)] : []),
    style.dim(`${options.more ?? "pairflow plan --all lists every pair, by wave"}.`),
  ];
  if (t.run > 0) {
    const budget = SCREEN_LINES - lines.length - 2 - (removed ? 2 : 0) - tail.length;
    lines.push("", style.bold("Will run, by cause"), ...causeLines(causesOf(planNodes(plan)), style, budget));
  }
  if (removed) lines.push("", removed);
  lines.push(...tail);
  return fitLines(lines.join("\n") + "\n", options.columns);
}

function planHeader(plan: Plan, style: Style, cwd: string): string {
  const where = displayPath(plan.workflow.path, cwd);
  return (
    style.bold(`Plan for "${nameFor(plan.workflow.name, "terminal")}"`) +
    style.dim(` (${nameFor(where, "terminal")}): ${plural(totals(plan).pairs, "pair")} in ${plural(plan.graph.waves.length, "wave")}`)
  );
}

function totalsLine(plan: Plan, style: Style): string {
  const t = totals(plan);
  const removed = plan.removed ?? [];
  return style.bold(
    `${number(t.run)} to run${withoutCallsText(plan)}, ${number(t.skip)} unchanged` + (removed.length > 0 ? `, ${number(removed.length)} removed` : ""),
  );
}

function removedLine(plan: Plan, style: Style): string | undefined {
  const removed = plan.removed ?? [];
  if (removed.length === 0) return undefined;
  return `${style.bold("Removed")} (no longer in the workflow; the run drops them from the lock file): ${removedText(removed)}`;
}

/** The lines planListText takes without its estimate. */
function listLines(plan: Plan): number {
  const templates = new Map<string, { wave: number; run: number; all: number }>();
  let lines = 1 + 2 * plan.graph.waves.length + 2 + ((plan.removed ?? []).length > 0 ? 2 : 0);
  for (const p of plan.pairs) {
    const template = plan.workflow.pairs?.get(p.id)?.template;
    if (template === undefined) {
      lines++;
      continue;
    }
    const key = `${p.wave} ${template}`;
    const group = templates.get(key) ?? { wave: p.wave, run: 0, all: 0 };
    group.all++;
    if (p.action === "run") group.run++;
    templates.set(key, group);
  }
  for (const g of templates.values()) lines += g.all < 2 ? 1 : 1 + g.run;
  return lines;
}

/**
 * The plan by wave; with an estimate, followed by it. The instances of a foreach pair in a wave
 * show as one line (`translate[*]  3 run, 47 unchanged`) followed by those that run.
 */
export function planListText(plan: Plan, style: Style, cwd = process.cwd(), estimate?: PlanEstimate, all = false): string {
  const t = totals(plan);
  const lines: string[] = [planHeader(plan, style, cwd)];
  const templateOf = (p: PlannedPair) => plan.workflow.pairs.get(p.id)?.template;
  const width = Math.min(40, Math.max(0, ...plan.pairs.map((p) => columns(nameFor(p.id, "terminal")))));
  const line = (p: PlannedPair, indent: string) => {
    const action = p.action === "run" ? style.yellow("run ") : style.green("skip");
    const reuse = reuseText(p, pairCallsModel(plan, p.id));
    return `${indent}${action}  ${padColumns(nameFor(p.id, "terminal"), width)}  ${style.dim(shortRef(p.configRef).padEnd(12))}  ${nameFor(reasonsText(p), "terminal")}${reuse ? style.dim(` (${nameFor(reuse, "terminal")})`) : ""}`;
  };
  for (const [wave, pairs] of byWave(plan.pairs)) {
    lines.push("", style.bold(`Wave ${wave}`));
    const groups = new Map<string, PlannedPair[]>();
    for (const p of pairs) {
      const template = templateOf(p);
      if (template === undefined) continue;
      const group = groups.get(template);
      if (group) group.push(p);
      else groups.set(template, [p]);
    }
    const shown = new Set<string>();
    for (const p of pairs) {
      const template = templateOf(p);
      const group = template === undefined ? undefined : groups.get(template)!;
      if (group === undefined || group.length < 2) {
        lines.push(line(p, "  "));
        continue;
      }
      if (shown.has(template!)) continue;
      shown.add(template!);
      const run = group.filter((g) => g.action === "run");
      const counts = [
        run.length > 0 ? style.yellow(`${run.length} run`) : "",
        run.length < group.length ? style.green(`${group.length - run.length} unchanged`) : "",
      ];
      lines.push(`  ${style.bold(`${nameFor(template!, "terminal")}[*]`)}  ${counts.filter(Boolean).join(", ")}`);
      // Those that run, and a person's stale edits, which every plan names until they are dealt with;
      // the pieces of a split file under a line that counts them.
      const shownPairs = group.filter((g) => g.action === "run" || g.stale);
      for (const [file, pieces] of byFile(plan, template!, group, shownPairs)) {
        if (file !== undefined) lines.push(`    ${style.bold(nameFor(pieces.heading, "terminal"))}  ${pieces.count}`);
        for (const r of pieces.shown) lines.push(line(r, file === undefined ? "    " : "      "));
      }
    }
  }
  const removed = removedLine(plan, style);
  if (removed) lines.push("", removed);
  lines.push("", totalsLine(plan, style));
  const network = networkLine(plan, style);
  if (network) lines.push(network);
  if (estimate && estimate.pairs.length > 0) lines.push("", estimateText(estimate, style, { running: t.run, all }).trimEnd());
  return lines.join("\n") + "\n";
}

/**
 * The pairs to run whose guards have the network (`network: true`): the exception, since a guard
 * runs without it; undefined when there are none.
 */
export function networkLine(plan: Plan, style: Style): string | undefined {
  const guarded = (id: string) => {
    const pair = plan.workflow.pairs?.get(id);
    return pair !== undefined && commandNetwork(pair).some((c) => c.command === "guard" && c.network);
  };
  const ids = plan.pairs.filter((p) => p.action === "run" && guarded(p.id)).map((p) => p.id);
  if (ids.length === 0) return undefined;
  const named =
    ids
      .slice(0, 5)
      .map((id) => nameFor(id, "terminal"))
      .join(", ") + (ids.length > 5 ? ` and ${number(ids.length - 5)} more` : "");
  return style.dim(`Guards with the network (network: true): ${named}`);
}

/** What a split file's pieces are called, by how it is split. */
const PIECE_NOUN = { markdown: "section", json: "key", yaml: "key", regex: "piece" } as const;

/**
 * The pairs to show of a foreach group, those of a split file together under the file's instance
 * (`translate[docs/a.md]  1 of 14 sections to run`); the rest under undefined, as they come.
 */
function byFile(
  plan: Plan,
  template: string,
  group: readonly PlannedPair[],
  shown: readonly PlannedPair[],
): Map<string | undefined, { heading: string; count: string; shown: PlannedPair[] }> {
  const out = new Map<string | undefined, { heading: string; count: string; shown: PlannedPair[] }>();
  const fileOf = (p: PlannedPair) => plan.workflow.pairs.get(p.id)?.piece?.file;
  for (const p of shown) {
    const file = fileOf(p);
    let entry = out.get(file);
    if (!entry) {
      const split = file === undefined ? undefined : plan.workflow.pairs.get(instanceId(template, file))?.assembly?.split.kind;
      const all = file === undefined ? 0 : group.filter((g) => fileOf(g) === file).length;
      const running = file === undefined ? 0 : group.filter((g) => fileOf(g) === file && g.action === "run").length;
      const noun = PIECE_NOUN[split ?? "regex"];
      entry = { heading: file === undefined ? "" : instanceId(template, file), count: `${running} of ${count(all, noun)} to run`, shown: [] };
      out.set(file, entry);
    }
    entry.shown.push(p);
  }
  return out;
}

function byWave(pairs: readonly PlannedPair[]): Map<number, PlannedPair[]> {
  const waves = new Map<number, PlannedPair[]>();
  for (const p of pairs) {
    const wave = waves.get(p.wave);
    if (wave) wave.push(p);
    else waves.set(p.wave, [p]);
  }
  return waves;
}

const MAX_REMOVED = 10;

function removedText(ids: readonly string[]): string {
  const named = ids
    .slice(0, MAX_REMOVED)
    .map((id) => nameFor(id, "terminal"))
    .join(", ");
  return ids.length > MAX_REMOVED ? `${named} and ${ids.length - MAX_REMOVED} more` : named;
}

export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** What `pairflow plan --check` finds: what a run would change in the files a repository commits. */
export interface PlanCheck {
  /** Pairs that would run. */
  run: number;
  /**
   * Pairs that would not run whose committed output is stale all the same: their output file is
   * missing or not their accepted content (and not a hand edit, which is kept), or, where a lock
   * file is committed, it does not record their accepted artifact. A run writes them.
   */
  stale: string[];
  /** Pairs the lock file records that the workflow no longer has: a run drops them. */
  removed: number;
}

/** `lockFile`: whether the workflow has a lock file (without one, none is stale). */
export function planCheck(plan: Plan, lockFile: boolean): PlanCheck {
  const stale = plan.pairs
    .filter((p) => {
      const artifact = p.artifact;
      if (p.action !== "skip" || artifact === null || artifact.edited || artifact.source === "workspace") return false;
      const output = plan.workflow.pairs.get(p.id)?.output;
      return (output !== undefined && artifact.content !== "output") || (lockFile && artifact.source !== "lock");
    })
    .map((p) => p.id);
  return { run: totals(plan).run, stale, removed: lockFile ? (plan.removed ?? []).length : 0 };
}

/** Whether a run would change anything `plan --check` looks at. */
export function checkFails(check: PlanCheck): boolean {
  return check.run > 0 || check.stale.length > 0 || check.removed > 0;
}

/** One line: `check: 255 pairs would run, 3 outputs are stale (a, b, c); exit status 3`, or that everything is current. */
export function checkText(check: PlanCheck, style: Style): string {
  if (!checkFails(check)) return style.green("check: nothing would run, and every output is current") + "\n";
  const parts = [
    check.run > 0 ? `${plural(check.run, "pair")} would run` : "",
    check.stale.length > 0
      ? `${plural(check.stale.length, "pair")} would write ${check.stale.length === 1 ? "its" : "their"} stale output (${removedText(check.stale)})`
      : "",
    check.removed > 0 ? `${plural(check.removed, "removed pair")} would leave the lock file` : "",
  ].filter(Boolean);
  return style.yellow(`check: ${parts.join(", ")}; exit status 3`) + "\n";
}
