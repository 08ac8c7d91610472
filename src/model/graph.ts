/**
 * The dependency graph of a workflow's pairs: checks (unknown and self dependencies, cycles) and
 * the orders pairflow works in (topological order, waves, dependents). Pure: no I/O.
 */

export interface Graph {
  /** Pair ids in a topological order; among ready pairs, file order. */
  order: string[];
  /** Waves by topological level: wave n holds the pairs whose deepest dependency is in wave n-1. */
  waves: string[][];
  /** 0-based wave index of each pair. */
  waveOf: Map<string, number>;
  requires: Map<string, string[]>;
  dependents: Map<string, string[]>;
}
