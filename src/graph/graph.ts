import { didYouMean } from "../model/text.js";
import type { Graph } from "../model/graph.js";

/** A graph problem at a key path of the workflow document, e.g. ["action_pairs", "a", "requires", 0]. */
export interface GraphIssue {
  path: (string | number)[];
  message: string;
}

export function buildGraph(pairs: { id: string; requires: string[] }[]): { graph: Graph | null; issues: GraphIssue[] } {
  const issues: GraphIssue[] = [];
  const ids = new Set(pairs.map((p) => p.id));
  const requires = new Map<string, string[]>();
  const dependents = new Map<string, string[]>();
  for (const p of pairs) dependents.set(p.id, []);

  for (const p of pairs) {
    const deps: string[] = [];
    p.requires.forEach((dep, i) => {
      const at = ["action_pairs", p.id, "requires", i];
      if (dep === p.id) {
        issues.push({ path: at, message: `"${p.id}" requires itself; remove it from its own requires` });
      } else if (!ids.has(dep)) {
        issues.push({ path: at, message: unknownDependency(dep, ids) });
      } else {
        deps.push(dep);
        dependents.get(dep)!.push(p.id);
      }
    });
    requires.set(p.id, deps);
  }

  for (const cycle of findCycles(
    pairs.map((p) => p.id),
    requires,
  )) {
    const [first, second] = cycle as [string, string];
    const index = pairs.find((p) => p.id === first)!.requires.indexOf(second);
    issues.push({
      path: ["action_pairs", first, "requires", index],
      message: `dependency cycle: ${[...cycle, first].join(" -> ")} (each pair requires the next); remove one of these requires entries`,
    });
  }
  if (issues.length > 0) return { graph: null, issues };

  // Kahn's algorithm, taking ready pairs in file order so that output is stable and familiar.
  const waveOf = new Map<string, number>();
  const waves: string[][] = [];
  const order: string[] = [];
  const pending = new Map(pairs.map((p) => [p.id, requires.get(p.id)!.length]));
  let ready = pairs.filter((p) => pending.get(p.id) === 0).map((p) => p.id);
  const position = new Map(pairs.map((p, i) => [p.id, i]));
  while (ready.length > 0) {
    const next: string[] = [];
    for (const id of ready) {
      // A loop, not Math.max(...deps): spreading a list of 200k requires overflows the call stack.
      let wave = 0;
      for (const dep of requires.get(id)!) wave = Math.max(wave, waveOf.get(dep)! + 1);
      waveOf.set(id, wave);
      (waves[wave] ??= []).push(id);
      order.push(id);
      for (const dependent of dependents.get(id)!) {
        const left = pending.get(dependent)! - 1;
        pending.set(dependent, left);
        if (left === 0) next.push(dependent);
      }
    }
    ready = next.sort((a, b) => position.get(a)! - position.get(b)!);
  }
  for (const wave of waves) wave.sort((a, b) => position.get(a)! - position.get(b)!);
  return { graph: { order, waves, waveOf, requires, dependents }, issues };
}

function unknownDependency(dep: string, ids: Set<string>): string {
  const close = [...ids].find((id) => id.toLowerCase() === dep.toLowerCase()) ?? didYouMean(dep, ids);
  return `requires "${dep}", which is not a pair of this workflow` + (close ? `; did you mean "${close}"?` : `; pairs are: ${[...ids].join(", ")}`);
}

/**
 * Every elementary cycle reachable by depth-first search, each reported once, starting at its
 * first pair in file order. Iterative, so deep chains cannot overflow the stack.
 */
function findCycles(ids: string[], requires: Map<string, string[]>): string[][] {
  const position = new Map(ids.map((id, i) => [id, i]));
  const WHITE = 0,
    GREY = 1,
    BLACK = 2;
  const color = new Map(ids.map((id) => [id, WHITE]));
  const cycles: string[][] = [];
  const seen = new Set<string>();
  for (const root of ids) {
    if (color.get(root) !== WHITE) continue;
    const path: string[] = [];
    const stack: { id: string; next: number }[] = [{ id: root, next: 0 }];
    color.set(root, GREY);
    path.push(root);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const deps = requires.get(frame.id)!;
      if (frame.next < deps.length) {
        const dep = deps[frame.next++]!;
        const c = color.get(dep);
        if (c === WHITE) {
          color.set(dep, GREY);
          path.push(dep);
          stack.push({ id: dep, next: 0 });
        } else if (c === GREY) {
          // The path from dep to frame.id closes a loop: each pair on it requires the next.
          const loop = path.slice(path.lastIndexOf(dep));
          const cycle = rotateToFirst(loop, position);
          const key = cycle.join("\0");
          if (!seen.has(key)) {
            seen.add(key);
            cycles.push(cycle);
          }
        }
      } else {
        color.set(frame.id, BLACK);
        path.pop();
        stack.pop();
      }
    }
  }
  return cycles;
}

function rotateToFirst(cycle: string[], position: Map<string, number>): string[] {
  let start = 0;
  for (let i = 1; i < cycle.length; i++) {
    if (position.get(cycle[i]!)! < position.get(cycle[start]!)!) start = i;
  }
  return [...cycle.slice(start), ...cycle.slice(0, start)];
}

/** Every pair downstream of `roots` (excluding the roots themselves), in no particular order. */
export function downstreamOf(graph: Graph, roots: Iterable<string>): Set<string> {
  const out = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    for (const d of graph.dependents.get(stack.pop()!) ?? []) {
      if (!out.has(d)) {
        out.add(d);
        stack.push(d);
      }
    }
  }
  return out;
}
