import type { CanonicalValue } from "./values.js";
import type { Workflow } from "./workflow.js";
import type { Graph } from "./graph.js";

/** The plan: what pairflow will do with every pair, and why. */

/** What a pair contributes to its reference before its dependencies are known. */
export interface OwnComponents {
  prompt: CanonicalValue;
  model: string | null;
  guard: string | null;
  guard_config: Record<string, CanonicalValue>;
  /** pairflow's own keys; each is present only when the pair uses it. */
  generator?: { name: string | null; config: Record<string, CanonicalValue> };
  guards?: CanonicalValue;
  context?: { specification?: string; constraints?: string };
  inputs?: Record<string, string>;
}

/** Dependency references and accepted content hashes, by dependency id. */
export interface Upstream {
  refs: Record<string, string>;
  artifactHashes: Record<string, string>;
}

/** Why a pair runs. The set is fixed and documented in the README. */
export const REASON_KINDS = [
  "new",
  "prompt",
  "model",
  "guard",
  "guard_config",
  "generator",
  "inputs",
  "upstream",
  "upstream_artifact",
  "rejected",
  "forced",
] as const;

export type ReasonKind = (typeof REASON_KINDS)[number];

export interface Reason {
  kind: ReasonKind;
  detail: string;
}

/** Where a skipped pair's accepted artifact is recorded, and what its content is now. */
export interface AcceptedArtifact {
  /** The record that matched the configRef, or the workspace for an output edited by hand. */
  source: "lock" | "store" | "workspace";
  /** Hash of the accepted content: the workspace output file's when it exists, else the record's. */
  contentHash: string;
  /** The workspace output file differs from the recorded content: a hand edit, kept and never overwritten. */
  edited: boolean;
}

export interface PlannedPair {
  id: string;
  /** 1 for the first wave. */
  wave: number;
  requires: string[];
  /** null only where it cannot be known until an upstream pair has run. */
  configRef: string | null;
  action: "run" | "skip";
  reasons: Reason[];
  /** For skipped pairs. */
  artifact: AcceptedArtifact | null;
  /** What this pair hashes before its dependencies are known. */
  own: OwnComponents;
  /** Digests of every hash component, when configRef is known. */
  components: Record<string, string> | null;
}

export interface Plan {
  workflow: Workflow;
  graph: Graph;
  workflowRef: string;
  /** Pairs wave by wave, file order within a wave. */
  pairs: PlannedPair[];
  byId: Map<string, PlannedPair>;
}
