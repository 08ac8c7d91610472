/** What pairflow records about accepted artifacts: lock file entries, store records, token usage. */
import { asDict, dict, own } from "./dict.js";

/**
 * What a generator call used, as the provider reported it. `input` counts every input token, those
 * the provider's prompt cache served or took included; the cache and batch fields say which were
 * priced differently (src/estimate/prices.ts costOf). Sums (a lock entry's, a run's totals) keep
 * input and output only.
 */
export interface TokenUsage {
  input: number;
  output: number;
  /** Of `input`: read from the provider's prompt cache (OpenAI cached_tokens, Anthropic cache_read_input_tokens). */
  cacheRead?: number;
  /** Of `input`: written to the prompt cache (Anthropic cache_creation_input_tokens). */
  cacheWrite?: number;
  /** Bought through the provider's batch API, at its batch price. */
  batch?: boolean;
}

export const LOCK_VERSION = 1;

export interface LockEntry {
  configRef: string;
  contentHash: string;
  /** generated: produced by the pair; human: an edit of its output file, kept as the accepted content. */
  source: "generated" | "human";
  model: string | null;
  /**
   * Short digests of each hash component (see componentDigests). Read from a lock file, they are
   * kept as the JSON text of the mapping, checked but not decoded: a plan needs them only for a
   * pair that changed. componentsOf decodes either form.
   */
  components: Record<string, string> | ComponentsText;
  attempts: number;
  tokens: TokenUsage;
  durationMs: number;
  acceptedAt: string;
}

/** The JSON text of a mapping of component names to digests, as a lock file held it (checked when read). */
export type ComponentsText = string & { readonly __componentsText: true };

/** A lock entry's components as a mapping (decoded from its text as a dictionary: see src/model/dict.ts). */
export function componentsOf(entry: Pick<LockEntry, "components">): Record<string, string> {
  const c = entry.components;
  return typeof c === "string" ? asDict(JSON.parse(c) as Record<string, string>) : c;
}

export interface LockFile {
  version: typeof LOCK_VERSION;
  workflow: string;
  /** Entries by pair id: a dictionary where pairflow makes one (any text is a pair id); read with lockEntry. */
  pairs: Record<string, LockEntry>;
}

/** An empty lock file of the workflow. */
export function emptyLock(workflow: string): LockFile {
  return { version: LOCK_VERSION, workflow, pairs: dict() };
}

/** The lock file's entry for the pair, if it has one: a pair may be called "constructor". */
export function lockEntry(lock: LockFile | null | undefined, id: string): LockEntry | undefined {
  return own(lock?.pairs, id);
}

export interface StoreRecord {
  pair: string;
  configRef: string;
  status: "accepted" | "rejected";
  /** Content hash of the accepted artifact (accepted records only). */
  contentHash?: string;
  /** The last rejection's feedback (rejected records only). */
  feedback?: string;
  components: Record<string, string>;
  at: string;
  /** How the accepted artifact came to be, so a lock entry can be restored from the record. */
  source?: "generated" | "human";
  model?: string | null;
  attempts?: number;
  tokens?: { input: number; output: number };
  durationMs?: number;
}

/** A guard's verdict on an artifact. */
export type Verdict = "accepted" | "rejected";

/**
 * An artifact one of pairflow's generators returned for a request (see src/refs/request.ts), and
 * what the guards that judged it said: the request index answers a later identical request with it.
 */
export interface RequestEntry {
  contentHash: string;
  /** The pair and reference it was generated for, and when. */
  pair: string;
  configRef: string;
  at: string;
  model: string | null;
  /** What the call that made it used, as the provider reported it; null when it reported nothing. */
  tokens: TokenUsage | null;
  /** Verdicts by guard key (src/refs/request.ts guardKey). */
  verdicts: Record<string, Verdict>;
}
