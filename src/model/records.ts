/** What pairflow records about accepted artifacts: lock file entries, store records, token usage. */

export interface TokenUsage {
  input: number;
  output: number;
}

export const LOCK_VERSION = 1;

export interface LockEntry {
  configRef: string;
  contentHash: string;
  /** generated: produced by the pair; human: an edit of its output file, kept as the accepted content. */
  source: "generated" | "human";
  model: string | null;
  /** Short digests of each hash component (see componentDigests). */
  components: Record<string, string>;
  attempts: number;
  tokens: TokenUsage;
  durationMs: number;
  acceptedAt: string;
}

export interface LockFile {
  version: typeof LOCK_VERSION;
  workflow: string;
  pairs: Record<string, LockEntry>;
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
