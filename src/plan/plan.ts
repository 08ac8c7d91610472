/**
 * The plan: for every pair, `skip` (an accepted artifact with the same configRef exists) or `run`,
 * with every reason. Pure over its inputs: the workflow, its graph, input-file hashes, and a view
 * of the accepted state (lock file, local store, workspace output files).
 */
import type { Pair, Workflow } from "../model/workflow.js";
import type { Graph } from "../model/graph.js";
import { componentDigests, configRef, ownComponents, workflowRef } from "../refs/configRef.js";
import { type OwnComponents, type Upstream } from "../model/plan.js";
import type { LockEntry, LockFile } from "../model/records.js";
import type { StoreRecord } from "../model/records.js";
import { type Reason, type Plan, type PlannedPair, REASON_KINDS } from "../model/plan.js";

/** The accepted state a plan is made against. */
export interface PlanState {
  lock: LockFile | null;
  /** Records of the local store (or another store that can answer without downloading). */
  record(pair: string, configRef: string): StoreRecord | undefined;
  /** Hash of the pair's output file in the workspace, when it has one and it exists. */
  workspaceHash(pair: Pair): string | undefined;
}

export interface PlanOptions {
  /** Pairs to run whatever their state, each with the reason why. */
  force?: (id: string) => Reason | undefined;
  /** Hashes of each pair's `inputs` files, by pair id. */
  inputs?: Map<string, Record<string, string>>;
}

export function makePlan(workflow: Workflow, graph: Graph, state: PlanState, options: PlanOptions = {}): Plan {
  const byId = new Map<string, PlannedPair>();
  for (const id of graph.order) byId.set(id, decidePair(workflow, graph, id, byId, state, options));
  const pairs = graph.waves.flat().map((id) => byId.get(id)!);
  return { workflow, graph, workflowRef: workflowRef(workflow), pairs, byId };
}

/**
 * Decides one pair, given the decisions of its dependencies. The run engine calls this again as
 * each pair becomes ready, with its dependencies' actual outcomes, so plan and run agree by design.
 */
export function decidePair(
  workflow: Workflow,
  graph: Graph,
  id: string,
  decided: Map<string, PlannedPair>,
  state: PlanState,
  options: PlanOptions,
): PlannedPair {
  const pair = workflow.pairs.get(id)!;
  const own = ownComponents(workflow, pair, options.inputs?.get(pair.id));
  const previous = state.lock?.pairs[pair.id];
  const deps = pair.requires.map((d) => decided.get(d)!);
  const base = { id: pair.id, wave: graph.waveOf.get(pair.id)! + 1, requires: pair.requires, own };
  const forced = options.force?.(pair.id);

  // An output file that is not the last accepted content was written by someone else: it is kept
  // as this pair's accepted artifact and never overwritten, whatever else changed.
  const current = state.workspaceHash(pair);
  const handEdit = current !== undefined && current !== previous?.contentHash;

  // A dependency that will run has no accepted content yet, so this pair's reference is unknown.
  const unknown = deps.filter((d) => d.configRef === null || d.action === "run");
  if (unknown.length > 0) {
    if (handEdit) return { ...base, configRef: null, action: "skip", reasons: [], artifact: { source: "workspace", contentHash: current, edited: true }, components: null };
    const reasons = [
      ...(forced ? [forced] : []),
      ...(previous ? ownChanges(previous, componentDigests(own, { refs: {}, artifactHashes: {} })) : [newReason()]),
      ...unknown.map((d): Reason => ({ kind: "upstream", detail: d.action === "run" ? `${d.id} will run` : `${d.id}'s reference is not known yet` })),
    ];
    return { ...base, configRef: null, action: "run", reasons: sortReasons(reasons), artifact: null, components: null };
  }

  const upstream: Upstream = { refs: {}, artifactHashes: {} };
  for (const d of deps) {
    upstream.refs[d.id] = d.configRef!;
    upstream.artifactHashes[d.id] = d.artifact!.contentHash;
  }
  const ref = configRef(own, upstream);
  const components = componentDigests(own, upstream);

  const record: { source: "lock" | "store"; contentHash: string } | undefined =
    previous?.configRef === ref
      ? { source: "lock", contentHash: previous.contentHash }
      : acceptedInStore(state.record(pair.id, ref));
  if (record && !forced) {
    const artifact = { source: record.source, contentHash: current ?? record.contentHash, edited: current !== undefined && current !== record.contentHash };
    return { ...base, configRef: ref, action: "skip", reasons: [], artifact, components };
  }
  if (handEdit) {
    return { ...base, configRef: ref, action: "skip", reasons: [], artifact: { source: "workspace", contentHash: current, edited: true }, components };
  }

  const reasons: Reason[] = [];
  if (forced) reasons.push(forced);
  if (previous) {
    reasons.push(...ownChanges(previous, components));
    reasons.push(...upstreamChanges(previous, components, deps));
    if (reasons.length === 0 && !forced) reasons.push(newReason("no accepted artifact for this reference"));
  } else if (!forced) {
    reasons.push(newReason());
  }
  const last = state.record(pair.id, ref);
  if (last?.status === "rejected") {
    reasons.push({ kind: "rejected", detail: `last attempt rejected${last.feedback ? `: ${firstLine(last.feedback)}` : ""}` });
  }
  return { ...base, configRef: ref, action: "run", reasons: sortReasons(reasons), artifact: null, components };
}

function acceptedInStore(rec: StoreRecord | undefined): { source: "store"; contentHash: string } | undefined {
  return rec?.status === "accepted" && rec.contentHash ? { source: "store", contentHash: rec.contentHash } : undefined;
}

function newReason(detail = "never accepted"): Reason {
  return { kind: "new", detail };
}

const UPSTREAM_PREFIXES = ["upstream:", "artifact:"];

/** Changes in the pair's own components (everything but its dependencies), named by part. */
function ownChanges(previous: LockEntry, current: Record<string, string>): Reason[] {
  const reasons: Reason[] = [];
  const isOwn = (k: string) => !UPSTREAM_PREFIXES.some((p) => k.startsWith(p));
  const keys = new Set([...Object.keys(previous.components), ...Object.keys(current)].filter(isOwn));
  for (const key of [...keys].sort()) {
    const before = previous.components[key];
    const after = current[key];
    if (before === after) continue;
    const change = before === undefined ? "added" : after === undefined ? "removed" : "changed";
    reasons.push(describeChange(key, change, previous));
  }
  return reasons;
}

function describeChange(key: string, change: string, previous: LockEntry): Reason {
  if (key.startsWith("prompt.")) return { kind: "prompt", detail: `${key} ${change}` };
  if (key.startsWith("context.")) return { kind: "prompt", detail: `workflow ${key.slice("context.".length)} ${change}` };
  if (key === "model") return { kind: "model", detail: `model changed${previous.model !== null ? ` (was ${previous.model})` : ""}` };
  if (key === "guard" || key === "guards") return { kind: "guard", detail: `${key} ${change}` };
  if (key.startsWith("guard_config.")) return { kind: "guard_config", detail: `${key} ${change}` };
  if (key === "generator" || key.startsWith("generator_config.")) return { kind: "generator", detail: `${key} ${change}` };
  if (key.startsWith("input:")) return { kind: "inputs", detail: `${key.slice("input:".length)} ${change}` };
  // Only a lock file written by hand or by another version has other keys.
  return { kind: "new", detail: `${key} ${change}` };
}

function upstreamChanges(previous: LockEntry, current: Record<string, string>, deps: PlannedPair[]): Reason[] {
  const reasons: Reason[] = [];
  for (const d of deps) {
    const refBefore = previous.components[`upstream:${d.id}`];
    if (refBefore === undefined) {
      reasons.push({ kind: "upstream", detail: `${d.id} added to requires` });
      continue;
    }
    if (refBefore !== current[`upstream:${d.id}`]) reasons.push({ kind: "upstream", detail: `${d.id}'s reference changed` });
    if (previous.components[`artifact:${d.id}`] !== current[`artifact:${d.id}`]) {
      reasons.push({
        kind: "upstream_artifact",
        detail: d.artifact?.edited ? `${d.id}'s output was edited by hand` : `${d.id}'s accepted content changed`,
      });
    }
  }
  for (const key of Object.keys(previous.components)) {
    if (key.startsWith("upstream:") && !deps.some((d) => `upstream:${d.id}` === key)) {
      reasons.push({ kind: "upstream", detail: `${key.slice("upstream:".length)} removed from requires` });
    }
  }
  return reasons;
}

function sortReasons(reasons: Reason[]): Reason[] {
  return reasons
    .map((r, i) => ({ r, i }))
    .sort((a, b) => REASON_KINDS.indexOf(a.r.kind) - REASON_KINDS.indexOf(b.r.kind) || a.i - b.i)
    .map(({ r }) => r);
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 120 ? line.slice(0, 117) + "..." : line;
}

export function totals(plan: Plan): { pairs: number; run: number; skip: number } {
  const run = plan.pairs.filter((p) => p.action === "run").length;
  return { pairs: plan.pairs.length, run, skip: plan.pairs.length - run };
}
