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
import { NOT_REPORTED, pacingLine, reportedTokens, seconds } from "./run.js";
import { failureHeadline } from "./failure.js";
import { affectedSubgraph, GRAPH_NODE_LIMIT, isAffected, UNCHANGED } from "./impact.js";
import {
  append,
  blockedBy,
  causeExtent,
  causesOf,
  nameIn,
  plural,
  reach,
  planNodes,
  rootsDiffer,
  runNodes,
  waveRange,
  wavesText,
  type Cause,
  type CauseNode,
  type CauseRoot,
} from "./causes.js";
import { code, md } from "./markdown.js";
import { nameFor } from "./names.js";
import { visible } from "./visible.js";
import { grouped } from "../model/text.js";

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
      tokens: ran ? tokensOf(o.attempts) : null,
    });
  }
  return rows;
}

/** What the attempts used as their generators reported it; null when none did. */
function tokensOf(attempts: RunReport["pairs"][number]["attempts"]): number | null {
  const tokens = reportedTokens(attempts);
  return tokens === null ? null : tokens.input + tokens.output;
}

// ---------------------------------------------------------------------------------------------
// Table

/**
 * The table of pairs, in plan order, four columns at most so it fits GitHub's column: a plan's
 * `pair | action | reasons | ref`; a run's `pair | status | reasons | time`, with each pair's
 * attempts, tokens and reference in a collapsed table under it. When all rows do not fit in
 * `maxBytes`, the pairs that run, ran, failed or were blocked are listed first, then unchanged ones
 * while there is room, and a note says how many were left out.
 */
export function planTableMarkdown(rows: SummaryRow[], maxBytes = Infinity): string {
  const ran = rows.some((r) => r.attempts !== null);
  const head = ran ? "| pair | status | reasons | time |\n| --- | --- | --- | ---: |\n" : "| pair | action | reasons | ref |\n| --- | --- | --- | --- |\n";
  const detailsHead = "| pair | attempts | tokens | ref |\n| --- | ---: | ---: | --- |\n";
  const lines = rows.map(ran ? runRow : planRow);
  const details = ran ? rows.map(detailRow) : [];
  const whole = (kept: number[], note: string) =>
    head +
    kept.map((i) => lines[i]).join("") +
    note +
    (ran
      ? `\n<details><summary>Attempts, tokens and reference of each pair</summary>\n\n${detailsHead}${kept.map((i) => details[i]).join("")}\n</details>\n`
      : "");
  const all = whole(
    rows.map((_, i) => i),
    "",
  );
  if (bytes(all) <= maxBytes) return all;

  const order = rows.map((r, i) => i).sort((a, b) => Number(UNCHANGED.has(rows[a]!.status)) - Number(UNCHANGED.has(rows[b]!.status)) || a - b);
  const noteRoom = 400;
  let used = bytes(whole([], "")) + noteRoom;
  const kept = new Set<number>();
  for (const i of order) {
    const size = bytes(lines[i]!) + (ran ? bytes(details[i]!) : 0);
    if (used + size > maxBytes) break;
    kept.add(i);
    used += size;
  }
  const left = rows.filter((_, i) => !kept.has(i));
  const unchanged = left.filter((r) => UNCHANGED.has(r.status)).length;
  const what = unchanged === left.length ? ` (all ${rows.some((r) => r.status === "reused") ? "reused" : "unchanged"})` : "";
  const note = `\n_${number(left.length)} of ${number(rows.length)} pairs not shown${what}: GitHub limits the size of this page._\n`;
  return whole(
    order.filter((i) => kept.has(i)),
    note,
  );
}

function planRow(r: SummaryRow): string {
  return `| ${nameFor(r.id, "cell")} | ${r.status} | ${cell(r.reasons)} | ${refText(r)} |\n`;
}

function runRow(r: SummaryRow): string {
  return `| ${nameFor(r.id, "cell")} | ${r.status} | ${cell(r.reasons)} | ${r.durationMs === null ? "–" : seconds(r.durationMs)} |\n`;
}

/** What a run's table leaves to its collapsed details: attempts, tokens and the reference. */
function detailRow(r: SummaryRow): string {
  const tokens = r.tokens === null ? (r.attempts ? NOT_REPORTED : "–") : number(r.tokens);
  return `| ${nameFor(r.id, "cell")} | ${r.attempts === null ? "–" : String(r.attempts)} | ${tokens} | ${refText(r)} |\n`;
}

function refText(r: SummaryRow): string {
  return r.configRef === null ? "?" : `\`${shortRef(r.configRef)}\``;
}

/** Text that stays inside one table cell and is shown as written. */
function cell(text: string): string {
  return md(text.replace(/\s*\n\s*/g, " "));
}

// ---------------------------------------------------------------------------------------------
// Causes

export interface CausesOptions {
  /** At most this many causes; the rest are counted. */
  max?: number;
  /** Where the rest can be read, when some are left out. */
  pointer?: string;
  /** What follows a cause's paragraph: what explains it (the comment's configuration diffs). */
  after?: (cause: Cause, index: number) => string;
}

/** Causes listed in a job summary, at most: each is a paragraph, so this stays a screen or two. */
export const MAX_CAUSES = 50;
/** Pairs named in a cause's paragraph; the rest are counted. */
const MAX_NAMED = 5;

/**
 * One paragraph per cause (./causes.ts): the change in bold, how far it reaches (`5 pairs + 250
 * downstream · waves 2–20`), and the pairs that changed this way, the first few named. A cause
 * with a failed pair comes first, marked ✖.
 */
export function causesMarkdown(causes: readonly Cause[], options: CausesOptions = {}): string {
  const shown = causes.slice(0, options.max ?? Infinity);
  const parts = shown.map((c, i) => causeParagraph(c) + (options.after?.(c, i) ?? ""));
  const more = causes.length - shown.length;
  if (more > 0) parts.push(`_…and ${plural(more, "more cause")}${options.pointer ? `; ${options.pointer}` : ""}._`);
  return parts.join("\n\n") + "\n";
}

/** `**prompt: prompt.task changed** — 5 pairs + 250 downstream · waves 2–20: \`a\` (+ 181 downstream), …` */
export function causeParagraph(cause: Cause): string {
  const differ = rootsDiffer(cause);
  const detail = (r: CauseRoot) => {
    const parts = [r.status === "run" ? "" : statusText(r.status), r.downstream > 0 ? `+ ${number(r.downstream)} downstream` : ""].filter(Boolean);
    return differ && parts.length > 0 ? ` (${parts.join(", ")})` : "";
  };
  const named = cause.roots.length > 1 ? cause.roots.slice(0, MAX_NAMED).map((r) => `${code(r.id)}${detail(r)}`) : [];
  const more = cause.roots.length - named.length;
  const list = named.length > 0 ? `: ${named.join(", ")}${more > 0 ? ` and ${number(more)} more` : ""}` : "";
  return `${cause.failed > 0 ? "✖ " : ""}**${nameIn(cause.name, md, code)}** — ${causeExtent(cause, code)}${list}`;
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
  /** Its wave; made from `requires` when absent (nodes come in plan order). */
  wave?: number;
  /** For an instance of a foreach pair: the pair as written. */
  template?: string;
  /** As in CauseNode: whether the plan runs it, and what names its edits. */
  planned?: boolean;
  assembly?: boolean;
  section?: { file: string; heading: string };
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
  /** Drawn condensed: causes and failed pairs, and what they reach, counted. */
  condensed?: boolean;
}

/**
 * The affected subgraph as a Mermaid flowchart, left to right, each pair coloured and marked by its
 * status. A workflow within the node limit is drawn whole; a larger one only its affected pairs
 * (not skip or reused), when they are within the node limit and hold together (condensedGraph
 * otherwise); when a drawing is too long for GitHub, failed ones and root causes first, with a
 * note of how many were left out.
 */
export function mermaidGraph(nodes: GraphNode[], limits: GraphLimits = {}): MermaidGraph {
  const maxChars = limits.maxChars ?? MERMAID_MAX_CHARS;
  const maxEdges = limits.maxEdges ?? MERMAID_MAX_EDGES;
  if (nodes.length === 0) return { text: null, drawn: [], note: "No pairs to draw." };
  const affected = nodes.filter(isAffected).length;
  if (nodes.length > (limits.maxNodes ?? GRAPH_NODE_LIMIT) && affected === 0) {
    return { text: null, drawn: [], note: `Nothing is affected: the ${number(nodes.length)} pairs are not drawn.` };
  }
  if (nodes.length > (limits.maxNodes ?? GRAPH_NODE_LIMIT) && !holdsTogether(nodes, limits.maxNodes ?? GRAPH_NODE_LIMIT)) {
    const condensed = condensedGraph(nodes);
    if (condensed.text !== null && condensed.text.length <= maxChars) return condensed;
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
  const lines = ["flowchart TD"];
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
    append(byStatus, status, index.get(n.id)!);
  }
  for (const [status, ids] of byStatus) {
    const style = STATUS_STYLE[status]!;
    lines.push(`  classDef ${status} fill:${style.fill},stroke:${style.stroke},stroke-width:${style.width}px,color:#1f2328`);
    lines.push(`  class ${ids.join(",")} ${status}`);
  }
  return { text: lines.join("\n") + "\n", edges };
}

/** Drawn pairs with fewer edges than this share of them are mostly loose boxes. */
const MIN_EDGES_PER_NODE = 0.5;
/** Below this many affected pairs, loose boxes are still readable. */
const FEW_NODES = 10;

/** Whether the affected pairs fit the node limit and are drawn connected, not mostly as loose boxes. */
function holdsTogether(nodes: GraphNode[], limit: number): boolean {
  const affected = nodes.filter(isAffected);
  if (affected.length > limit) return false;
  if (affected.length <= FEW_NODES) return true;
  return flowchart(affected).edges >= affected.length * MIN_EDGES_PER_NODE;
}

/** Causes, failed pairs and groups drawn in a condensed graph, at most each. */
const MAX_CAUSE_NODES = 8;
const MAX_FAILED_NODES = 8;
const MAX_GROUP_NODES = 8;
/** Characters of a cause's words in its box, and of a pair's id. */
const MAX_LABEL = 32;
const MAX_ID_LABEL = 28;
/** Boxes of one line each, close together: the condensed graph is a list with arrows, not a picture of the DAG. */
const CONDENSED_CONFIG = "---\nconfig:\n  flowchart:\n    nodeSpacing: 14\n    rankSpacing: 70\n---\n";

/**
 * What the affected pairs are, when drawing them one by one would not help: on the left each cause
 * (the change, and how many pairs changed that way), with an edge to each group of the pairs it
 * reaches (a foreach pair's instances, or a few waves, with their statuses counted) labelled with
 * how many; below them each failed pair, with an edge to what it blocked.
 */
function condensedGraph(input: GraphNode[]): MermaidGraph {
  const nodes = withWaves(input);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const affected = nodes.filter(isAffected);
  const causes = causesOf(nodes);

  // Groups: a foreach pair's instances together, the other pairs by waves, at most MAX_GROUP_NODES.
  const templates = [...new Set(affected.filter((n) => n.template !== undefined).map((n) => n.template!))];
  const keptTemplates = templates.slice(0, MAX_GROUP_NODES / 2);
  const inTemplate = (n: CauseNode) => n.template !== undefined && keptTemplates.includes(n.template);
  const waves = [...new Set(affected.filter((n) => !inTemplate(n)).map((n) => n.wave))].sort((a, b) => a - b);
  const span = Math.max(1, Math.ceil(waves.length / (MAX_GROUP_NODES - keptTemplates.length)));
  const bucketOf = (wave: number) => Math.floor(waves.indexOf(wave) / span);
  const keys = [...keptTemplates.map((t) => `t ${t}`), ...[...new Set(waves.map(bucketOf))].map((b) => `w ${b}`)];
  const gid = new Map(keys.map((key, i) => [key, `g${i}`]));
  const groupOf = (n: CauseNode) => gid.get(inTemplate(n) ? `t ${n.template}` : `w ${bucketOf(n.wave)}`)!;
  const members = new Map<string, CauseNode[]>();
  for (const n of affected) append(members, groupOf(n), n);

  const lines = ["flowchart TD"];
  const classes = new Map<string, string[]>();
  const klass = (status: string, id: string) => append(classes, status, id);
  const drawn: GraphNode[] = [];
  const edges: string[] = [];
  const perGroup = (ids: string[]) => {
    const per = new Map<string, number>();
    for (const id of ids) per.set(groupOf(byId.get(id)!), (per.get(groupOf(byId.get(id)!)) ?? 0) + 1);
    return [...gid.values()].filter((g) => per.has(g)).map((g) => [g, per.get(g)!] as const);
  };

  // The causes that reach the most get boxes of their own (failed pairs have theirs below); the smallest are folded into one.
  const bigFirst = [...causes].sort((a, b) => reach(b) - reach(a));
  const shownCauses = causes.length > MAX_CAUSE_NODES ? bigFirst.slice(0, MAX_CAUSE_NODES - 1) : bigFirst;
  const folded = new Set(bigFirst.slice(shownCauses.length));
  for (const [i, c] of shownCauses.entries()) {
    lines.push(`  c${i}["${label(`${nameFor(short(c.why, MAX_LABEL), "mermaid")}<br/>${plural(reach(c), "pair")}`)}"]`);
    klass(c.failed > 0 ? "failed" : statusClass(c.rootStatuses[0]?.status ?? "run"), `c${i}`);
    for (const [g, n] of perGroup([...c.roots.map((r) => r.id), ...c.downstream])) edges.push(`  c${i} -->|${number(n)}| ${g}`);
  }
  if (shownCauses.length < causes.length) {
    const rest = causes.filter((c) => folded.has(c));
    lines.push(`  cx["${label(plural(rest.length, "more cause"))}"]`);
    klass("run", "cx");
    for (const [g, n] of perGroup([...new Set(rest.flatMap((c) => [...c.roots.map((r) => r.id), ...c.downstream]))])) edges.push(`  cx -->|${number(n)}| ${g}`);
  }
  for (const [key, g] of gid) {
    const group = members.get(g)!;
    const statuses = new Map<string, number>();
    for (const n of group) statuses.set(n.status, (statuses.get(n.status) ?? 0) + 1);
    const worst = GROUP_ORDER.find((s) => statuses.has(s)) ?? "run";
    const counts = [...statuses].sort(([a], [b]) => GROUP_ORDER.indexOf(a) - GROUP_ORDER.indexOf(b)).map(([s, n]) => `${number(n)} ${s}`);
    const name = key.startsWith("t ") ? `${nameFor(key.slice(2), "mermaid")}[*]` : wavesText(waveRange(group));
    lines.push(`  ${g}["${label(`${name}<br/>${counts.join(", ")}`)}"]`);
    klass(statusClass(worst), g);
    drawn.push({ id: g, requires: [], status: worst });
  }

  // Each failed pair (those that block the most first) and what it blocked.
  const blocked = blockedBy(nodes);
  const dependents = new Map<string, string[]>();
  for (const n of nodes) for (const d of n.requires) append(dependents, d, n.id);
  /** The blocked pairs downstream of some failed ones, each once however many of them it follows. */
  const blockedBehind = (ids: readonly string[]) => {
    const seen = new Set<string>();
    const queue = ids.flatMap((id) => dependents.get(id) ?? []);
    while (queue.length > 0) {
      const next = queue.pop()!;
      if (seen.has(next) || byId.get(next)?.status !== "blocked") continue;
      seen.add(next);
      queue.push(...(dependents.get(next) ?? []));
    }
    return [...seen].map((b) => byId.get(b)!);
  };
  const failed = nodes.filter((n) => n.status === "failed").sort((a, b) => (blocked.get(b.id) ?? 0) - (blocked.get(a.id) ?? 0));
  const shownFailed = failed.length > MAX_FAILED_NODES ? failed.slice(0, MAX_FAILED_NODES - 1) : failed;
  const failedNode = (id: string, text: string, stopped: number, waves: string) => {
    lines.push(`  ${id}{{"${label(text)}"}}`);
    klass("failed", id);
    if (stopped === 0) return;
    lines.push(`  ${id}b(["${label(`⊘ ${number(stopped)} blocked<br/>${waves}`)}"])`);
    klass("blocked", `${id}b`);
    edges.push(`  ${id} --> ${id}b`);
  };
  for (const [i, f] of shownFailed.entries()) {
    const n = blocked.get(f.id) ?? 0;
    failedNode(`f${i}`, `✖ FAILED ${nameFor(short(f.id, MAX_ID_LABEL), "mermaid")}`, n, n > 0 ? wavesText(waveRange(blockedBehind([f.id]))) : "");
    drawn.push(f);
  }
  if (shownFailed.length < failed.length) {
    const rest = failed.slice(shownFailed.length);
    // A pair blocked by two of them is counted once.
    const behind = blockedBehind(rest.map((f) => f.id));
    failedNode("fx", `✖ ${number(rest.length)} more failed`, behind.length, behind.length > 0 ? `by them, ${wavesText(waveRange(behind))}` : "");
  }
  if (failed.some((f) => (blocked.get(f.id) ?? 0) > 0)) drawn.push({ id: "blocked", requires: [], status: "blocked" });

  lines.push(...edges);
  for (const [status, ids] of classes) {
    const style = STATUS_STYLE[status]!;
    lines.push(`  classDef ${status} fill:${style.fill},stroke:${style.stroke},stroke-width:${style.width}px,color:#1f2328`);
    lines.push(`  class ${ids.join(",")} ${status}`);
  }
  const unchanged = nodes.length - affected.length;
  const note =
    `Condensed: the ${plural(affected.length, "affected pair")} as ${plural(causes.length, "cause")} and the groups of pairs they reach, each edge counting pairs` +
    (failed.length > 0 ? `; each failed pair with the pairs it blocked` : "") +
    (unchanged > 0 ? `; ${plural(unchanged, "unchanged pair")} not drawn` : "") +
    ".";
  return { text: CONDENSED_CONFIG + lines.join("\n") + "\n", drawn, note, condensed: true };
}

/** A group is drawn as its worst status. */
const GROUP_ORDER = ["failed", "blocked", "interrupted", "run", "executed"];

/** The nodes with their waves: as given, or one more than their latest dependency's. */
function withWaves(nodes: GraphNode[]): CauseNode[] {
  const waves = new Map<string, number>();
  return nodes.map((n) => {
    const wave = n.wave ?? 1 + Math.max(0, ...n.requires.map((d) => waves.get(d) ?? 0));
    waves.set(n.id, wave);
    return { ...n, reasons: n.reasons ?? [], wave };
  });
}

/** A node's shape and label: failed pairs are hexagons, blocked and interrupted ones stadiums, each marked in words. */
function shape(n: GraphNode): string {
  const style = STATUS_STYLE[statusClass(n.status)]!;
  const text = `"${style.marker ? `${style.marker} ` : ""}${nameFor(short(n.id, MAX_ID_LABEL), "mermaid")}"`;
  return style.shape === "hexagon" ? `{{${text}}}` : style.shape === "stadium" ? `([${text}])` : `[${text}]`;
}

/**
 * A label short enough to read in a column: long ids keep their start and their end (`summarize[docs/…/install.md]`),
 * where what tells instances apart usually is.
 */
function short(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
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
    ...(graph.text !== null ? ["```mermaid\n" + graph.text + "```", graph.condensed ? condensedLegend(graph.drawn) : graphLegend(graph.drawn)] : []),
    ...(graph.note !== null ? [`_${graph.note}_`] : []),
  ].join("\n\n");
}

/** The colours of a condensed graph: its groups are coloured by their worst status; failed pairs are hexagons. */
function condensedLegend(drawn: GraphNode[]): string {
  const present = Object.keys(STATUS_STYLE).filter((s) => drawn.some((n) => statusClass(n.status) === s));
  return present
    .map((s) =>
      s === "failed"
        ? "✖ red hexagon: a failed pair; red: a cause or group with one"
        : s === "blocked"
          ? "⊘ orange rounded: blocked"
          : `${STATUS_STYLE[s]!.colour}: ${s}`,
    )
    .join(" · ");
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

/** Failed pairs shown one by one; the rest are in one collapsed block under them. */
const MAX_OPEN_FAILURES = 10;

/**
 * Each failed pair's headline (./failure.ts) over its last feedback, collapsed, those that blocked
 * the most first; past the first 10, in one collapsed block of their own. At most `maxBytes`,
 * with a note when some are left out.
 */
export function failedDetailsMarkdown(report: RunReport, maxBytes = Infinity, blocks: ReadonlyMap<string, number> = new Map()): string {
  const failed = report.pairs.filter((p) => p.status === "failed").sort((a, b) => (blocks.get(b.id) ?? 0) - (blocks.get(a.id) ?? 0));
  const wrapper = (n: number) => `<details><summary>${plural(n, "more failed pair")}</summary>\n\n</details>\n\n`;
  let out = "";
  let rest = "";
  let shown = 0;
  for (const p of failed) {
    const last = p.attempts[p.attempts.length - 1];
    // Control characters made visible, as on a terminal (visible).
    const feedback = clip(visible(last?.feedback || p.note || "(no feedback)"), FEEDBACK_MAX_CHARS);
    const fence = fenceFor(feedback);
    const headline = nameFor(failureHeadline(p.note ?? "failed"), "html");
    const blocked = blocks.get(p.id) ?? 0;
    const blocking = blocked > 0 ? ` (blocked ${number(blocked)} ${blocked === 1 ? "pair" : "pairs"})` : "";
    const block = `<details><summary>✖ <code>${nameFor(p.id, "html")}</code>${blocking}: ${headline}</summary>\n\n${fence}text\n${feedback}\n${fence}\n\n</details>\n\n`;
    const wrapped = shown >= MAX_OPEN_FAILURES ? bytes(wrapper(failed.length)) : 0;
    if (bytes(out) + bytes(rest) + bytes(block) + wrapped > maxBytes - 200) break;
    if (shown < MAX_OPEN_FAILURES) out += block;
    else rest += block;
    shown++;
  }
  const note = shown < failed.length ? `_${number(failed.length - shown)} more failed pairs not shown: GitHub limits the size of this page._\n` : "";
  if (rest === "") return out + note;
  return `${out}<details><summary>${plural(failed.length - MAX_OPEN_FAILURES, "more failed pair")}</summary>\n\n${rest}${note}${note ? "\n" : ""}</details>\n\n`;
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
    `## pairflow plan: ${md(plan.workflow.name)}`,
    "",
    `**${number(t.run)} of ${number(t.pairs)} pairs to run**${withoutCallsText(plan)}${cost} · ${number(t.skip)} unchanged · ${number(plan.graph.waves.length)} waves`,
    ...staleLines(plan),
    ...(options.extra ?? []),
    "",
  ].join("\n");
  const rows = planRows(plan, options.notes);
  return compose(head, rows, planNodes(plan), [], options, "What will run, by cause");
}

/** The job summary of `mode: run`. */
export function runSummaryMarkdown(plan: Plan, report: RunReport, options: SummaryOptions = {}): string {
  const maxBytes = options.maxBytes ?? STEP_SUMMARY_LIMIT;
  const t = report.totals;
  // As a generator reported them: "not reported" when none did (a command), never a made-up 0.
  const reported = reportedTokens(report.pairs.flatMap((p) => p.attempts));
  const tokens = reported === null ? NOT_REPORTED : number(reported.input + reported.output);
  const verdict = report.status === "success" ? "succeeded" : report.status;
  const head = [
    `## pairflow run: ${md(plan.workflow.name)} ${verdict}`,
    "",
    `**${number(t.pairs)} pairs**: ${number(t.executed)} executed, ${number(t.reused)} reused, ${number(t.failed)} failed, ${number(t.blocked)} blocked` +
      ` · tokens ${tokens} · ${seconds(t.durationMs)} · run \`${report.runId}\``,
    ...(report.spend ? ["", `${capitalize(spendLine(report.spend))}.`] : []),
    ...(report.pacing && (report.pacing.held > 0 || report.pacing.refused > 0) ? ["", escapeHtml(pacingLine(report.pacing))] : []),
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
  const nodes = runNodes(plan, report);
  const first: string[] = [];
  const again = rows.filter((r) => r.status === "failed" || r.status === "blocked" || r.status === "interrupted");
  if (t.failed > 0) {
    const blocks = blockedBy(nodes);
    first.push(`### Failed (${number(t.failed)})\n\n${rerunLine(again)}\n\n${failedDetailsMarkdown(report, Math.floor(maxBytes / 4), blocks)}`);
  } else if (again.length > 0) {
    first.push(`### Not finished (${number(again.length)})\n\n${rerunLine(again)}`);
  }
  return compose(head, rows, nodes, first, { ...options, maxBytes }, "What ran, by cause");
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

/**
 * Head, what comes first (failed pairs), the root causes, the graph of the affected pairs, the
 * collapsed parts, then the table of all pairs, collapsed too, which is the long part and gets
 * what room the others leave.
 */
function compose(head: string, rows: SummaryRow[], nodes: CauseNode[], first: string[], options: SummaryOptions, causesTitle: string): string {
  const maxBytes = options.maxBytes ?? STEP_SUMMARY_LIMIT;
  const causes = causesOf(nodes);
  const parts = [head, ...first];
  if (causes.length > 0) parts.push(`### ${causesTitle}\n\n${causesMarkdown(causes, { max: MAX_CAUSES, pointer: "every pair is in the table below" })}`);
  parts.push(`### Graph\n\n${graphMarkdown(nodes)}`);
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
    const line = `- ${nameFor(`${issue.file}:${issue.line}:${issue.column}`, "code")} ${md(issue.key ? `${issue.key}: ${issue.message}` : issue.message)}\n`;
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
  return grouped(n);
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
  const stale = plan.pairs.filter((p) => p.stale).map((p) => nameFor(p.id, "code"));
  if (stale.length === 0) return [];
  const shown = stale.length > 20 ? [...stale.slice(0, 20), `and ${number(stale.length - 20)} more`] : stale;
  return ["", `> [!NOTE]\n> A person's edits are kept though their sources changed since (\`carry_edits: true\` carries them forward): ${shown.join(", ")}.`];
}
