/** The plan as people read it (by wave) and as programs read it (the versioned JSON contract). */
import { displayPath } from "../config/parse.js";
import { shortRef } from "../refs/hash.js";
import { totals } from "../plan/plan.js";
import type { Plan, PlannedPair } from "../model/plan.js";
import { estimateText, pairEstimateJson, totalsEstimateJson, type PairEstimateJson, type TotalsEstimateJson } from "./estimate.js";
import type { PlanEstimate } from "../estimate/estimate.js";
import type { Style } from "./color.js";

export interface PlanJson {
  version: 1;
  workflow: { name: string; path: string; workflowRef: string };
  waves: string[][];
  pairs: (Pick<PlannedPair, "id" | "wave" | "requires" | "configRef" | "action" | "reasons"> & {
    /** With an estimate: this pair's, or null for a pair that will not run (docs/cost.md). */
    estimate?: PairEstimateJson | null;
  })[];
  totals: { pairs: number; run: number; skip: number; estimate?: TotalsEstimateJson };
}

export function planJson(plan: Plan, cwd = process.cwd(), estimate?: PlanEstimate): PlanJson {
  const json: PlanJson = {
    version: 1,
    workflow: { name: plan.workflow.name, path: displayPath(plan.workflow.path, cwd), workflowRef: plan.workflowRef },
    waves: plan.graph.waves.map((w) => [...w]),
    pairs: plan.pairs.map((p) => ({
      id: p.id,
      wave: p.wave,
      requires: [...p.requires],
      configRef: p.configRef,
      action: p.action,
      reasons: p.reasons.map((r) => ({ ...r })),
    })),
    totals: totals(plan),
  };
  if (estimate) {
    for (const p of json.pairs) p.estimate = pairEstimateJson(estimate, p.id);
    json.totals.estimate = totalsEstimateJson(estimate);
  }
  return json;
}

/**
 * The plan's JSON as `plan --json` writes it: indented, with each wave and each pair on one line
 * (a pair indented key by key took some 1.3 KB, mostly spaces and line breaks, at 10,000 pairs 13 MB).
 */
export function planJsonText(json: PlanJson): string {
  const list = (items: unknown[]) => (items.length === 0 ? "[]" : `[\n${items.map((item) => `    ${JSON.stringify(item)}`).join(",\n")}\n  ]`);
  const { version, workflow, waves, pairs, totals, ...rest } = json;
  const lines = [
    `  "version": ${JSON.stringify(version)}`,
    `  "workflow": ${JSON.stringify(workflow)}`,
    `  "waves": ${list(waves)}`,
    `  "pairs": ${list(pairs)}`,
    `  "totals": ${JSON.stringify(totals)}`,
    // Any field added to PlanJson later still comes out.
    ...Object.entries(rest).map(([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value)}`),
  ];
  return `{\n${lines.join(",\n")}\n}\n`;
}

const MAX_DETAILS = 3;

/** One line of reasons: `prompt: prompt.task changed; upstream: g_test will run`. */
export function reasonsText(pair: PlannedPair): string {
  if (pair.action === "skip") {
    if (pair.artifact?.source === "workspace") return "output edited by hand; kept as accepted (delete the file to regenerate it)";
    if (pair.artifact?.edited) return "unchanged (output edited by hand; kept as accepted)";
    return pair.artifact?.source === "remote" ? "unchanged (accepted artifact in the remote store)" : "unchanged";
  }
  const shown = pair.reasons.slice(0, MAX_DETAILS).map((r) => (r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`));
  const more = pair.reasons.length - shown.length;
  return shown.join("; ") + (more > 0 ? `; and ${more} more` : "");
}

/** The plan by wave; with an estimate, followed by it. */
export function planText(plan: Plan, style: Style, cwd = process.cwd(), estimate?: PlanEstimate): string {
  const t = totals(plan);
  const lines: string[] = [];
  const where = displayPath(plan.workflow.path, cwd);
  lines.push(style.bold(`Plan for "${plan.workflow.name}"`) + style.dim(` (${where}): ${count(t.pairs, "pair")} in ${count(plan.graph.waves.length, "wave")}`));
  const width = Math.min(40, Math.max(...plan.pairs.map((p) => p.id.length)));
  let wave = 0;
  for (const p of plan.pairs) {
    if (p.wave !== wave) {
      wave = p.wave;
      lines.push("", style.bold(`Wave ${wave}`));
    }
    const action = p.action === "run" ? style.yellow("run ") : style.green("skip");
    lines.push(`  ${action}  ${p.id.padEnd(width)}  ${style.dim(shortRef(p.configRef).padEnd(12))}  ${reasonsText(p)}`);
  }
  lines.push("", style.bold(`${t.run} to run, ${t.skip} unchanged`));
  if (estimate && estimate.pairs.length > 0) lines.push("", estimateText(estimate, style).trimEnd());
  return lines.join("\n") + "\n";
}

export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
