/** `--force`, `--from ID` and `--only ID...`: which pairs are forced to run, and which are considered at all. */
import { UsageError } from "../model/errors.js";
import type { Graph } from "../model/graph.js";
import type { Reason } from "../model/plan.js";
import type { Selection } from "../model/run.js";
import { didYouMean } from "../model/text.js";
import type { Workflow } from "../model/workflow.js";
import { downstreamOf } from "../graph/graph.js";

/** The reason a pair is forced to run, or undefined when it is planned on its merits. */
export type ForceRule = (id: string) => Reason | undefined;

export function forceRule(workflow: Workflow, graph: Graph, selection: Selection): ForceRule {
  const chosen = [selection.force && "--force", selection.only && "--only", selection.from !== undefined && "--from"].filter(Boolean);
  if (chosen.length > 1) throw new UsageError(`${chosen.join(" and ")} cannot be combined; choose one`);
  const check = (id: string, flag: string) => {
    if (workflow.pairs.has(id)) return;
    const hint = didYouMean(id, workflow.pairs.keys());
    throw new UsageError(
      `${flag} ${id}: no such pair in ${workflow.name}` + (hint ? `; did you mean "${hint}"?` : `; pairs are: ${[...workflow.pairs.keys()].join(", ")}`),
    );
  };
  if (selection.force) return () => ({ kind: "forced", detail: "--force" });
  if (selection.from !== undefined) {
    const from = selection.from;
    check(from, "--from");
    const downstream = downstreamOf(graph, [from]);
    return (id) => (id === from || downstream.has(id) ? { kind: "forced", detail: `--from ${from}` } : undefined);
  }
  if (selection.only !== undefined) {
    for (const id of selection.only) check(id, "--only");
    const only = new Set(selection.only);
    return (id) => (only.has(id) ? { kind: "forced", detail: "--only" } : undefined);
  }
  return () => undefined;
}

/** The pairs considered: all of them, or with --only the selected pairs and everything they depend on. */
export function scopeOf(graph: Graph, selection: Selection): Set<string> {
  if (selection.only === undefined || selection.force) return new Set(graph.order);
  const scope = new Set(selection.only);
  const stack = [...scope];
  while (stack.length > 0) {
    for (const dep of graph.requires.get(stack.pop()!)!) {
      if (!scope.has(dep)) {
        scope.add(dep);
        stack.push(dep);
      }
    }
  }
  return scope;
}
