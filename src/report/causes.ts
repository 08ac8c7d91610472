/**
 * The one report model every medium renders: the terminal (`pairflow plan`, `diff`, `run`), the job
 * log, the job summary and the pull request comment. What a plan, a diff or a run touches is put
 * as causes: a change (the reasons a pair runs of its own, in the planner's words) with the pairs
 * it reaches. Pairs that changed the same way are one cause with a count, however many they are:
 * editing the workflow's `specification` re-runs every pair for that one reason, which is one
 * entry, not a thousand. Causes come by weight, those with a failure first, then those that reach
 * the most pairs, so every medium leads with what matters most; failures come with their one-line
 * headline and how many pairs they blocked. Pure functions over nodes; each renderer draws from them.
 */
import type { Plan, PlannedPair, Reason } from "../model/plan.js";
import type { RunReport } from "../model/run.js";
import { failureHeadline } from "./failure.js";
import { causeGroups, isAffected, ownReasons, type ImpactNode } from "./impact.js";

/** One pair as the reports see it. */
export interface CauseNode extends ImpactNode {
  wave: number;
  /** For an instance of a foreach pair: the pair as written. */
  template?: string;
}

/** A pair that changed the cause's way: its wave, its status, and how many affected pairs follow from it alone. */
export interface CauseRoot {
  id: string;
  wave: number;
  status: string;
  /** Affected pairs that are affected only through it (and other roots). */
  downstream: number;
}

export interface Cause {
  /** The change, in the planner's words: `prompt: workflow specification changed`. The same for all its roots. */
  why: string;
  /** The reasons of the first root that make `why`. */
  reasons: Reason[];
  /** The pairs that changed this way: failed ones first, then those with the most downstream, then in plan order. */
  roots: CauseRoot[];
  /** The affected pairs that follow only from the roots (none of them a root), in plan order. */
  downstream: string[];
  /** The first and last wave of the roots and what follows from them. */
  waves: { first: number; last: number };
  /** foreach templates among the roots and what follows, with how many instances each. */
  templates: { template: string; count: number }[];
  /** Statuses of the roots, and of what follows, counted (failed first): a run's outcomes. */
  rootStatuses: { status: string; count: number }[];
  downstreamStatuses: { status: string; count: number }[];
  /** Roots that failed. */
  failed: number;
}

/** The order statuses are counted in: what needs a reader first. */
const STATUS_ORDER = ["failed", "blocked", "interrupted", "executed", "run", "reused", "skip"];

/** How many pairs a cause reaches: the pairs that changed its way and those that follow only from them. */
export function reach(cause: Pick<Cause, "roots" | "downstream">): number {
  return cause.roots.length + cause.downstream.length;
}

/**
 * The affected pairs as causes: those with a failed pair first, then, among each, those that reach
 * the most pairs (reach), then in plan order of their first root.
 * Pairs whose own reasons read the same are one cause. A pair reached from roots of two causes
 * counts in both (each change alone would re-run it).
 */
export function causesOf(nodes: readonly CauseNode[]): Cause[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const affected = new Map(nodes.filter(isAffected).map((n) => [n.id, n]));
  const merged = new Map<string, { why: string; reasons: Reason[]; roots: CauseRoot[]; downstream: Set<string> }>();
  for (const group of causeGroups(nodes as CauseNode[])) {
    const root = byId.get(group.root.id)!;
    const own = ownReasons(root, affected);
    const why = own.length > 0 ? own.map(causeText).join("; ") : root.status;
    let cause = merged.get(why);
    if (!cause) merged.set(why, (cause = { why, reasons: own, roots: [], downstream: new Set() }));
    cause.roots.push({ id: root.id, wave: root.wave, status: root.status, downstream: group.cascade.length });
    for (const id of group.cascade) cause.downstream.add(id);
  }
  const causes = [...merged.values()].map((c): Cause => {
    const downstream = [...c.downstream].sort((a, b) => order.get(a)! - order.get(b)!);
    // Failed first, then those that reach the most: the change a reader most needs to look at.
    const roots = [...c.roots].sort((a, b) => Number(b.status === "failed") - Number(a.status === "failed") || b.downstream - a.downstream);
    const all = [...roots.map((r) => byId.get(r.id)!), ...downstream.map((id) => byId.get(id)!)];
    const templates = new Map<string, number>();
    for (const n of all) if (n.template !== undefined) templates.set(n.template, (templates.get(n.template) ?? 0) + 1);
    return {
      why: c.why,
      reasons: c.reasons,
      roots,
      downstream,
      waves: waveRange(all),
      templates: [...templates].map(([template, count]) => ({ template, count })),
      rootStatuses: statusCounts(roots.map((r) => r.status)),
      downstreamStatuses: statusCounts(downstream.map((id) => byId.get(id)!.status)),
      failed: roots.filter((r) => r.status === "failed").length,
    };
  });
  // Sorting is stable: causes of equal weight stay in plan order.
  return causes.sort((a, b) => Number(b.failed > 0) - Number(a.failed > 0) || reach(b) - reach(a));
}

/**
 * A reason as a cause names it. A rejection's detail quotes the guard's feedback, different for
 * every pair: the cause is that the last attempt was rejected, and the run report says why.
 */
function causeText(r: Reason): string {
  if (r.kind === "rejected") return "rejected: last attempt rejected";
  return r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`;
}

/** The first and last wave of some pairs (a loop: 100,000 pairs are too many arguments for Math.min). */
export function waveRange(nodes: readonly { wave: number }[]): { first: number; last: number } {
  let first = Infinity;
  let last = -Infinity;
  for (const n of nodes) {
    if (n.wave < first) first = n.wave;
    if (n.wave > last) last = n.wave;
  }
  return { first, last };
}

/** Adds to the list under a key: pushed, not copied, so a pair with thousands of dependents costs no more than they do. */
export function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function statusCounts(statuses: string[]): { status: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  const rank = (s: string) => (STATUS_ORDER.includes(s) ? STATUS_ORDER.indexOf(s) : STATUS_ORDER.length);
  return [...counts].sort(([a], [b]) => rank(a) - rank(b)).map(([status, count]) => ({ status, count }));
}

/** A failed pair: its one-line headline, its whole note, and how many pairs it blocked. */
export interface Failure {
  id: string;
  wave: number;
  headline: string;
  note: string | null;
  blocked: number;
}

/** The failed pairs in plan order, each with the blocked pairs downstream of it counted. */
export function failuresOf(nodes: readonly CauseNode[], notes: ReadonlyMap<string, string | null>): Failure[] {
  const blocked = blockedBy(nodes);
  return nodes
    .filter((n) => n.status === "failed")
    .map((n) => ({
      id: n.id,
      wave: n.wave,
      headline: failureHeadline(notes.get(n.id) ?? null),
      note: notes.get(n.id) ?? null,
      blocked: blocked.get(n.id) ?? 0,
    }));
}

/** For each failed pair, how many blocked pairs are downstream of it. */
export function blockedBy(nodes: readonly Pick<CauseNode, "id" | "requires" | "status">[]): Map<string, number> {
  const dependents = new Map<string, string[]>();
  for (const n of nodes) for (const dep of n.requires) append(dependents, dep, n.id);
  const status = new Map(nodes.map((n) => [n.id, n.status]));
  const out = new Map<string, number>();
  for (const n of nodes.filter((n) => n.status === "failed")) {
    const seen = new Set<string>();
    const queue = [...(dependents.get(n.id) ?? [])];
    while (queue.length > 0) {
      const id = queue.pop()!;
      if (seen.has(id) || status.get(id) !== "blocked") continue;
      seen.add(id);
      queue.push(...(dependents.get(id) ?? []));
    }
    out.set(n.id, seen.size);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Words every medium shares

export function number(n: number): string {
  return n.toLocaleString("en-US");
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${number(n)} ${n === 1 ? one : many}`;
}

/** `wave 3`, `waves 1–20`. */
export function wavesText(waves: { first: number; last: number }): string {
  return waves.first === waves.last ? `wave ${waves.first}` : `waves ${waves.first}–${waves.last}`;
}

/** `1 failed, 4 executed`; "" when every count is of `only` (a plan's `run`). */
export function statusesText(counts: { status: string; count: number }[], only?: string): string {
  if (counts.every((c) => c.status === only)) return "";
  return counts.map((c) => `${number(c.count)} ${c.status}`).join(", ");
}

/**
 * How far a cause reaches, in one phrase: `5 pairs + 250 downstream · waves 1–20`, with a run's
 * outcomes (`5 pairs (1 failed, 4 executed) + 250 downstream (50 blocked, 200 executed)`) and the
 * foreach templates it touches.
 */
export function causeExtent(cause: Cause, quote: (id: string) => string = (id) => id): string {
  const roots = statusesText(cause.rootStatuses, "run");
  const down = statusesText(cause.downstreamStatuses, "run");
  // One pair is named; more are counted, and named under it.
  const head = cause.roots.length === 1 ? quote(cause.roots[0]!.id) : plural(cause.roots.length, "pair");
  const tail = cause.downstream.length > 0 ? ` + ${number(cause.downstream.length)} downstream${down ? ` (${down})` : ""}` : "";
  const templates = cause.templates.length > 0 ? ` · ${cause.templates.map((t) => `${quote(`${t.template}[*]`)} ${number(t.count)}`).join(", ")}` : "";
  return `${head}${roots ? ` (${roots})` : ""}${tail} · ${wavesText(cause.waves)}${templates}`;
}

/** Whether a cause's roots are worth a line each: they differ in what follows from them or in outcome. */
export function rootsDiffer(cause: Cause): boolean {
  return cause.roots.some((r) => r.downstream > 0) || cause.rootStatuses.length > 1;
}

// ---------------------------------------------------------------------------------------------
// Nodes of a plan and of a run

/** The pairs of a plan as nodes: `run` or `skip`, with the planner's reasons. */
export function planNodes(plan: Plan): CauseNode[] {
  return plan.pairs.map((p) => node(plan, p, p.action, p.action === "run" ? p.reasons : []));
}

/** The pairs a run considered, in plan order, with their outcome as status. */
export function runNodes(plan: Plan, report: RunReport): CauseNode[] {
  const outcomes = new Map(report.pairs.map((o) => [o.id, o]));
  const nodes: CauseNode[] = [];
  for (const p of plan.pairs) {
    const o = outcomes.get(p.id);
    if (o) nodes.push(node(plan, p, o.status, o.status === "reused" ? [] : o.reasons));
  }
  return nodes;
}

function node(plan: Plan, p: PlannedPair, status: string, reasons: Reason[]): CauseNode {
  const template = plan.workflow.pairs?.get(p.id)?.template;
  return { id: p.id, requires: p.requires, status, reasons, wave: p.wave, ...(template !== undefined ? { template } : {}) };
}

// ---------------------------------------------------------------------------------------------
// What explains a cause

/** An entry of the configuration diff (src/diff/diff.ts EntryChange): the workflow's settings, a pair, a prompt. */
export interface ChangedEntry {
  kind: "workflow" | "pair" | "prompt";
  id: string | null;
}

/**
 * The entries of the configuration diff that explain a cause, in the order of its roots: for a change
 * of the workflow's specification or constraints, its settings; for a prompt's part, the prompt
 * of each pair that changed that way; for a model, guard or generator setting, each pair's entry
 * (or the workflow's settings, where the pair's entry did not change: a default changed); for a
 * new pair, its entries. An instance of a foreach pair is explained by its template's entries.
 * Files (inputs, scripts) are not in the diff.
 */
export function changesFor<C extends ChangedEntry>(cause: Cause, changes: readonly C[], templateOf: (id: string) => string | undefined): C[] {
  const key = (kind: string, id: string | null) => `${kind}\u0000${id ?? ""}`;
  const index = new Map(changes.map((c) => [key(c.kind, c.id), c]));
  const found = new Set<C>();
  let settings = false;
  const workflow = index.get(key("workflow", null));
  const explainsAll = cause.reasons.some((r) => r.component?.kind === "context");
  if (workflow && explainsAll) found.add(workflow);
  const add = (kind: string, id: string | null) => {
    const c = index.get(key(kind, id));
    if (c) found.add(c);
    return c !== undefined;
  };
  for (const root of cause.roots) {
    const name = templateOf(root.id) ?? root.id;
    for (const r of cause.reasons) {
      if (r.component?.kind === "context") continue;
      if (r.component?.kind === "prompt") add("prompt", name);
      else if (r.kind === "new") {
        add("pair", name);
        add("prompt", name);
      } else if (r.kind === "upstream" || r.kind === "upstream_artifact") add("pair", name);
      else if (["model", "guard", "guard_config", "generator"].includes(r.kind) && !add("pair", name)) settings = true;
    }
  }
  if (settings) add("workflow", null);
  return [...found];
}
