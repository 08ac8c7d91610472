/**
 * Why a pair runs or is skipped, from the one plan: every component of its reference now and as the
 * lock file accepted it, which changed, the plan's decision and reasons, where its artifact would
 * come from, its request key, and the command that shows its prompt.
 */
import { UsageError } from "../model/errors.js";
import { component, componentsOfLock, type Component } from "../model/component.js";
import type { PlannedPair, ReuseForecast } from "../model/plan.js";
import { EXPLAIN_VERSION, type ComponentRow, type Explanation } from "../model/explain.js";
import { componentsOf, lockEntry } from "../model/records.js";
import { dict } from "../model/dict.js";
import { didYouMean } from "../model/text.js";
import { commandNetwork } from "../model/workflow.js";
import { plannedComponents } from "../plan/plan.js";
import { renderPrompt } from "../prompt/render.js";
import { componentDigests } from "../refs/configRef.js";
import { requestKey } from "../refs/request.js";
import { displayPath } from "../config/parse.js";
import { acceptedContent, planOpened } from "./plan.js";
import { openState, type Opened, type StateOptions } from "./state.js";

export interface ExplainRequest extends StateOptions {
  pair: string;
  /** The workflow as it was named on the command line (for the command that shows the prompt). */
  target?: string;
}

export async function explainPair(request: ExplainRequest): Promise<Explanation> {
  const opened = openState(request.target, request);
  const { workflow } = opened;
  const pair = workflow.pairs.get(request.pair);
  if (pair === undefined) {
    const ids = [...workflow.pairs.keys()];
    const guess = didYouMean(request.pair, ids);
    const shown = ids.length > 20 ? `${ids.slice(0, 20).join(", ")}, and ${ids.length - 20} more` : ids.join(", ");
    throw new UsageError(`no pair "${request.pair}" in ${workflow.name}${guess ? `; did you mean "${guess}"?` : ""} (pairs: ${shown})`);
  }
  const { plan } = await planOpened(opened, {});
  const planned = plan.byId.get(pair.id)!;
  const entry = lockEntry(opened.view.lock, pair.id);
  const explanation: Explanation = {
    version: EXPLAIN_VERSION,
    pair: pair.id,
    ...(pair.template !== undefined ? { template: pair.template } : {}),
    workflow: { name: workflow.name, path: displayPath(workflow.path, request.cwd) },
    decision: { action: planned.action, reasons: planned.reasons },
    configRef: planned.configRef,
    accepted: entry ? { configRef: entry.configRef, contentHash: entry.contentHash, source: entry.source, acceptedAt: entry.acceptedAt } : null,
    components: componentRows(currentComponents(planned, plan.byId), entry ? componentsOfLock(componentsOf(entry)) : []),
    artifact: artifactOf(planned),
    requestKey: firstRequestKey(opened, plan.byId, planned),
    prompt: promptCommand(pair.id, request.target),
    network: commandNetwork(pair),
  };
  return explanation;
}

/**
 * The pair's components as the plan made them. Where its reference cannot be known yet, its own
 * are known and each dependency's two are not: they come out with no digest.
 */
function currentComponents(planned: PlannedPair, byId: ReadonlyMap<string, PlannedPair>): { known: Component[]; unknown: Component[] } {
  const digests = plannedComponents(planned);
  if (digests !== null) return { known: componentsOfLock(digests), unknown: [] };
  const known = componentsOfLock(componentDigests(planned.own, { refs: dict(), artifactHashes: dict() }));
  const unknown: Component[] = [];
  for (const id of planned.requires) {
    // A dependency that is skipped has its reference and content; one that runs first has neither yet.
    const dep = byId.get(id)!;
    if (dep.action === "skip" && dep.configRef !== null && dep.artifact !== null)
      known.push(component("upstream", id, dep.configRef.slice(0, 16)), component("artifact", id, dep.artifact.contentHash.slice(0, 16)));
    else unknown.push(component("upstream", id, ""), component("artifact", id, ""));
  }
  return { known, unknown };
}

/** Rows for the components now and accepted, by key, in the order of the lock file's keys. */
export function componentRows(now: { known: Component[]; unknown: Component[] }, accepted: Component[]): ComponentRow[] {
  const rows = new Map<string, ComponentRow>();
  const id = (c: Component) => `${c.kind}\u0000${c.name}`;
  for (const c of now.known) rows.set(id(c), { kind: c.kind, name: c.name, label: c.label, now: c.digest, accepted: null, status: "added" });
  for (const c of now.unknown) rows.set(id(c), { kind: c.kind, name: c.name, label: c.label, now: null, accepted: null, status: "unknown" });
  for (const c of accepted) {
    const row = rows.get(id(c));
    if (row === undefined) rows.set(id(c), { kind: c.kind, name: c.name, label: c.label, now: null, accepted: c.digest, status: "removed" });
    else {
      row.accepted = c.digest;
      if (row.status !== "unknown") row.status = row.now === c.digest ? "same" : "changed";
    }
  }
  return [...rows.values()].sort((a, b) => compare(a.kind, b.kind) || compare(a.name, b.name));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function artifactOf(planned: PlannedPair): Explanation["artifact"] {
  const a = planned.artifact;
  if (planned.action === "skip" && a !== null) return { from: a.source, content: a.content, contentHash: a.contentHash };
  const reuse: ReuseForecast | undefined = planned.reuse;
  if (reuse?.kind === "request" || reuse?.kind === "rejudge")
    return { from: reuse.kind, content: null, contentHash: null, reused: { pair: reuse.from, at: reuse.at } };
  return { from: "generator", content: null, contentHash: null, ...(reuse?.kind === "unless" ? { unless: reuse.deps } : {}) };
}

/**
 * The key of its first attempt's request, as a run makes it: known when no dependency runs first,
 * and every dependency's accepted content is at hand.
 */
function firstRequestKey(opened: Opened, byId: ReadonlyMap<string, PlannedPair>, planned: PlannedPair): string | null {
  const { workflow, view } = opened;
  const pair = workflow.pairs.get(planned.id)!;
  const dependencies: { id: string; content: string }[] = [];
  for (const id of pair.requires) {
    const dep = byId.get(id)!;
    if (dep.action === "run" || dep.artifact === null) return null;
    const content = view.text ? view.text(workflow.pairs.get(id)!, dep.artifact.contentHash) : acceptedContent(opened, dep);
    if (content === undefined) return null;
    dependencies.push({ id, content });
  }
  const prompt = renderPrompt({
    prompt: pair.prompt,
    specification: workflow.specification,
    constraints: workflow.constraints,
    dependencies,
    history: [],
    ...(planned.revision !== undefined && planned.action === "run" ? { revision: planned.revision } : {}),
  });
  return requestKey({ pair, own: planned.own, prompt, dependencies, attempt: 1 });
}

/** `pairflow prompt PAIR [PATH]`, quoted for a POSIX shell where it needs to be. */
export function promptCommand(id: string, target: string | undefined): string {
  return ["pairflow", "prompt", id, ...(target !== undefined ? [target] : [])].map(shellWord).join(" ");
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
