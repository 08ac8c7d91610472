/**
 * `--force`, `--from ID` and `--only ID...`: which pairs are forced to run, and which are considered
 * at all. An id names a pair, or a `foreach` pair as written (its template), which stands for every
 * instance it has, as it does in `requires:`.
 */
import { UsageError } from "../model/errors.js";
import type { Graph } from "../model/graph.js";
import type { Reason } from "../model/plan.js";
import type { Selection } from "../model/run.js";
import { didYouMean } from "../model/text.js";
import type { Pair, Workflow } from "../model/workflow.js";
import { downstreamOf } from "../graph/graph.js";

/** The reason a pair is forced to run, or undefined when it is planned on its merits. */
export type ForceRule = (id: string) => Reason | undefined;

/** The pairs `--only` names, templates expanded; undefined without --only (or with --force, which considers all). */
export function onlyPairs(workflow: Workflow, selection: Selection): Set<string> | undefined {
  if (selection.only === undefined || selection.force) return undefined;
  return new Set(selection.only.flatMap((id) => pairsNamed(workflow, id, "--only")));
}

export function forceRule(workflow: Workflow, graph: Graph, selection: Selection): ForceRule {
  const chosen = [selection.force && "--force", selection.only && "--only", selection.from !== undefined && "--from"].filter(Boolean);
  if (chosen.length > 1) throw new UsageError(`${chosen.join(" and ")} cannot be combined; choose one`);
  if (selection.force) return () => ({ kind: "forced", detail: "--force" });
  if (selection.from !== undefined) {
    const from = selection.from;
    const start = pairsNamed(workflow, from, "--from");
    const forced = new Set([...start, ...downstreamOf(graph, start)]);
    return (id) => (forced.has(id) ? { kind: "forced", detail: `--from ${from}` } : undefined);
  }
  const only = onlyPairs(workflow, selection);
  if (only !== undefined) return (id) => (only.has(id) ? { kind: "forced", detail: "--only" } : undefined);
  return () => undefined;
}

/** The pairs considered: all of them, or with --only the selected pairs and everything they depend on. */
export function scopeOf(workflow: Workflow, graph: Graph, selection: Selection): Set<string> {
  const only = onlyPairs(workflow, selection);
  return only === undefined ? new Set(graph.order) : withDependencies(graph, only);
}

/** The pairs and everything they depend on. */
export function withDependencies(graph: Graph, pairs: Iterable<string>): Set<string> {
  const scope = new Set(pairs);
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

/**
 * The pairs an id given to `flag` names: the pair itself, or every instance of the foreach pair
 * written with that id. A UsageError, with the nearest name, when it names none.
 */
function pairsNamed(workflow: Workflow, id: string, flag: string): string[] {
  if (workflow.pairs.has(id)) return [id];
  const instances = [...workflow.pairs.values()].filter((p) => p.template === id || inSlice(p, id)).map((p) => p.id);
  if (instances.length > 0) return instances;
  const names = [...new Set([...workflow.pairs.values()].map((p) => p.template ?? p.id))];
  const hint = didYouMean(id, names);
  throw new UsageError(`${flag} ${id}: no such pair in ${workflow.name}` + (hint ? `; did you mean "${hint}"?` : `; pairs are: ${names.join(", ")}`));
}

/**
 * Whether an instance of a foreach over files and values is in the slice `template[part]`: every
 * instance of one value (`translate[fr]`), of one file (its pieces too) or one section in every
 * value (`translate[docs/a.md]`, `translate[docs/a.md#install]`). An instance's own id
 * (`translate[fr:docs/a.md]`) names that instance alone, as any id does.
 */
function inSlice(pair: Pair, id: string): boolean {
  if (pair.template === undefined || pair.value === undefined || !id.startsWith(`${pair.template}[`) || !id.endsWith("]")) return false;
  const part = id.slice(pair.template.length + 1, -1);
  const item = `${pair.value}:${part}`;
  return part === pair.value || pair.item === item || pair.item!.startsWith(`${item}#`);
}
