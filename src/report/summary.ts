/**
 * The plan and the run as Markdown for GitHub, what matters first: the headline, failed pairs and
 * what the next run re-runs, the root causes (each change with the pairs it cascades to, as one
 * entry), a Mermaid graph of the affected pairs only, then the long parts collapsed (estimates, the
 * table of all pairs). Pure functions over the plan and run report, so the action's job summary and
 * a pull-request comment draw the same thing; each piece takes a size budget, since GitHub caps what
 * it shows (1 MiB for a step summary, 65,536 characters for a comment, 50,000 characters and 500
 * edges for a Mermaid diagram).
 */
import { spendLine } from "./spend.js";
import type { ConfigIssue } from "../model/errors.js";
import { totals } from "../plan/plan.js";
import { type Plan, type Reason } from "../model/plan.js";
import { fenceFor } from "../prompt/render.js";
import { shortRef } from "../refs/hash.js";
import type { RunReport } from "../model/run.js";
import { reasonsText, withoutCallsText } from "./plan.js";
import { seconds } from "./run.js";
import { affectedSubgraph, causeGroups, failuresFirst, GRAPH_NODE_LIMIT, UNCHANGED, type CauseGroup, type ImpactNode } from "./impact.js";
import { visible } from "./visible.js";

/** GitHub refuses a step summary of more than 1 MiB; this leaves room for anything written beside it. */
export const STEP_SUMMARY_LIMIT = 1024 * 1024 - 16 * 1024;
/** What GitHub's Mermaid renderer accepts (its maxTextSize and maxEdges). */
export const MERMAID_MAX_CHARS = 50_000;
export const MERMAID_MAX_EDGES = 500;
const FEEDBACK_MAX_CHARS = 8_000;

/** One pair as the summary shows it. */
export interface SummaryRow {
  id: string;
  requires: string[];
  /** `run` or `skip` in a plan; `executed`, `reused`, `failed`, `blocked` or `interrupted` after a run. */
  status: string;
  /** Why it runs, or what became of it, in one line. */
  reasons: string;
  /** The planner's reasons, for grouping by root cause; empty for pairs that do not run. */
  why: Reason[];
  configRef: string | null;
  /** Unknown before a run: null. */
  attempts: number | null;
  durationMs: number | null;
  tokens: number | null;
}

/**
 * How each status is drawn. Colour is never the only sign: failed and blocked pairs also have a
 * shape and a marker of their own, and every marker is named in the legend.
 */
const STATUS_STYLE: Record<string, { fill: string; stroke: string; colour: string; marker: string; shape: "box" | "hexagon" | "stadium"; width: number }> = {
  failed: { fill: "#ff8182", stroke: "#a40e26", colour: "red", marker: "✖ FAILED", shape: "hexagon", width: 4 },
  blocked: { fill: "#ffd8b5", stroke: "#bc4c00", colour: "orange", marker: "⊘ blocked", shape: "stadium", width: 2 },
  interrupted: { fill: "#fff8c5", stroke: "#9a6700", colour: "yellow", marker: "⏸ interrupted", shape: "stadium", width: 2 },
  executed: { fill: "#dafbe1", stroke: "#1a7f37", colour: "green", marker: "✔", shape: "box", width: 1 },
  run: { fill: "#fff8c5", stroke: "#9a6700", colour: "yellow", marker: "▶", shape: "box", width: 1 },
  reused: { fill: "#f6f8fa", stroke: "#8c959f", colour: "grey", marker: "", shape: "box", width: 1 },
  skip: { fill: "#f6f8fa", stroke: "#8c959f", colour: "grey", marker: "", shape: "box", width: 1 },
};

// ---------------------------------------------------------------------------------------------
// Rows

/**
 * A plan's rows. `notes` replaces the reasons of some pairs (the action says "in the GitHub Actions
 * cache" for pairs it found there).
 */
export function planRows(plan: Plan, notes: ReadonlyMap<string, string> = new Map()): SummaryRow[] {
  return plan.pairs.map((p) => ({
    id: p.id,
    requires: p.requires,
    status: p.action,
    reasons: notes.get(p.id) ?? reasonsText(p),
    why: p.action === "run" ? p.reasons : [],
    configRef: p.configRef,
    attempts: null,
    durationMs: null,
    tokens: null,
  }));
}

/** A run's rows, in the plan's order, for the pairs the run considered. */
export function runRows(plan: Plan, report: RunReport): SummaryRow[] {
  const outcomes = new Map(report.pairs.map((o) => [o.id, o]));
  const rows: SummaryRow[] = [];
  for (const p of plan.pairs) {
    const o = outcomes.get(p.id);
    if (!o) continue;
    const ran = o.attempts.length > 0;
    const reasons =
      o.status === "reused"
        ? (o.note ?? "unchanged")
        : o.status === "blocked" || o.status === "interrupted"
          ? (o.note ?? "")
          : reasonsText({ ...p, action: "run", reasons: o.reasons });
    rows.push({
      id: o.id,
      requires: p.requires,
      status: o.status,
      reasons,
      why: o.status === "reused" ? [] : o.reasons,
      configRef: o.configRef,
      attempts: o.attempts.length,
      durationMs: ran ? o.durationMs : null,
      tokens: ran ? o.attempts.reduce((n, a) => n + (a.tokens ? a.tokens.input + a.tokens.output : 0), 0) : null,
    });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Table

/**
 * The table of pairs, in plan order. When all rows do not fit in `maxBytes`, the pairs that run,
 * ran, failed or were blocked are listed first, then unchanged ones while there is room, and a
 * note says how many were left out.
 */
export function planTableMarkdown(rows: SummaryRow[], maxBytes = Infinity): string {
  const head = "| pair | action | reasons | ref | attempts | duration | tokens |\n| --- | --- | --- | --- | --- | --- | --- |\n";
  const lines = rows.map(tableRow);
  const all = head + lines.join("");
  if (bytes(all) <= maxBytes) return all;

  const order = rows.map((r, i) => i).sort((a, b) => Number(UNCHANGED.has(rows[a]!.status)) - Number(UNCHANGED.has(rows[b]!.status)) || a - b);
  const noteRoom = 400;
  let used = bytes(head) + noteRoom;
  const kept = new Set<number>();
  for (const i of order) {
    const size = bytes(lines[i]!);
    if (used + size > maxBytes) break;
    kept.add(i);
    used += size;
  }
  const left = rows.filter((_, i) => !kept.has(i));
  const unchanged = left.filter((r) => UNCHANGED.has(r.status)).length;
  const what = unchanged === left.length ? ` (all ${rows.some((r) => r.status === "reused") ? "reused" : "unchanged"})` : "";
  const note = `\n_${number(left.length)} of ${number(rows.length)} pairs not shown${what}: GitHub limits the size of this page._\n`;
  return (
    head +
    order
      .filter((i) => kept.has(i))
      .map((i) => lines[i])
      .join("") +
    note
  );
}

function tableRow(r: SummaryRow): string {
  const cells = [
    `\`${r.id}\``,
    r.status,
    cell(r.reasons),
    r.configRef === null ? "?" : `\`${shortRef(r.configRef)}\``,
    r.attempts === null ? "–" : String(r.attempts),
    r.durationMs === null ? "–" : seconds(r.durationMs),
    r.tokens === null ? "–" : number(r.tokens),
  ];
  return `| ${cells.join(" | ")} |\n`;
}

/** Text that stays inside one table cell and is shown as written. */
function cell(text: string): string {
  return escapeHtml(text)
    .replace(/\|/g, "\\|")
    .replace(/\s*\n\s*/g, " ");
}

// ---------------------------------------------------------------------------------------------
// Root causes

/** The rows grouped by root cause (see ./impact.ts), failed causes first. */
export function rowGroups(rows: SummaryRow[]): CauseGroup[] {
  return failuresFirst(causeGroups(rows.map(impactNode)));
}

function impactNode(r: SummaryRow): ImpactNode {
  return { id: r.id, requires: r.requires, status: r.status, reasons: r.why };
}

export interface CausesOptions {
  /** Show each root's status (a run's outcome); a plan's are all `run`. */
  status?: boolean;
  /** At most this many entries; the rest are counted. */
  maxEntries?: number;
  /** Where the rest can be read, when some are left out. */
  pointer?: string;
}

const MAX_CASCADE_IDS = 5;

/**
 * One row per root cause: the pair, why, and the pairs it brings along (counted, the first few
 * named). Reasons are the planner's, in the same words as everywhere else.
 */
export function causesMarkdown(rows: SummaryRow[], options: CausesOptions = {}): string {
  const groups = rowGroups(rows);
  if (groups.length === 0) return "";
  const byId = new Map(rows.map((r) => [r.id, r]));
  const max = options.maxEntries ?? Infinity;
  const head = options.status ? "| cause | outcome | why | with it |\n| --- | --- | --- | --- |\n" : "| cause | why | with it |\n| --- | --- | --- |\n";
  const lines = groups.slice(0, max).map((g) => {
    const row = byId.get(g.root.id)!;
    const cells = [`\`${g.root.id}\``, ...(options.status ? [statusText(g.root.status)] : []), cell(row.reasons), cascadeCell(g.cascade, byId)];
    return `| ${cells.join(" | ")} |\n`;
  });
  const more = groups.length - lines.length;
  const rest = more > 0 ? `\n_…and ${number(more)} more ${more === 1 ? "cause" : "causes"}${options.pointer ? `; ${options.pointer}` : ""}._\n` : "";
  return head + lines.join("") + rest;
}

function cascadeCell(ids: string[], byId: ReadonlyMap<string, SummaryRow>): string {
  if (ids.length === 0) return "–";
  const statuses = new Map<string, number>();
  for (const id of ids) statuses.set(byId.get(id)!.status, (statuses.get(byId.get(id)!.status) ?? 0) + 1);
  const counts = statuses.size > 1 ? ` (${[...statuses].map(([s, n]) => `${number(n)} ${s}`).join(", ")})` : "";
  const named = ids.slice(0, MAX_CASCADE_IDS).map((id) => `\`${id}\``);
  const more = ids.length - named.length;
  return `${number(ids.length)} ${ids.length === 1 ? "pair" : "pairs"}${counts}: ${named.join(", ")}${more > 0 ? ` and ${number(more)} more` : ""}`;
}

/** A status with its marker, as the graph draws it: `✖ failed`, `✔ executed`. */
function statusText(status: string): string {
  const symbol = symbolOf(statusClass(status));
  return symbol ? `${symbol} ${status}` : status;
}

function symbolOf(status: string): string {
  return STATUS_STYLE[status]!.marker.split(" ")[0]!;
}

// ---------------------------------------------------------------------------------------------
// Graph

export interface GraphNode {
  id: string;
  requires: string[];
  status: string;
  /** The planner's reasons, to tell root causes from cascades when not all affected pairs fit. */
  reasons?: Reason[];
}

export interface GraphLimits {
  maxChars?: number;
  maxEdges?: number;
  /** At most this many pairs are drawn (GRAPH_NODE_LIMIT). */
  maxNodes?: number;
}

export interface MermaidGraph {
  /** The diagram's text (without the ```mermaid fence), or null when none fits. */
  text: string | null;
  /** The pairs drawn. */
  drawn: GraphNode[];
  /** What was left out, and why; null when the whole DAG is drawn. */
  note: string | null;
}

/**
 * The affected subgraph as a Mermaid flowchart, left to right, each pair coloured and marked by its
 * status. A workflow within the node limit is drawn whole; a larger one only its affected pairs
 * (not skip or reused), failed ones and root causes first, at most the node limit, with a note of
 * how many were left out.
 */
export function mermaidGraph(nodes: GraphNode[], limits: GraphLimits = {}): MermaidGraph {
  const maxChars = limits.maxChars ?? MERMAID_MAX_CHARS;
  const maxEdges = limits.maxEdges ?? MERMAID_MAX_EDGES;
  if (nodes.length === 0) return { text: null, drawn: [], note: "No pairs to draw." };
  const affected = nodes.filter((n) => !UNCHANGED.has(n.status)).length;
  if (nodes.length > (limits.maxNodes ?? GRAPH_NODE_LIMIT) && affected === 0) {
    return { text: null, drawn: [], note: `Nothing is affected: the ${number(nodes.length)} pairs are not drawn.` };
  }
  // Fewer pairs until the text fits what GitHub draws (long ids can make even a few too long).
  for (let limit = limits.maxNodes ?? GRAPH_NODE_LIMIT; limit >= 1; limit = Math.floor(limit / 2)) {
    const sub = affectedSubgraph(
      nodes.map((n) => ({ ...n, reasons: n.reasons ?? [] })),
      limit,
    );
    const chart = flowchart(sub.nodes);
    if (chart.text === null || chart.text.length > maxChars || chart.edges > maxEdges) continue;
    const drawn = sub.nodes.map((n) => nodes.find((m) => m.id === n.id)!);
    const left: string[] = [];
    if (sub.omittedAffected > 0) left.push(`${number(sub.omittedAffected)} more affected`);
    if (sub.unchanged > 0) left.push(`${number(sub.unchanged)} unchanged`);
    const note =
      left.length === 0
        ? null
        : `Drawn: ${number(drawn.length)} of the ${number(affected)} affected pairs` +
          (sub.omittedAffected > 0 ? " (failed pairs and root causes first)" : "") +
          `; not drawn: ${left.join(" and ")} ${sub.omittedAffected + sub.unchanged === 1 ? "pair" : "pairs"}.`;
    return { text: chart.text, drawn, note };
  }
  return { text: null, drawn: [], note: `No graph: even one pair's label is more than GitHub draws (${number(maxChars)} characters).` };
}

function flowchart(nodes: GraphNode[]): { text: string | null; edges: number } {
  if (nodes.length === 0) return { text: null, edges: 0 };
  const index = new Map(nodes.map((n, i) => [n.id, `p${i}`]));
  const lines = ["flowchart LR"];
  for (const n of nodes) lines.push(`  ${index.get(n.id)}${shape(n)}`);
  let edges = 0;
  for (const n of nodes) {
    for (const dep of n.requires) {
      const from = index.get(dep);
      if (from === undefined) continue; // not drawn
      lines.push(`  ${from} --> ${index.get(n.id)}`);
      edges++;
    }
  }
  const byStatus = new Map<string, string[]>();
  for (const n of nodes) {
    const status = statusClass(n.status);
    byStatus.set(status, [...(byStatus.get(status) ?? []), index.get(n.id)!]);
  }
  for (const [status, ids] of byStatus) {
    const style = STATUS_STYLE[status]!;
    lines.push(`  classDef ${status} fill:${style.fill},stroke:${style.stroke},stroke-width:${style.width}px,color:#1f2328`);
    lines.push(`  class ${ids.join(",")} ${status}`);
  }
  return { text: lines.join("\n") + "\n", edges };
}

/** A node's shape and label: failed pairs are hexagons, blocked and interrupted ones stadiums, each marked in words. */
function shape(n: GraphNode): string {
  const style = STATUS_STYLE[statusClass(n.status)]!;
  const text = `"${style.marker ? `${style.marker} ` : ""}${label(n.id)}"`;
  return style.shape === "hexagon" ? `{{${text}}}` : style.shape === "stadium" ? `([${text}])` : `[${text}]`;
}

/** Mermaid class names are the statuses it knows; anything else is drawn like `run`. */
function statusClass(status: string): string {
  return Object.hasOwn(STATUS_STYLE, status) ? status : "run";
}

/** Text inside a quoted Mermaid label: a double quote would end it. */
function label(text: string): string {
  return text.replace(/"/g, "#quot;");
}

/** The graph as Markdown: the fenced diagram, its legend, and the note of what was left out. */
export function graphMarkdown(nodes: GraphNode[], limits: GraphLimits = {}): string {
  const graph = mermaidGraph(nodes, limits);
  return [
    ...(graph.text !== null ? ["```mermaid\n" + graph.text + "```", graphLegend(graph.drawn)] : []),
    ...(graph.note !== null ? [`_${graph.note}_`] : []),
  ].join("\n\n");
}

/** A line naming the colour, shape and marker of each status present, since colour alone says nothing to some readers. */
export function graphLegend(nodes: GraphNode[]): string {
  const present = Object.keys(STATUS_STYLE).filter((s) => nodes.some((n) => statusClass(n.status) === s));
  return present
    .map((s) => {
      const style = STATUS_STYLE[s]!;
      const form = style.shape === "hexagon" ? " hexagon" : style.shape === "stadium" ? " rounded" : "";
      const symbol = symbolOf(s);
      return `${symbol ? `${symbol} ` : ""}${style.colour}${form}: ${s}`;
    })
    .join(" · ");
}

// ---------------------------------------------------------------------------------------------
// Failed pairs

/** Each failed pair's last feedback, collapsed; at most `maxBytes`, with a note when some are left out. */
export function failedDetailsMarkdown(report: RunReport, maxBytes = Infinity, blocks: ReadonlyMap<string, number> = new Map()): string {
  const failed = report.pairs.filter((p) => p.status === "failed");
  let out = "";
  let shown = 0;
  for (const p of failed) {
    const last = p.attempts[p.attempts.length - 1];
    // Control characters made visible, as on a terminal (visible).
    const feedback = clip(visible(last?.feedback || p.note || "(no feedback)"), FEEDBACK_MAX_CHARS);
    const fence = fenceFor(feedback);
    const first = visible((p.note ?? "failed").split("\n")[0]!);
    const headline = escapeHtml(first.length > 200 ? `${first.slice(0, 200)}…` : first);
    const blocked = blocks.get(p.id) ?? 0;
    const blocking = blocked > 0 ? ` (blocked ${number(blocked)} ${blocked === 1 ? "pair" : "pairs"})` : "";
    const block = `<details><summary>✖ <code>${escapeHtml(p.id)}</code>${blocking}: ${headline}</summary>\n\n${fence}text\n${feedback}\n${fence}\n\n</details>\n\n`;
    if (bytes(out) + bytes(block) > maxBytes - 200) break;
    out += block;
    shown++;
  }
  if (shown < failed.length) out += `_${number(failed.length - shown)} more failed pairs not shown: GitHub limits the size of this page._\n`;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Whole summaries

/** A part collapsed under a one-line title: the long tables a reader opens when they need them. */
export interface Collapsible {
  title: string;
  body: string;
}

export interface SummaryOptions {
  /** Lines under the headline, e.g. what the cache did. */
  extra?: string[];
  /** The estimated cost, in the headline: "$0.42", "cost unknown". */
  cost?: string;
  /** Collapsed after the graph, before the table of all pairs (estimates). */
  collapsed?: Collapsible[];
  maxBytes?: number;
}

/** The job summary of `mode: plan`. `notes` as in planRows. */
export function planSummaryMarkdown(plan: Plan, options: SummaryOptions & { notes?: ReadonlyMap<string, string> } = {}): string {
  const t = totals(plan);
  const cost = options.cost !== undefined && t.run > 0 ? ` · ${options.cost.startsWith("$") ? `estimated cost ${options.cost}` : options.cost}` : "";
  const head = [
    `## pairflow plan: ${escapeHtml(plan.workflow.name)}`,
    "",
    `**${number(t.run)} of ${number(t.pairs)} pairs to run**${withoutCallsText(plan.pairs)}${cost} · ${number(t.skip)} unchanged · ${number(plan.graph.waves.length)} waves`,
    ...staleLines(plan),
    ...(options.extra ?? []),
    "",
  ].join("\n");
  const rows = planRows(plan, options.notes);
  return compose(head, rows, [], options, "What will run, by cause");
}

/** The job summary of `mode: run`. */
export function runSummaryMarkdown(plan: Plan, report: RunReport, options: SummaryOptions = {}): string {
  const maxBytes = options.maxBytes ?? STEP_SUMMARY_LIMIT;
  const t = report.totals;
  const tokens = t.tokens.input + t.tokens.output;
  const verdict = report.status === "success" ? "succeeded" : report.status;
  const head = [
    `## pairflow run: ${escapeHtml(plan.workflow.name)} ${verdict}`,
    "",
    `**${number(t.pairs)} pairs**: ${number(t.executed)} executed, ${number(t.reused)} reused, ${number(t.failed)} failed, ${number(t.blocked)} blocked` +
      ` · ${number(tokens)} tokens · ${seconds(t.durationMs)} · run \`${report.runId}\``,
    ...(report.spend ? ["", `${capitalize(spendLine(report.spend))}.`] : []),
    ...staleLines(plan),
    ...(report.sandbox && !report.sandbox.confined
      ? [
          "",
          `> [!WARNING]\n> Commands ran without a sandbox: ${escapeHtml(report.sandbox.reason ?? "")}. A guard running code a model wrote could read the job's tokens (see pairflow's docs/security.md).`,
        ]
      : []),
    ...(options.extra ?? []),
    "",
  ].join("\n");
  const rows = runRows(plan, report);
  const first: string[] = [];
  const again = rows.filter((r) => r.status === "failed" || r.status === "blocked" || r.status === "interrupted");
  if (t.failed > 0) {
    const blocks = blockedBy(rows);
    first.push(`### Failed (${number(t.failed)})\n\n${rerunLine(again)}\n\n${failedDetailsMarkdown(report, Math.floor(maxBytes / 4), blocks)}`);
  } else if (again.length > 0) {
    first.push(`### Not finished (${number(again.length)})\n\n${rerunLine(again)}`);
  }
  return compose(head, rows, first, { ...options, maxBytes }, "What ran, by cause");
}

/** What the next run will execute again: every failed, blocked and interrupted pair. */
function rerunLine(again: SummaryRow[]): string {
  const by = (s: string) => again.filter((r) => r.status === s).length;
  const parts = [
    [by("failed"), "failed"],
    [by("blocked"), "blocked"],
    [by("interrupted"), "interrupted"],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, s]) => `${number(n as number)} ${s}`);
  return `**The next run re-runs ${number(again.length)} ${again.length === 1 ? "pair" : "pairs"}**: ${parts.join(", ")}.`;
}

/** For each failed pair, how many blocked pairs are downstream of it. */
function blockedBy(rows: SummaryRow[]): Map<string, number> {
  const dependents = new Map<string, string[]>();
  for (const r of rows) for (const dep of r.requires) dependents.set(dep, [...(dependents.get(dep) ?? []), r.id]);
  const status = new Map(rows.map((r) => [r.id, r.status]));
  const out = new Map<string, number>();
  for (const r of rows.filter((r) => r.status === "failed")) {
    const seen = new Set<string>();
    const queue = [...(dependents.get(r.id) ?? [])];
    while (queue.length > 0) {
      const id = queue.pop()!;
      if (seen.has(id) || status.get(id) !== "blocked") continue;
      seen.add(id);
      queue.push(...(dependents.get(id) ?? []));
    }
    out.set(r.id, seen.size);
  }
  return out;
}

/** Causes are listed up to this many; each is one line, so this stays a screen or two. */
const MAX_CAUSES = 50;

/**
 * Head, what comes first (failed pairs), the root causes, the graph of the affected pairs, the
 * collapsed parts, then the table of all pairs, collapsed too, which is the long part and gets
 * what room the others leave.
 */
function compose(head: string, rows: SummaryRow[], first: string[], options: SummaryOptions, causesTitle: string): string {
  const maxBytes = options.maxBytes ?? STEP_SUMMARY_LIMIT;
  const run = rows.some((r) => r.attempts !== null);
  const causes = causesMarkdown(rows, { status: run, maxEntries: MAX_CAUSES, pointer: "every pair is in the table below" });
  const parts = [head, ...first];
  if (causes) parts.push(`### ${causesTitle}\n\n${causes}`);
  parts.push(`### Graph\n\n${graphMarkdown(rows.map((r) => ({ id: r.id, requires: r.requires, status: r.status, reasons: r.why })))}`);
  for (const c of options.collapsed ?? []) if (c.body.trim()) parts.push(collapsed(c.title, c.body));
  const kept = parts.map((p) => p.trim()).filter((p) => p !== "");
  const tableTitle = `All ${number(rows.length)} pairs`;
  const room = maxBytes - kept.reduce((n, p) => n + bytes(p) + 2, 0) - bytes(collapsed(tableTitle, "")) - 1;
  return [...kept, collapsed(tableTitle, planTableMarkdown(rows, room))].join("\n\n") + "\n";
}

/** Markdown inside `<details>`: the blank line after the summary lets GitHub render tables in it. */
export function collapsed(title: string, body: string): string {
  return `<details><summary>${escapeHtml(title)}</summary>\n\n${body.trim()}\n\n</details>`;
}

/** Configuration problems, each at its file:line:column, as the CLI prints them. */
export function configErrorsMarkdown(issues: ConfigIssue[], maxBytes = STEP_SUMMARY_LIMIT): string {
  const files = new Set(issues.map((i) => i.file)).size;
  let out = `## pairflow: ${number(issues.length)} configuration ${issues.length === 1 ? "problem" : "problems"} in ${number(files)} ${files === 1 ? "file" : "files"}\n\n`;
  // Counted as it grows: measuring the whole page again for each line made many problems quadratic.
  let size = bytes(out);
  for (const [i, issue] of issues.entries()) {
    const line = `- \`${issue.file}:${issue.line}:${issue.column}\` ${escapeHtml(issue.key ? `${issue.key}: ${issue.message}` : issue.message)}\n`;
    size += bytes(line);
    if (size > maxBytes - 200) {
      out += `\n_${number(issues.length - i)} more not shown: GitHub limits the size of this page._\n`;
      break;
    }
    out += line;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function number(n: number): string {
  return n.toLocaleString("en-US");
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${number(text.length - max)} more characters)`;
}

/** Shown as written: GitHub would otherwise take `<tag>` in a pair's feedback for HTML. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The pairs whose hand edits are kept though their sources changed: listed every time, until dealt with. */
function staleLines(plan: Plan): string[] {
  const stale = plan.pairs.filter((p) => p.stale).map((p) => `\`${escapeHtml(p.id)}\``);
  if (stale.length === 0) return [];
  const shown = stale.length > 20 ? [...stale.slice(0, 20), `and ${number(stale.length - 20)} more`] : stale;
  return ["", `> [!NOTE]\n> A person's edits are kept though their sources changed since (\`carry_edits: true\` carries them forward): ${shown.join(", ")}.`];
}
