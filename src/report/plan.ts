/** The plan as people read it (by wave) and as programs read it (the versioned JSON contract). */
import { displayPath } from "../config/parse.js";
import { shortRef } from "../refs/hash.js";
import { totals } from "../plan/plan.js";
import type { Plan, PlannedPair } from "../model/plan.js";
import { estimateText, pairEstimateJson, totalsEstimateJson, type PairEstimateJson, type TotalsEstimateJson } from "./estimate.js";
import type { PlanEstimate } from "../estimate/estimate.js";
import type { Style } from "./color.js";

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

/** Of the pairs that run, those whose requests were answered before: they make no model call. */
export function withoutCalls(pairs: readonly Pick<PlannedPair, "action" | "reuse">[]): number {
  return pairs.filter((p) => p.action === "run" && (p.reuse?.kind === "request" || p.reuse?.kind === "rejudge")).length;
}

/** " (1 with no model call)" after a count of pairs that run, or "". */
export function withoutCallsText(pairs: readonly Pick<PlannedPair, "action" | "reuse">[]): string {
  const n = withoutCalls(pairs);
  return n === 0 ? "" : ` (${n.toLocaleString("en-US")} with no model call: ${n === 1 ? "its request was" : "their requests were"} answered before)`;
}

/** What a pair that runs expects as to model calls, in words; "" when it makes them. */
export function reuseText(pair: Pick<PlannedPair, "reuse">): string {
  const reuse = pair.reuse;
  if (reuse === undefined) return "";
  if (reuse.kind === "request") return "request answered before: no model call";
  if (reuse.kind === "rejudge") return "re-judge: no model call if the guard accepts what the same request returned";
  if (reuse.kind !== "unless") return "";
  return `no model call if ${reuse.deps.join(", ")} ${reuse.deps.length === 1 ? "reproduces its" : "reproduce their"} content`;
}

/**
 * The plan by wave; with an estimate, followed by it. The instances of a foreach pair in a wave
 * show as one line (`translate[*]  3 run, 47 unchanged`) followed by those that run.
 */
export function planText(plan: Plan, style: Style, cwd = process.cwd(), estimate?: PlanEstimate): string {
  const t = totals(plan);
  const lines: string[] = [];
  const where = displayPath(plan.workflow.path, cwd);
  lines.push(style.bold(`Plan for "${plan.workflow.name}"`) + style.dim(` (${where}): ${count(t.pairs, "pair")} in ${count(plan.graph.waves.length, "wave")}`));
  const templateOf = (p: PlannedPair) => plan.workflow.pairs.get(p.id)?.template;
  const width = Math.min(40, Math.max(0, ...plan.pairs.map((p) => p.id.length)));
  const line = (p: PlannedPair, indent: string) => {
    const action = p.action === "run" ? style.yellow("run ") : style.green("skip");
    const reuse = reuseText(p);
    return `${indent}${action}  ${p.id.padEnd(width)}  ${style.dim(shortRef(p.configRef).padEnd(12))}  ${reasonsText(p)}${reuse ? style.dim(` (${reuse})`) : ""}`;
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
      lines.push(`  ${style.bold(`${template}[*]`)}  ${counts.filter(Boolean).join(", ")}`);
      // Those that run, and a person's stale edits, which every plan names until they are dealt with.
      for (const r of group.filter((g) => g.action === "run" || g.stale)) lines.push(line(r, "    "));
    }
  }
  const removed = plan.removed ?? [];
  if (removed.length > 0)
    lines.push("", `${style.bold("Removed")} (no longer in the workflow; the run drops them from the lock file): ${removedText(removed)}`);
  lines.push("", style.bold(`${t.run} to run${withoutCallsText(plan.pairs)}, ${t.skip} unchanged` + (removed.length > 0 ? `, ${removed.length} removed` : "")));
  if (estimate && estimate.pairs.length > 0) lines.push("", estimateText(estimate, style).trimEnd());
  return lines.join("\n") + "\n";
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
  const shown = ids.slice(0, MAX_REMOVED).join(", ");
  return ids.length > MAX_REMOVED ? `${shown} and ${ids.length - MAX_REMOVED} more` : shown;
}

export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
