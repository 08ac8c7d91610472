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
  /**
   * Files a traced run (`--trace-reads`) saw the pair's commands read that nothing names, relative to
   * the workflow file, sorted: the next plan hashes them into the reference. Absent when there are none.
   */
  observed?: string[];
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
  /**
   * A rejecting guard's feedback, by guard key: the history the retry after it was asked with, so
   * a run that asks the same request again replays the rejection and asks that retry's request.
   */
  feedback?: Record<string, string>;
}

/**
 * One artifact of a request recorded twice (two runs, two stores): the newer record, with the
 * verdicts and a rejection's feedback of both, the newer's winning where both judged.
 */
export function joinRequestEntry(older: RequestEntry, newer: RequestEntry): RequestEntry {
  const feedback = (older.feedback ?? newer.feedback) ? { ...older.feedback, ...newer.feedback } : undefined;
  return { ...older, ...newer, verdicts: { ...older.verdicts, ...newer.verdicts }, ...(feedback ? { feedback } : {}) };
}

/**
 * A batch pairflow gave a provider's batch API (OpenAI's Batch API, Anthropic's Message Batches),
 * kept until its results are collected and used: in the state directory (src/records/batches.ts),
 * each change written before the step that made it returns, and in the CI snapshot. A later run,
 * here or on a fresh runner, that asks what it asked collects it instead of asking again.
 */
export interface BatchRecord {
  /** pairflow's name for it, chosen before anything is sent: every custom_id starts with it. */
  key: string;
  provider: "openai" | "anthropic";
  /** Where its requests go (the synchronous endpoint's URL): batches are per provider and endpoint. */
  endpoint: string;
  /** When it was submitted. */
  at: string;
  /** The provider's id; absent while it is being submitted (a run killed then finds it by `key`). */
  id?: string;
  /** OpenAI: the input file uploaded for it. */
  file?: string;
  /** Its requests: custom_id, a digest of what it asks (see askedDigest), and the pair that asked. */
  requests: { customId: string; asked: string; pair: string }[];
  /**
   * submitting: recorded, perhaps not yet created; submitted: created; cancelling: pairflow asked
   * the provider to cancel it (what it finished is still collected); ended: its results are in.
   */
  state: "submitting" | "submitted" | "cancelling" | "ended";
  /** Its results, by custom_id, once collected here: the content is in the local store. */
  results?: Record<string, BatchResult>;
  /** The custom_ids whose results a run has already used, and when it collected them: a later use buys nothing. */
  used?: string[];
  /** When its results were collected. */
  collected?: string;
}

/** One request's result in a batch: the artifact's hash (and usage), or why there is none. */
export type BatchResult =
  | { contentHash: string; tokens: TokenUsage | null }
  | {
      /** errored, expired: the provider could not answer it in the batch; canceled: the batch was cancelled first; invalid: the answer had no content. */
      failed: "errored" | "expired" | "canceled" | "invalid";
      message: string;
    };

/** A request index entry as pairflow writes it (the local store and the CI snapshot read them back). */
export function isRequestEntry(v: unknown): v is RequestEntry {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Partial<RequestEntry>;
  return (
    typeof e.contentHash === "string" &&
    /^[0-9a-f]{64}$/.test(e.contentHash) &&
    typeof e.pair === "string" &&
    typeof e.configRef === "string" &&
    typeof e.at === "string" &&
    typeof e.verdicts === "object" &&
    e.verdicts !== null &&
    Object.values(e.verdicts).every((x) => x === "accepted" || x === "rejected")
  );
}

/** A batch record as pairflow writes it, checked as far as it is relied on. */
export function isBatchRecord(v: unknown): v is BatchRecord {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Partial<BatchRecord>;
  return (
    typeof r.key === "string" &&
    /^[0-9a-f]{8,64}$/.test(r.key) &&
    (r.provider === "openai" || r.provider === "anthropic") &&
    typeof r.endpoint === "string" &&
    typeof r.at === "string" &&
    (r.id === undefined || typeof r.id === "string") &&
    (r.file === undefined || typeof r.file === "string") &&
    (r.state === "submitting" || r.state === "submitted" || r.state === "cancelling" || r.state === "ended") &&
    Array.isArray(r.requests) &&
    r.requests.every(
      (q) => typeof q === "object" && q !== null && typeof q.customId === "string" && typeof q.asked === "string" && typeof q.pair === "string",
    ) &&
    (r.results === undefined ||
      (typeof r.results === "object" &&
        r.results !== null &&
        Object.values(r.results).every(
          (x: unknown) =>
            typeof x === "object" &&
            x !== null &&
            (typeof (x as { contentHash?: unknown }).contentHash === "string" ||
              (["errored", "expired", "canceled", "invalid"].includes((x as { failed?: string }).failed ?? "") &&
                typeof (x as { message?: unknown }).message === "string")),
        ))) &&
    (r.used === undefined || (Array.isArray(r.used) && r.used.every((u) => typeof u === "string"))) &&
    (r.collected === undefined || typeof r.collected === "string")
  );
}
