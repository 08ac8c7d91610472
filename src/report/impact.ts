/**
 * What a plan or a run touches, put in the order a reader needs it: the changes that cause the
 * work (root causes), each with the pairs it cascades to, and the affected part of the graph,
 * bounded so it stays readable. Pure functions over nodes; the job summary and the pull request
 * comment draw from them.
 *
 * A pair runs either for a reason of its own (its prompt, model, guard, inputs changed; it is new;
 * it was forced) or only because a dependency runs or changed. The planner says the second with
 * `upstream` and `upstream_artifact` reasons naming the dependency; a pair whose every reason names
 * a dependency that is itself affected is a cascade of that dependency, not a cause.
 */
import type { Reason } from "../model/plan.js";

/** One pair as these reports see it. */
export interface ImpactNode {
  id: string;
  requires: string[];
  /** `run`, `skip`, or a run's outcome: `executed`, `reused`, `failed`, `blocked`, `interrupted`. */
  status: string;
  /** The planner's reasons (for a pair that runs or ran); empty otherwise. */
  reasons: Reason[];
  /** Whether the plan runs it: what a plan or its run affects (absent: its status says). */
  planned?: boolean;
  /** The instance that puts a split file's sections together: its order and requires follow from the sections. */
  assembly?: boolean;
}

/** Statuses that change nothing: outside the affected subgraph. */
export const UNCHANGED = new Set(["skip", "reused"]);

export function isAffected(node: { status: string; planned?: boolean }): boolean {
  return node.planned ?? !UNCHANGED.has(node.status);
}

/** A root cause and the affected pairs that only follow from it, in plan order. */
export interface CauseGroup {
  root: ImpactNode;
  /** Every affected pair downstream of the root whose reasons all point back into the cascade. */
  cascade: string[];
}

/**
 * The affected pairs grouped by root cause, in plan order. A cascaded pair reached from two roots is
 * in both groups (each root would re-run it alone).
 */
export function causeGroups(nodes: ImpactNode[]): CauseGroup[] {
  const affected = new Map(nodes.filter(isAffected).map((n) => [n.id, n]));
  const dependents = new Map<string, string[]>();
  for (const n of affected.values()) {
    for (const dep of n.requires) {
      if (!affected.has(dep)) continue;
      const list = dependents.get(dep);
      if (list) list.push(n.id);
      else dependents.set(dep, [n.id]);
    }
  }
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const cascaded = new Set([...affected.values()].filter((n) => isCascaded(n, affected)).map((n) => n.id));
  const groups: CauseGroup[] = [];
  for (const root of affected.values()) {
    if (cascaded.has(root.id)) continue;
    const seen = new Set<string>();
    const queue = [...(dependents.get(root.id) ?? [])];
    while (queue.length > 0) {
      const id = queue.pop()!;
      if (seen.has(id) || !cascaded.has(id)) continue;
      seen.add(id);
      queue.push(...(dependents.get(id) ?? []));
    }
    groups.push({ root, cascade: [...seen].sort((a, b) => order.get(a)! - order.get(b)!) });
  }
  return groups;
}

/**
 * Whether a pair is affected only because of its dependencies: blocked by one, or every reason it
 * has names an affected dependency (`upstream: g_test will run`, `g_test's reference changed`, …).
 * A dependency added to or removed from `requires` is a change of the pair's own.
 */
function isCascaded(node: ImpactNode, affected: ReadonlyMap<string, ImpactNode>): boolean {
  const deps = new Set(node.requires.filter((d) => affected.has(d)));
  if (deps.size === 0) return false;
  // Blocked, with no reasons of the plan's to tell why it would have run: it follows from what blocked it.
  if (node.status === "blocked" && node.reasons.length === 0) return true;
  if (node.reasons.length === 0) return false;
  return node.reasons.every((r) => followsFrom(node, r, deps));
}

/** The reasons a pair has of its own: all but those that name an affected dependency. */
export function ownReasons(node: ImpactNode, affected: ReadonlyMap<string, ImpactNode>): Reason[] {
  const deps = new Set(node.requires.filter((d) => affected.has(d)));
  return node.reasons.filter((r) => !followsFrom(node, r, deps));
}

/**
 * A reason that names one of these dependencies as running or changed (a set: a file's assembly has
 * one reason per section). Where a split file's sections are put together, a section added,
 * removed or moved changes its requires and its order: these follow from the sections that changed.
 */
function followsFrom(node: ImpactNode, r: Reason, deps: ReadonlySet<string>): boolean {
  if (node.assembly && deps.size > 0 && (r.component?.kind === "upstream" || (r.component?.kind === "generator_config" && r.component.name === "order")))
    return true;
  return (
    (r.component?.kind === "upstream" || r.component?.kind === "artifact") &&
    deps.has(r.component.name) &&
    // A dependency added to or removed from requires is a change of the pair's own settings.
    !/ (added to|removed from) requires$/.test(r.detail)
  );
}

/** Failed pairs come first, then the rest in plan order. */
export function failuresFirst<T extends { root: ImpactNode }>(groups: T[]): T[] {
  return [...groups.filter((g) => g.root.status === "failed"), ...groups.filter((g) => g.root.status !== "failed")];
}

/** The most pairs a drawn graph holds: beyond this, labels shrink until no one can read them. */
export const GRAPH_NODE_LIMIT = 40;

export interface Subgraph {
  /** The nodes to draw, in plan order. */
  nodes: ImpactNode[];
  /** Affected pairs left out for the node limit. */
  omittedAffected: number;
  /** Unchanged pairs not drawn. */
  unchanged: number;
}

/**
 * The affected pairs, at most `limit`: failed ones first, then root causes (those that reach the
 * most first), then their cascades, in plan order. A small workflow (within the limit as a whole) is drawn whole, unchanged
 * pairs included, so its shape is visible.
 */
export function affectedSubgraph(nodes: ImpactNode[], limit = GRAPH_NODE_LIMIT): Subgraph {
  if (nodes.length <= limit) return { nodes, omittedAffected: 0, unchanged: 0 };
  const affected = nodes.filter(isAffected);
  // Each root with how many pairs follow from it: the roots that reach the most are drawn first.
  const roots = new Map(causeGroups(nodes).map((g) => [g.root.id, g.cascade.length]));
  const rank = (n: ImpactNode) => (n.status === "failed" ? 0 : roots.has(n.id) ? 1 : 2);
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const kept = new Set(
    [...affected]
      .sort((a, b) => rank(a) - rank(b) || (roots.get(b.id) ?? 0) - (roots.get(a.id) ?? 0) || order.get(a.id)! - order.get(b.id)!)
      .slice(0, limit)
      .map((n) => n.id),
  );
  return { nodes: affected.filter((n) => kept.has(n.id)), omittedAffected: affected.length - kept.size, unchanged: nodes.length - affected.length };
}
