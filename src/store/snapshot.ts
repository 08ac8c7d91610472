/**
 * A snapshot of a workflow's accepted state, as a remote store keeps it: a manifest naming, for
 * every pair, the one accepted artifact the workflow's current state references (its StoreRecord:
 * configRef, content hash, components and the rest of a lock entry), and a pack of their contents
 * by hash, kept apart so that a planner can read the manifest without downloading any content.
 * See docs/cache.md for how the GitHub Actions cache holds them.
 *
 * Everything here is about the data; where it is kept and how it travels is the store's business.
 */
import { componentIdOfKey } from "../model/component.js";
import {
  componentsOf,
  isBatchRecord,
  isRequestEntry,
  joinRequestEntry,
  lockEntry,
  LOCK_VERSION,
  type BatchRecord,
  type LockEntry,
  type LockFile,
  type RequestEntry,
  type StoreRecord,
} from "../model/records.js";
import { asDict, dict, own } from "../model/dict.js";
import { sha256Hex } from "../refs/hash.js";

/** 2: with the request index (`requests`); a manifest of version 1 (none) is still read. */
export const SNAPSHOT_VERSION = 2;

/** Request index entries a snapshot keeps at most, newest first: enough for reverts and retries, bounded whatever the history. */
export const MAX_SNAPSHOT_REQUESTS = 1000;

export interface SnapshotManifest {
  version: typeof SNAPSHOT_VERSION;
  /** The workflow's name, as a lock file names it. */
  name: string;
  /** Who wrote it (a run, or a shard of one) and its checkpoint number there: 1, 2, ... */
  writer: string;
  seq: number;
  at: string;
  /** The digest naming the pack that holds every artifact's content; null when there are no artifacts. */
  pack: string | null;
  /** Set when a pack of the same contents was found damaged: names a fresh pack instead (its key cannot be saved again). */
  packSalt?: string;
  /** The accepted artifact of each pair, by pair id: generated ones only (a hand edit never leaves the machine). */
  artifacts: Record<string, StoreRecord>;
  /**
   * What pairflow's generators returned for recent requests, accepted and rejected, by request key
   * (src/refs/request.ts): their contents are in the pack too. Absent in a manifest of version 1.
   */
  requests?: Record<string, RequestEntry[]>;
  /**
   * The provider batches the workflow's runs submitted and have not done with (their results are
   * not here: a runner that restores them collects them from the provider). Absent: none.
   */
  batches?: BatchRecord[];
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The manifest in `text`, or why it cannot be used. */
export function parseManifest(text: string): SnapshotManifest | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `its manifest is not JSON (${(err as Error).message})`;
  }
  const m = value as Partial<SnapshotManifest> | null;
  if (m === null || typeof m !== "object" || (m.version !== SNAPSHOT_VERSION && m.version !== 1))
    return `its manifest is not of version 1 or ${SNAPSHOT_VERSION}`;
  if (typeof m.name !== "string" || typeof m.writer !== "string" || typeof m.seq !== "number") return "its manifest lacks its name, writer or sequence";
  if (m.pack !== null && (typeof m.pack !== "string" || !HEX64.test(m.pack))) return "its manifest names no valid pack";
  if (typeof m.artifacts !== "object" || m.artifacts === null) return "its manifest has no artifacts";
  for (const [pair, record] of Object.entries(m.artifacts)) {
    if (!usableRecord(pair, record)) return `its manifest's entry for ${pair} is not an accepted artifact`;
  }
  if (m.packSalt !== undefined && typeof m.packSalt !== "string") return "its manifest's pack salt is not text";
  if (m.requests !== undefined) {
    if (typeof m.requests !== "object" || m.requests === null) return "its manifest's requests are not a mapping";
    for (const [key, entries] of Object.entries(m.requests)) {
      if (!HEX64.test(key) || !Array.isArray(entries) || !entries.every(isRequestEntry)) return `its manifest's request entry ${key.slice(0, 12)} is not one`;
    }
    asDict(m.requests);
  }
  if (m.batches !== undefined && (!Array.isArray(m.batches) || !m.batches.every(isBatchRecord))) return "its manifest's batches are not batch records";
  if (m.pack !== packDigest(m.artifacts, m.packSalt, m.requests)) return "its manifest's pack does not match its artifacts";
  asDict(m.artifacts);
  return { ...(m as SnapshotManifest), version: SNAPSHOT_VERSION };
}

function usableRecord(pair: string, r: StoreRecord | undefined): boolean {
  return (
    typeof r === "object" &&
    r !== null &&
    r.pair === pair &&
    r.status === "accepted" &&
    r.source !== "human" &&
    typeof r.configRef === "string" &&
    HEX64.test(r.configRef) &&
    typeof r.contentHash === "string" &&
    HEX64.test(r.contentHash) &&
    typeof r.components === "object" &&
    r.components !== null
  );
}

/**
 * The digest of the pack that holds these artifacts' contents (and the request index entries'):
 * content-addressed, so a run that accepted nothing new names the pack already saved, and saving it
 * again is a no-op.
 */
export function packDigest(artifacts: Record<string, StoreRecord>, salt?: string, requests?: Record<string, RequestEntry[]>): string | null {
  const hashes = [
    ...new Set([
      ...Object.values(artifacts).map((r) => r.contentHash!),
      ...Object.values(requests ?? {}).flatMap((entries) => entries.map((e) => e.contentHash)),
    ]),
  ].sort();
  return hashes.length === 0 ? null : sha256Hex(hashes.join("\n") + (salt === undefined ? "" : `\n${salt}`));
}

/**
 * The request index entries a snapshot keeps: this run's newest first, then the previous
 * snapshot's, each request's artifacts merged by content (verdicts and feedback joined), at most `limit`
 * entries in all, the most recent kept.
 */
export function currentRequests(
  previous: Record<string, RequestEntry[]> | undefined,
  mine: ReadonlyMap<string, RequestEntry[]>,
  limit = MAX_SNAPSHOT_REQUESTS,
): Record<string, RequestEntry[]> {
  const merged = new Map<string, RequestEntry[]>();
  for (const source of [mine, new Map(Object.entries(previous ?? {}))]) {
    for (const [key, entries] of source) {
      const into = merged.get(key) ?? [];
      for (const e of entries) {
        const known = into.findIndex((x) => x.contentHash === e.contentHash);
        if (known === -1) into.push(e);
        else into[known] = joinRequestEntry(e, into[known]!);
      }
      merged.set(key, into);
    }
  }
  const all = [...merged].flatMap(([key, entries]) => entries.map((e) => ({ key, e })));
  all.sort((a, b) => (a.e.at < b.e.at ? 1 : a.e.at > b.e.at ? -1 : 0));
  const kept = dict<RequestEntry[]>();
  for (const { key, e } of all.slice(0, limit)) (kept[key] ??= []).push(e);
  return kept;
}

/** The manifest as a lock file: what a planner compares the workflow against where the repository commits none. */
export function manifestLock(manifest: SnapshotManifest): LockFile {
  const pairs = dict<LockEntry>();
  for (const [pair, r] of Object.entries(manifest.artifacts)) pairs[pair] = lockEntryOf(r);
  return { version: LOCK_VERSION, workflow: manifest.name, pairs };
}

export function lockEntryOf(r: StoreRecord): LockEntry {
  // What a traced run saw read is in the components (`observed:<path>`), which the record keeps.
  const observed = Object.keys(r.components)
    .map(componentIdOfKey)
    .filter((c) => c.kind === "observed")
    .map((c) => c.name)
    .sort();
  const entry: LockEntry = {
    configRef: r.configRef,
    contentHash: r.contentHash!,
    source: r.source ?? "generated",
    model: r.model ?? null,
    components: r.components,
    attempts: r.attempts ?? 0,
    tokens: { input: r.tokens?.input ?? 0, output: r.tokens?.output ?? 0 },
    durationMs: r.durationMs ?? 0,
    acceptedAt: r.at,
  };
  if (observed.length > 0) entry.observed = observed;
  return entry;
}

export function recordOfLockEntry(pair: string, e: LockEntry): StoreRecord {
  return {
    pair,
    configRef: e.configRef,
    status: "accepted",
    contentHash: e.contentHash,
    components: componentsOf(e),
    at: e.acceptedAt,
    source: e.source,
    model: e.model,
    attempts: e.attempts,
    tokens: { ...e.tokens },
    durationMs: e.durationMs,
  };
}

/**
 * The artifacts of the current state: the run's lock file where it has a generated entry, else what
 * the previous snapshot held (a pair that failed this time keeps its last accepted artifact); only
 * pairs of the workflow, so what no current reference uses is pruned.
 */
export function currentArtifacts(previous: Record<string, StoreRecord>, lock: LockFile | null, pairs: ReadonlySet<string>): Record<string, StoreRecord> {
  const artifacts = dict<StoreRecord>();
  for (const pair of [...pairs].sort()) {
    const entry = lockEntry(lock, pair);
    const before = own(previous, pair);
    if (entry !== undefined) {
      // A hand edit is the person's, never shared; the pair has no shareable artifact now.
      if (entry.source === "generated") artifacts[pair] = recordOfLockEntry(pair, entry);
    } else if (before !== undefined) {
      artifacts[pair] = before;
    }
  }
  return artifacts;
}

/** Whether two snapshots hold the same artifacts (same references and contents), so the newer need not be saved. */
export function sameArtifacts(a: Record<string, StoreRecord>, b: Record<string, StoreRecord>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => {
    const other = own(b, k);
    return other !== undefined && a[k]!.configRef === other.configRef && a[k]!.contentHash === other.contentHash;
  });
}

/** Where a snapshot's state comes from while a run goes on: its lock file and this machine's contents. */
export interface SnapshotSource {
  /** The workflow's name (the lock file's `workflow`). */
  name: string;
  /** The workflow's pair ids: artifacts of other pairs are pruned. */
  pairs: ReadonlySet<string>;
  /** The run's lock file as it is now (the engine rewrites it after every acceptance). */
  lock(): LockFile | null;
  /** This machine's copy of the content (local store, output file), checked against the hash; undefined when it has none. */
  content(pair: string, hash: string): Buffer | undefined;
  /** The provider batches not done with, as the state directory records them now. */
  batches?(): BatchRecord[];
}

/** Batch records as a snapshot keeps them: without results, which a runner collects again from the provider. */
export function snapshotBatches(batches: readonly BatchRecord[]): BatchRecord[] {
  return batches.map(({ results: _, ...rest }) => ({ ...rest, state: rest.state === "ended" ? "submitted" : rest.state }));
}
