/**
 * The plan and the run as Markdown for GitHub: a table of pairs, a Mermaid graph of the DAG coloured
 * by status, and the last feedback of failed pairs. Pure functions over the plan and run report, so
 * the action's job summary and a pull-request comment draw the same thing; each piece takes a size
 * budget, since GitHub caps what it shows (1 MiB for a step summary, 65,536 characters for a comment,
 * 50,000 characters and 500 edges for a Mermaid diagram).
 */
import type { ConfigIssue } from "../model/errors.js";
import { totals } from "../plan/plan.js";
import { type Plan } from "../model/plan.js";
import { fenceFor } from "../prompt/render.js";
import { shortRef } from "../refs/hash.js";
import type { RunReport } from "../model/run.js";
import { reasonsText } from "./plan.js";
import { seconds } from "./run.js";

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
  configRef: string | null;
  /** Unknown before a run: null. */
  attempts: number | null;
  durationMs: number | null;
  tokens: number | null;
}

/** Statuses that change nothing: drawn grey, and dropped first when a graph or table is too large. */
const UNCHANGED = new Set(["skip", "reused"]);

const STATUS_STYLE: Record<string, { fill: string; stroke: string; colour: string }> = {
  executed: { fill: "#dafbe1", stroke: "#1a7f37", colour: "green" },
  reused: { fill: "#f6f8fa", stroke: "#8c959f", colour: "grey" },
  failed: { fill: "#ffebe9", stroke: "#cf222e", colour: "red" },
  blocked: { fill: "#fff1e5", stroke: "#bc4c00", colour: "orange" },
  interrupted: { fill: "#fff8c5", stroke: "#9a6700", colour: "yellow" },
  run: { fill: "#fff8c5", stroke: "#9a6700", colour: "yellow" },
  skip: { fill: "#f6f8fa", stroke: "#8c959f", colour: "grey" },
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
// Graph

export interface GraphNode {
  id: string;
  requires: string[];
  status: string;
}

export interface MermaidGraph {
  /** The diagram's text (without the ```mermaid fence), or null when none fits. */
  text: string | null;
  /** What was left out, and why; null when the whole DAG is drawn. */
  note: string | null;
}

/**
 * The DAG as a Mermaid flowchart, left to right, each pair coloured by its status. When the whole
 * DAG is more than Mermaid draws, only the pairs whose status is not unchanged (skip, reused) are
 * drawn; when even that is too much, no graph.
 */
export function mermaidGraph(nodes: GraphNode[], limits: { maxChars?: number; maxEdges?: number } = {}): MermaidGraph {
  const maxChars = limits.maxChars ?? MERMAID_MAX_CHARS;
  const maxEdges = limits.maxEdges ?? MERMAID_MAX_EDGES;
  const fits = (text: string | null, edges: number): text is string => text !== null && text.length <= maxChars && edges <= maxEdges;

  if (nodes.length === 0) return { text: null, note: "No pairs to draw." };
  const full = flowchart(nodes);
  if (fits(full.text, full.edges)) return { text: full.text, note: null };
  const changed = nodes.filter((n) => !UNCHANGED.has(n.status));
  const omitted = nodes.length - changed.length;
  const tooLarge = `${number(nodes.length)} pairs and ${number(full.edges)} dependencies are more than GitHub draws (${number(maxEdges)} edges, ${number(maxChars)} characters)`;
  if (changed.length > 0 && omitted > 0) {
    const focused = flowchart(changed);
    if (fits(focused.text, focused.edges)) {
      return {
        text: focused.text,
        note: `${tooLarge}: only the ${number(changed.length)} pairs that are not unchanged are drawn, without the ${number(omitted)} others.`,
      };
    }
  }
  return { text: null, note: `No graph: ${tooLarge}.` };
}

function flowchart(nodes: GraphNode[]): { text: string | null; edges: number } {
  if (nodes.length === 0) return { text: null, edges: 0 };
  const index = new Map(nodes.map((n, i) => [n.id, `p${i}`]));
  const lines = ["flowchart LR"];
  for (const n of nodes) lines.push(`  ${index.get(n.id)}["${label(n.id)}"]`);
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
    lines.push(`  classDef ${status} fill:${style.fill},stroke:${style.stroke},color:#1f2328`);
    lines.push(`  class ${ids.join(",")} ${status}`);
  }
  return { text: lines.join("\n") + "\n", edges };
}

/** Mermaid class names are the statuses it knows; anything else is drawn like `run`. */
function statusClass(status: string): string {
  return Object.hasOwn(STATUS_STYLE, status) ? status : "run";
}

/** Text inside a quoted Mermaid label: a double quote would end it. */
function label(text: string): string {
  return text.replace(/"/g, "#quot;");
}

/** The graph as Markdown: the fenced diagram and its legend, and the note of what was left out. */
export function graphMarkdown(nodes: GraphNode[], limits: { maxChars?: number; maxEdges?: number } = {}): string {
  const graph = mermaidGraph(nodes, limits);
  const drawn = graph.note === null ? nodes : nodes.filter((n) => !UNCHANGED.has(n.status));
  return [...(graph.text !== null ? ["```mermaid\n" + graph.text + "```", graphLegend(drawn)] : []), ...(graph.note !== null ? [`_${graph.note}_`] : [])].join(
    "\n\n",
  );
}

/** A line naming the colours of the statuses present, since colour alone says nothing to some readers. */
export function graphLegend(nodes: GraphNode[]): string {
  const present = [...new Set(nodes.map((n) => statusClass(n.status)))];
  return present.map((s) => `${STATUS_STYLE[s]!.colour}: ${s}`).join(" · ");
}

// ---------------------------------------------------------------------------------------------
// Failed pairs

/** Each failed pair's last feedback, collapsed; at most `maxBytes`, with a note when some are left out. */
export function failedDetailsMarkdown(report: RunReport, maxBytes = Infinity): string {
  const failed = report.pairs.filter((p) => p.status === "failed");
  let out = "";
  let shown = 0;
  for (const p of failed) {
    const last = p.attempts[p.attempts.length - 1];
    const feedback = clip(last?.feedback || p.note || "(no feedback)", FEEDBACK_MAX_CHARS);
    const fence = fenceFor(feedback);
    const first = (p.note ?? "failed").split("\n")[0]!;
    const headline = escapeHtml(first.length > 200 ? `${first.slice(0, 200)}…` : first);
    const block = `<details><summary><code>${escapeHtml(p.id)}</code>: ${headline}</summary>\n\n${fence}text\n${feedback}\n${fence}\n\n</details>\n\n`;
    if (bytes(out) + bytes(block) > maxBytes - 200) break;
    out += block;
    shown++;
  }
  if (shown < failed.length) out += `_${number(failed.length - shown)} more failed pairs not shown: GitHub limits the size of this page._\n`;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Whole summaries

/** The job summary of `mode: plan`. `notes` as in planRows. */
export function planSummaryMarkdown(plan: Plan, options: { notes?: ReadonlyMap<string, string>; extra?: string[]; maxBytes?: number } = {}): string {
  const t = totals(plan);
  const head = [
    `## pairflow plan: ${escapeHtml(plan.workflow.name)}`,
    "",
    `**${number(t.pairs)} pairs** in ${number(plan.graph.waves.length)} waves: **${number(t.run)} to run**, ${number(t.skip)} unchanged.`,
    ...(options.extra ?? []),
    "",
  ].join("\n");
  const rows = planRows(plan, options.notes);
  return compose(head, rows, "", options.maxBytes ?? STEP_SUMMARY_LIMIT);
}

/** The job summary of `mode: run`. */
export function runSummaryMarkdown(plan: Plan, report: RunReport, options: { extra?: string[]; maxBytes?: number } = {}): string {
  const maxBytes = options.maxBytes ?? STEP_SUMMARY_LIMIT;
  const t = report.totals;
  const tokens = t.tokens.input + t.tokens.output;
  const verdict = report.status === "success" ? "succeeded" : report.status;
  const head = [
    `## pairflow run: ${escapeHtml(plan.workflow.name)} ${verdict}`,
    "",
    `**${number(t.pairs)} pairs**: ${number(t.executed)} executed, ${number(t.reused)} reused, ${number(t.failed)} failed, ${number(t.blocked)} blocked` +
      ` · ${number(tokens)} tokens · ${seconds(t.durationMs)} · run \`${report.runId}\``,
    ...(options.extra ?? []),
    "",
  ].join("\n");
  const details = t.failed > 0 ? `### Failed pairs\n\n${failedDetailsMarkdown(report, Math.floor(maxBytes / 4))}` : "";
  return compose(head, runRows(plan, report), details, maxBytes);
}

/**
 * Head, failed pairs (collapsed), graph, then the table, which is the long part and gets what
 * room the others leave.
 */
function compose(head: string, rows: SummaryRow[], details: string, maxBytes: number): string {
  const graphPart = `### Graph\n\n${graphMarkdown(rows)}`;
  const tableHead = "### Pairs\n\n";
  const parts = [head, details, graphPart].map((p) => p.trim()).filter((p) => p !== "");
  const room = maxBytes - parts.reduce((n, p) => n + bytes(p) + 2, 0) - bytes(tableHead) - 1;
  return [...parts, tableHead + planTableMarkdown(rows, room).trimEnd()].join("\n\n") + "\n";
}

/** Configuration problems, each at its file:line:column, as the CLI prints them. */
export function configErrorsMarkdown(issues: ConfigIssue[], maxBytes = STEP_SUMMARY_LIMIT): string {
  const files = new Set(issues.map((i) => i.file)).size;
  let out = `## pairflow: ${number(issues.length)} configuration ${issues.length === 1 ? "problem" : "problems"} in ${number(files)} ${files === 1 ? "file" : "files"}\n\n`;
  for (const [i, issue] of issues.entries()) {
    const line = `- \`${issue.file}:${issue.line}:${issue.column}\` ${escapeHtml(issue.key ? `${issue.key}: ${issue.message}` : issue.message)}\n`;
    if (bytes(out) + bytes(line) > maxBytes - 200) {
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
