/**
 * The one report model every medium renders: the terminal (`pairflow plan`, `diff`, `run`), the job
 * log, the job summary and the pull request comment. What a plan, a diff or a run touches is put
 * as causes: an edit (one changed thing: a pair's prompt, a file a guard reads, a section of a
 * split file, the workflow's specification) with the pairs it reaches, named so a reviewer knows
 * where to look. Identical edits of one shared thing are one cause however many pairs they reach:
 * editing the workflow's `specification` re-runs every pair for that one edit, which is one entry,
 * not a thousand; five pairs' prompts edited are five causes, each naming its pair. Causes are
 * made from the plan's reasons, so a run reports the same causes with the same reach, only with
 * outcomes. Causes come by weight, those with a failure first, then those that reach
 * the most pairs, so every medium leads with what matters most; failures come with their one-line
 * headline and how many pairs they blocked. Pure functions over nodes; each renderer draws from them.
 */
import type { Plan, PlannedPair, Reason } from "../model/plan.js";
import type { RunReport } from "../model/run.js";
import { failureHeadline } from "./failure.js";
import { causeGroups, isAffected, ownReasons, type ImpactNode } from "./impact.js";
import { grouped } from "../model/text.js";

/** One pair as the reports see it. */
export interface CauseNode extends ImpactNode {
  wave: number;
  /** For an instance of a foreach pair: the pair as written. */
  template?: string;
  /** For an instance over a section of a file (`split`): the file and the section's heading. */
  section?: { file: string; heading: string };
}

/** A cause's name: words, and names shown as code (`prompt of `, {code: "summarize"}, ` (task)`). */
export type NamePart = string | { code: string };

/** A pair that changed the cause's way: its wave, its status, and how many affected pairs follow from it alone. */
export interface CauseRoot {
  id: string;
  wave: number;
  status: string;
  /** Affected pairs that are affected only through it (and other roots). */
  downstream: number;
}

export interface Cause {
  /** Which edit: the same key is the same changed thing (`prompt\u0000summarize`, `file\u0000lib/check.sh`). */
  key: string;
  /** The edit, named where to look: `prompt of `summarize` (task)`, `docs/a.md § Install`, `workflow specification`. */
  name: NamePart[];
  /** `name` as plain text. */
  why: string;
  /** The planner's reasons the roots run for that make this edit, each once. */
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
 * Each edit is one cause, its roots the pairs it changes. A pair changed by two edits is a root of
 * both, and a pair reached from roots of two causes counts in both (each edit alone would re-run it).
 */
export function causesOf(nodes: readonly CauseNode[]): Cause[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const affected = new Map(nodes.filter(isAffected).map((n) => [n.id, n]));
  const merged = new Map<string, { edit: Edit; reasons: Map<string, Reason>; roots: CauseRoot[]; downstream: Set<string> }>();
  // Where no pair was ever accepted (a first run, a lost lock file), the one edit is that: a pair
  // each would be thousands of rows that say the same.
  const firstRun = nodes.length > 0 && nodes.every((n) => n.reasons.length > 0 && n.reasons.every((r) => r.kind === "new" || r.kind === "upstream"));
  for (const group of causeGroups(nodes as CauseNode[])) {
    const root = byId.get(group.root.id)!;
    for (const found of editsOf(root, ownReasons(root, affected))) {
      const edit = firstRun && found.key.startsWith("new\u0000") ? NOTHING_ACCEPTED : found;
      let cause = merged.get(edit.key);
      if (!cause) merged.set(edit.key, (cause = { edit, reasons: new Map(), roots: [], downstream: new Set() }));
      for (const r of edit.reasons) if (!cause.reasons.has(r.detail)) cause.reasons.set(r.detail, r);
      cause.roots.push({ id: root.id, wave: root.wave, status: root.status, downstream: group.cascade.length });
      for (const id of group.cascade) cause.downstream.add(id);
    }
  }
  const causes = [...merged.values()].map((c): Cause => {
    const downstream = [...c.downstream].sort((a, b) => order.get(a)! - order.get(b)!);
    // Failed first, then those that reach the most: the change a reader most needs to look at.
    const roots = [...c.roots].sort((a, b) => Number(b.status === "failed") - Number(a.status === "failed") || b.downstream - a.downstream);
    const all = [...roots.map((r) => byId.get(r.id)!), ...downstream.map((id) => byId.get(id)!)];
    const templates = new Map<string, number>();
    for (const n of all) if (n.template !== undefined) templates.set(n.template, (templates.get(n.template) ?? 0) + 1);
    const reasons = [...c.reasons.values()];
    const name = c.edit.name(reasons);
    return {
      key: c.edit.key,
      name,
      why: nameText(name),
      reasons,
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

/** An edit a root's reasons tell of: its key, the reasons that make it, and its name from them. */
interface Edit {
  key: string;
  reasons: Reason[];
  name: (reasons: readonly Reason[]) => NamePart[];
}

const NOTHING_ACCEPTED: Edit = { key: "new\u0000", reasons: [{ kind: "new", detail: "never accepted" }], name: () => ["new: never accepted"] };

/**
 * The edits a pair's own reasons tell of, each once. What a foreach pair's instances share (the
 * prompt, the model, the guard as written) is the template's; a file is the same file whoever
 * reads it; a section of a split file is its own, its prompt's change with it (the section's text
 * is in its prompt).
 */
export function editsOf(node: Pick<CauseNode, "id" | "template" | "section" | "status">, own: readonly Reason[]): Edit[] {
  const owner = node.template ?? node.id;
  const edits = new Map<string, Edit>();
  const section = node.section;
  const sectionEdited = section !== undefined && own.some((r) => r.component?.kind === "piece" || r.kind === "new");
  for (const r of own) {
    const [key, name] =
      sectionEdited && (r.component?.kind === "piece" || r.component?.kind === "prompt" || r.kind === "new")
        ? sectionEdit(node.id, section, r)
        : editOf(owner, node.id, r);
    const edit = edits.get(key);
    if (edit) edit.reasons.push(r);
    else edits.set(key, { key, reasons: [r], name });
  }
  if (edits.size === 0)
    edits.set(`status\u0000${node.id}`, { key: `status\u0000${node.id}`, reasons: [], name: () => [{ code: node.id }, `: ${node.status}`] });
  return [...edits.values()];
}

type Namer = Edit["name"];

function sectionEdit(id: string, section: { file: string; heading: string }, r: Reason): [string, Namer] {
  const added = r.kind === "new";
  return [
    `section\u0000${id}`,
    (reasons) => [{ code: section.file }, ` § ${section.heading}${added && reasons.every((x) => x.kind === "new") ? " added" : ""}`],
  ];
}

/** The names of a component's parts the reasons change: `task, role`, `order`. */
const partsOf = (reasons: readonly Reason[]) => [...new Set(reasons.map((r) => r.component?.name).filter((n): n is string => !!n))].join(", ");

function editOf(owner: string, id: string, r: Reason): [string, Namer] {
  const c = r.component;
  const of =
    (what: string, subject: string, parts?: (reasons: readonly Reason[]) => string): Namer =>
    (reasons) => {
      const p = parts?.(reasons) ?? "";
      return [`${what} of `, { code: subject }, ...(p ? [` (${p})`] : [])];
    };
  switch (c?.kind) {
    case "prompt":
      return [`prompt\u0000${owner}`, of("prompt", owner, partsOf)];
    case "context":
      return [`context\u0000${c.name}`, () => [`workflow ${c.name}`]];
    case "layout":
      return ["layout", () => ["pairflow's prompt layout"]];
    case "input":
    case "generator_file":
    case "guard_file":
    case "observed": {
      const role = c.kind === "input" ? "input" : c.kind === "generator_file" ? "generator's file" : c.kind === "guard_file" ? "guard's file" : "file read";
      return [`file\u0000${c.name}`, () => [`${role} `, { code: c.name }]];
    }
    case "model":
      return [`model\u0000${owner}`, of("model", owner, (rs) => /\((was [^)]*)\)/.exec(rs[0]?.detail ?? "")?.[1] ?? "")];
    case "guard":
    case "guards":
      return [`guard\u0000${owner}`, of("guard", owner)];
    case "guard_config":
      return [`guard_config\u0000${owner}`, of("guard settings", owner, partsOf)];
    case "generator":
      return [`generator\u0000${owner}`, of("generator", owner)];
    case "generator_config":
      return [`generator_config\u0000${owner}`, of("generator settings", owner, partsOf)];
    case "piece":
      return [`piece\u0000${id}`, of("section", id)];
    case "upstream":
    case "artifact": {
      if (/ (added to|removed from) requires$/.test(r.detail)) return [`requires\u0000${owner}`, of("requires", owner, requiresParts)];
      // A dependency that does not run changed (accepted on the branch, its output edited by hand): one edit for all who read it.
      const edited = /edited by hand$/.test(r.detail);
      return [`${edited ? "edited" : "upstream"}\u0000${c.name}`, () => [{ code: c.name }, edited ? "'s output, edited by hand" : "'s accepted content"]];
    }
  }
  switch (r.kind) {
    case "forced":
      return [`forced\u0000${r.detail}`, () => [{ code: r.detail }]];
    case "new":
      return [`new\u0000${id}`, () => (r.detail === "never accepted" ? ["new pair ", { code: id }] : [{ code: id }, `: ${r.detail}`])];
    case "rejected":
      return [`rejected\u0000${id}`, () => [{ code: id }, ": last attempt rejected"]];
    case "carried":
      return [`carried\u0000${id}`, () => [{ code: id }, ": a person's edit carried forward"]];
    default:
      // A reason without its component (a lock file of another version): the pair's own, in the planner's words.
      return [`${r.kind}\u0000${owner}\u0000${r.detail}`, () => [{ code: owner }, `: ${r.detail}`]];
  }
}

/** `added \`g\`, removed \`h\``: the dependencies added to and removed from a pair's requires. */
function requiresParts(reasons: readonly Reason[]): string {
  const list = (how: string) => reasons.filter((r) => r.detail.endsWith(` ${how} requires`)).map((r) => r.component?.name ?? "");
  const added = list("added to");
  const removed = list("removed from");
  return [added.length > 0 ? `added ${added.join(", ")}` : "", removed.length > 0 ? `removed ${removed.join(", ")}` : ""].filter(Boolean).join("; ");
}

/** A name as plain text. */
export function nameText(name: readonly NamePart[]): string {
  return name.map((p) => (typeof p === "string" ? p : p.code)).join("");
}

/** A name in a medium: its words as they are made safe there, its names quoted. */
export function nameIn(name: readonly NamePart[], words: (s: string) => string, quote: (s: string) => string): string {
  return name.map((p) => (typeof p === "string" ? words(p) : quote(p.code))).join("");
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
  return grouped(n);
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
  // One pair is named, unless the cause's name names it already; more are counted, and named under it.
  const only = cause.roots.length === 1 ? cause.roots[0]!.id : undefined;
  const head = only !== undefined && !cause.name.some((p) => typeof p !== "string" && p.code === only) ? quote(only) : plural(cause.roots.length, "pair");
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
  return plan.pairs.map((p) => node(plan, p, p.action));
}

/**
 * The pairs a run considered, in plan order, with their outcome as status and the plan's reasons:
 * a run's causes are its plan's, with the same pairs, whatever became of them.
 */
export function runNodes(plan: Plan, report: RunReport): CauseNode[] {
  const outcomes = new Map(report.pairs.map((o) => [o.id, o]));
  const nodes: CauseNode[] = [];
  for (const p of plan.pairs) {
    const o = outcomes.get(p.id);
    if (o) nodes.push(node(plan, p, o.status));
  }
  return nodes;
}

function node(plan: Plan, p: PlannedPair, status: string): CauseNode {
  const pair = plan.workflow.pairs?.get(p.id);
  const template = pair?.template;
  const piece = pair?.piece;
  return {
    id: p.id,
    requires: p.requires,
    status,
    reasons: p.action === "run" ? p.reasons : [],
    planned: p.action === "run",
    wave: p.wave,
    ...(template !== undefined ? { template } : {}),
    ...(piece !== undefined ? { section: { file: piece.file, heading: headingOf(piece) } } : {}),
    ...(pair?.assembly !== undefined ? { assembly: true } : {}),
  };
}

/** A section's heading as its file shows it (`Install` of `## Install`), else its id. */
function headingOf(piece: { id: string; text: string }): string {
  const first = piece.text.slice(0, piece.text.indexOf("\n") === -1 ? undefined : piece.text.indexOf("\n"));
  const heading = /^ {0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$/.exec(first)?.[1];
  return heading || piece.id;
}

// ---------------------------------------------------------------------------------------------
// What explains a cause

/** An entry of the configuration diff (src/diff/diff.ts EntryChange): the workflow's settings, a pair, a prompt. */
export interface ChangedEntry {
  kind: "workflow" | "pair" | "prompt" | "file" | "section";
  id: string | null;
}

/**
 * The entries of the configuration diff that explain a cause, the diff of its edit: for the
 * workflow's specification or constraints, its settings; for a pair's prompt, that prompt's entry;
 * for a pair's model, guard, generator or requires, its entry (or the workflow's settings, where
 * the pair's entry did not change: a default changed); for a new pair, its entries. An instance of
 * a foreach pair is explained by its template's entries; a file by its own diff, a section by the
 * diff of its text.
 */
export function changesFor<C extends ChangedEntry>(cause: Pick<Cause, "key">, changes: readonly C[], templateOf: (id: string) => string | undefined): C[] {
  const entry = (kind: string, id: string | null) => changes.find((c) => c.kind === kind && c.id === id);
  const [kind, subject = ""] = cause.key.split("\u0000");
  const found: (C | undefined)[] = [];
  switch (kind) {
    case "context":
      found.push(entry("workflow", null));
      break;
    case "prompt":
      found.push(entry("prompt", subject));
      break;
    case "file":
      found.push(entry("file", subject));
      break;
    case "section":
      found.push(entry("section", subject));
      break;
    case "new": {
      const name = templateOf(subject) ?? subject;
      found.push(entry("pair", name), entry("prompt", name));
      break;
    }
    case "model":
    case "guard":
    case "guard_config":
    case "generator":
    case "generator_config":
    case "requires":
      found.push(entry("pair", subject) ?? entry("workflow", null));
      break;
  }
  return found.filter((c): c is C => c !== undefined);
}
