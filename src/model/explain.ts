/** What `pairflow explain` says of a pair (its JSON is schemas/explain.schema.json). */
import type { ComponentKind } from "./component.js";
import type { AcceptedArtifact, PlannedPair, Reason } from "./plan.js";
import type { LockEntry } from "./records.js";

export const EXPLAIN_VERSION = 1;

/** One component of the pair's reference: its digest now and in the accepted lock entry. */
export interface ComponentRow {
  kind: ComponentKind;
  name: string;
  label: string;
  /** The start of its digest now; null when it cannot be known yet (a dependency that runs first) or it is gone. */
  now: string | null;
  /** The start of its digest in the lock file's entry; null when the entry has none (or there is no entry). */
  accepted: string | null;
  /** same, changed, added (not in the entry), removed (only in the entry), unknown (not known until a dependency has run). */
  status: "same" | "changed" | "added" | "removed" | "unknown";
}

/**
 * Where the pair's artifact would come from:
 * - `workspace`: its output file, a person's edit kept as it is;
 * - `lock`, `store`, `remote`: the accepted artifact of this very reference, recorded there;
 * - `request`, `rejudge`: a run answers its request with an artifact generated before (no model call);
 * - `generator`: a run calls its generator.
 */
export type ArtifactSource = "workspace" | "lock" | "store" | "remote" | "request" | "rejudge" | "generator";

export interface Explanation {
  version: typeof EXPLAIN_VERSION;
  pair: string;
  /** For an instance of a foreach pair: the pair as written. */
  template?: string;
  workflow: { name: string; path: string };
  decision: { action: PlannedPair["action"]; reasons: Reason[] };
  /** Its configRef now; null when it cannot be known until a dependency has run. */
  configRef: string | null;
  /** The lock file's entry for the pair, if it has one. */
  accepted: { configRef: string; contentHash: string; source: LockEntry["source"]; acceptedAt: string } | null;
  components: ComponentRow[];
  artifact: {
    from: ArtifactSource;
    /** Where a skipped pair's content is read: its output file, the local store, the remote store; null when nowhere (and nothing needs it). */
    content: AcceptedArtifact["content"];
    contentHash: string | null;
    /** For `request`/`rejudge`: the pair the earlier artifact was generated for, and when. */
    reused?: { pair: string; at: string };
    /** A run that makes no call if these dependencies, which run first, reproduce their content. */
    unless?: string[];
  };
  /** The request key of its first attempt; null when a dependency's content is not known yet. */
  requestKey: string | null;
  /** The command that prints the prompt its generator would receive. */
  prompt: string;
  /** Its commands (generator, guards) and whether each has the network in the sandbox (commandNetwork). */
  network: { command: "generator" | "guard"; network: boolean }[];
}
