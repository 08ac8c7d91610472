import { didYouMean } from "../model/text.js";
import type { Graph } from "../model/graph.js";

/** A graph problem at a key path of the workflow document, e.g. ["action_pairs", "a", "requires", 0]. */
export interface GraphIssue {
  path: (string | number)[];
  message: string;
}

export function buildGraph(pairs: { id: string; requires: string[] }[]): { graph: Graph | null; issues: GraphIssue[] } {
  const issues: GraphIssue[] = [];
  const n = pairs.length;
  // Pairs are numbered in file order; the walk below works on the numbers.
  const index = new Map<string, number>();
  for (let i = 0; i < n; i++) index.set(pairs[i]!.id, i);
  const requires = new Map<string, string[]>();
  const dependents = new Map<string, string[]>();
  for (const p of pairs) dependents.set(p.id, []);
  const dependentsOf: number[][] = Array.from({ length: n }, () => []);
  const pending = new Int32Array(n);

  for (let i = 0; i < n; i++) {
    const p = pairs[i]!;
    const deps: string[] = [];
    for (let k = 0; k < p.requires.length; k++) {
      const dep = p.requires[k]!;
      const at = index.get(dep);
      if (dep === p.id) {
        issues.push({ path: ["action_pairs", p.id, "requires", k], message: `"${p.id}" requires itself; remove it from its own requires` });
      } else if (at === undefined) {
        issues.push({ path: ["action_pairs", p.id, "requires", k], message: unknownDependency(dep, index) });
      } else {
        deps.push(dep);
        dependents.get(dep)!.push(p.id);
        dependentsOf[at]!.push(i);
        pending[i]!++;
      }
    }
    requires.set(p.id, deps);
  }

  // Kahn's algorithm, taking ready pairs in file order so that output is stable and familiar. A
  // pair becomes ready in the round after its last dependency, so the rounds are the waves.
  const waveOf = new Map<string, number>();
  const waves: string[][] = [];
  const order: string[] = [];
  let ready: number[] = [];
  for (let i = 0; i < n; i++) if (pending[i] === 0) ready.push(i);
  while (ready.length > 0) {
    const wave: string[] = [];
    const next: number[] = [];
    for (const i of ready) {
      const id = pairs[i]!.id;
      waveOf.set(id, waves.length);
      wave.push(id);
      order.push(id);
      for (const d of dependentsOf[i]!) if (--pending[d]! === 0) next.push(d);
    }
    waves.push(wave);
    ready = next.sort((a, b) => a - b);
  }

  // Pairs left over lie on or behind a cycle: each cycle is reported at the requires entry that starts it.
  if (issues.length > 0 || order.length < n) {
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
  }
  if (issues.length > 0) return { graph: null, issues };
  return { graph: { order, waves, waveOf, requires, dependents }, issues };
}

function unknownDependency(dep: string, index: Map<string, number>): string {
  const ids = [...index.keys()];
  const close = ids.find((id) => id.toLowerCase() === dep.toLowerCase()) ?? didYouMean(dep, ids);
  return `requires "${dep}", which is not a pair of this workflow` + (close ? `; did you mean "${close}"?` : `; pairs are: ${ids.join(", ")}`);
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
