/** The plan: what pairflow will do with every pair, why, and where the content it reuses comes from. */
import type { ComponentId } from "./component.js";
import type { Graph } from "./graph.js";
import type { LockFile, RequestEntry, StoreRecord } from "./records.js";
import type { Selection } from "./run.js";
import type { CanonicalValue } from "./values.js";
import type { Pair, Workflow } from "./workflow.js";

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
  /** Files the generator and the guard read (scripts, schema files, `files:` globs, what a traced run saw them read), when there are any. */
  files?: Partial<PairFiles>;
  /** The version of pairflow's own prompt layout, for pairs whose rendered prompt goes to a generator. */
  layout?: number;
  /** For an instance over a piece of a file (`split`): the sha256 of the piece's text. */
  piece?: string;
}

/**
 * `{path: sha256}` of the files a pair's generator and its guards read, by who reads them; paths are
 * relative to the workflow file's directory.
 */
export interface PairFiles {
  generator: Record<string, string>;
  guard: Record<string, string>;
  /**
   * Files a traced run saw its commands read that nothing names (the lock entry's `observed`), with
   * their sha256, or "missing" for one that is gone; absent when there are none.
   */
  observed?: Record<string, string>;
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
  "carried",
  "forced",
] as const;

export type ReasonKind = (typeof REASON_KINDS)[number];

export interface Reason {
  kind: ReasonKind;
  detail: string;
  /** The part of the reference that changed, when the reason is one: which one, typed (see ./component.ts). */
  component?: ComponentId;
}

/** Where accepted content can be read: the pair's output file, the local store, a remote store. */
export type ContentSource = "output" | "store" | "remote";

/** A skipped pair's accepted artifact: where it is recorded, what its content is now, and where to read it. */
export interface AcceptedArtifact {
  /** The record that matched the configRef, or the workspace for an output edited by hand. */
  source: "lock" | "store" | "remote" | "workspace";
  /** Hash of the accepted content: the workspace output file's when it exists, else the record's. */
  contentHash: string;
  /** The workspace output file differs from the recorded content: a hand edit, kept and never overwritten. */
  edited: boolean;
  /** Where the content can be read; null when nowhere, which the plan allows only when nothing needs it. */
  content: ContentSource | null;
}

/**
 * What the plan expects of a pair that runs, as to model calls (see src/refs/request.ts):
 * - `request`: an artifact generated for its first attempt's very request, which its guard
 *   accepted, answers it: no model call;
 * - `rejudge`: one its guard has not judged yet is judged first: no model call if it passes;
 * - `unless`: its request is not known yet; it makes no call if these dependencies, which run
 *   first, reproduce the content they had (and its earlier request is answered).
 */
export type ReuseForecast = { kind: "request" | "rejudge"; from: string; at: string } | { kind: "unless"; deps: string[] };

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
  /**
   * Digests of every hash component, when configRef is known. Absent on a skipped pair: its
   * digests are needed only if a run writes its lock entry again, and plannedComponents makes them
   * from `dependencies` then.
   */
  components?: Record<string, string> | null;
  /** A skipped pair's dependencies, as decided when it was (what its digests are made from). */
  dependencies?: readonly PlannedPair[];
  /** For a pair that runs: whether it expects to make model calls (absent: it does). */
  reuse?: ReuseForecast;
  /**
   * A person's edit of the pair's output (of its region of a split file's output): the text a run
   * gives its generator to keep (`carried`), or, on a skipped pair, the text that stands for its
   * content where the file is put back together.
   */
  revision?: string;
  /** A person's edit kept although the pair's sources changed since (carry_edits would carry it forward). */
  stale?: boolean;
}

export interface Plan {
  workflow: Workflow;
  graph: Graph;
  workflowRef: string;
  selection: Selection;
  /** The pairs considered (all of them, except with --only), wave by wave, file order within a wave. */
  pairs: PlannedPair[];
  byId: Map<string, PlannedPair>;
  /** Pairs the lock file records that the workflow no longer has (a deleted file's instance): a run drops them from it. */
  removed?: string[];
}

/** A file's sha256, and the sha256 of its text with CRLF line endings as LF (the same when it has none, or is not text). */
export interface FileHash {
  raw: string;
  text: string;
}

/**
 * How the planner sees the world: every read of files, stores and the lock file goes through this
 * view, so the planner itself is pure and a test can hand it an in-memory one.
 */
export interface StateView {
  /** The lock file beside the workflow (or, for a pull request, the one the plan is made against). */
  lock: LockFile | null;
  /** The local store's record for this configuration, if any (accepted or rejected). */
  record(pair: string, configRef: string): StoreRecord | undefined;
  /** Whether the local store holds this content. */
  hasContent(hash: string): boolean;
  /** The pair's output file as it is now; undefined when it has none or it does not exist. */
  outputHash(pair: Pair): FileHash | undefined;
  /** Content hashes of every accepted artifact the local store holds for this pair that it generated (any reference). */
  generatedHashes(pair: string): ReadonlySet<string>;
  /** `{path: sha256}` of the files the pair's `inputs` globs match. */
  inputHashes(pair: Pair): Record<string, string>;
  /** The files the pair's generator and guards read, with their sha256, those the lock file says a traced run saw them read included (see PairFiles). */
  fileHashes(pair: Pair): PairFiles;
  /** The accepted record a remote store holds for this configuration (its content verified), if any. */
  remote?(pair: string, configRef: string): Promise<StoreRecord | undefined>;
  /**
   * The text of a pair's accepted content, as a dependent's prompt would hold it: its output file
   * when that holds it, else the store's copy; undefined when it is not at hand (no forecast then).
   */
  text?(pair: Pair, contentHash: string): string | undefined;
  /** The store's copy of content, as text (never an output file); undefined when the store does not hold it. */
  storedText?(contentHash: string): string | undefined;
  /** The text of a pair's output file as it is now; undefined when it has none (or it is not text). */
  outputText?(pair: Pair): string | undefined;
  /**
   * What pairflow's generators returned for this request whose content can be had (the local
   * store's request index, then the remote store's); absent: no forecast.
   */
  requests?(key: string): readonly RequestEntry[];
}
