/**
 * The GitHub Actions cache as pairflow's remote store: one snapshot of a workflow's accepted state
 * per run (and per checkpoint of a long run), not one entry per artifact. See docs/cache.md.
 *
 * A snapshot is two cache entries:
 * - a manifest, `<prefix>-state-<workflow>-<ref>-<writer>-<seq>`: every pair's accepted artifact
 *   (pair -> configRef -> content hash, and the rest of its lock entry) and the pack's digest;
 * - a pack, `<prefix>-pack-<digest>`: the contents by hash, content-addressed, so a pack already
 *   saved is never uploaded again, and a key another job has taken (saved, or is still uploading)
 *   counts as saved: the contents are there or on their way.
 *
 * A manifest may so name a pack whose upload never finishes (the other job is cancelled). A job
 * that then finds the manifest but not its pack runs the pairs whose content it needs, never
 * fails, and saves their contents under a fresh pack key: the old one stays taken for a while.
 *
 * A job restores the newest manifest of its workflow in one round trip (restore keys: its own ref,
 * the pull request's base, then any), and the pack only when it needs content; it saves at
 * checkpoints and once at the end, nothing when nothing changed. So a run makes a handful of
 * uploads and downloads whatever the number of pairs, which keeps within the rate limit of cache
 * uploads that every workflow of a repository shares.
 *
 * The cache is an optimisation, never a reason for a run to fail. A 429 or 5xx is waited out within
 * a budget (see cacheClient.ts); what still fails is one warning, and the run goes on with the
 * local store. A refused write (a read-only token, as a fork's pull request gets) turns saving off
 * with one warning and leaves restoring on.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as cache from "@actions/cache";
import type { RemoteArtifact, RemoteStore } from "../model/ports.js";
import { joinRequestEntry, type BatchRecord, type LockFile, type RequestEntry, type StoreRecord } from "../model/records.js";
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../refs/hash.js";
import { dict, dictOf, own } from "../model/dict.js";
import { resolveWorkflowPath } from "../workspace/load.js";
import { checkStateDir } from "../workspace/stateDir.js";
import {
  currentArtifacts,
  manifestLock,
  currentRequests,
  packDigest,
  parseManifest,
  sameArtifacts,
  snapshotBatches,
  SNAPSHOT_VERSION,
  type SnapshotManifest,
  type SnapshotSource,
} from "../store/snapshot.js";
import { restore, RetryBudget, save, type CallCounts } from "./cacheClient.js";

/**
 * Where entries are staged, relative to the workspace (the process's working directory). The cache
 * client folds the paths it is given into an entry's version, so each kind of entry always uses the
 * same relative path: that is what lets any job find it.
 */
export const STATE_DIR = ".pairflow/cache/state";
export const PACK_DIR = ".pairflow/cache/pack";
const MANIFEST_FILE = "manifest.json";

/** Which snapshots a job reads and writes. */
export interface SnapshotScope {
  /** The workflow file, relative to the repository root. */
  workflow: string;
  /** The git ref the job runs on (GITHUB_REF): its snapshots are found first. */
  ref: string;
  /** For a pull request, the base branch's ref: its snapshots come next. */
  baseRef?: string;
  /** Names this job's snapshots (letters, digits, dots): a run, an attempt, a shard. */
  writer: string;
}

export interface CacheOptions {
  /**
   * Whether a lookup must have the content in hand (run: the pack is downloaded and every artifact
   * checked against its hash before the plan counts it) or may trust the manifest (plan: no
   * content downloaded).
   */
  contentOnLookup: boolean;
  /** Budget for waiting out 429s and 5xx, per restore and per snapshot save. */
  retryMs?: number;
  /** Time between checkpoints of a long run. */
  checkpointMs?: number;
  /** Progress that is not a problem (a checkpoint that will be tried again at the end). */
  info?: (message: string) => void;
}

export interface CacheStats extends CallCounts {
  /** Pairs looked up by the plan or the run. */
  lookups: number;
  /** Artifacts found and used. */
  found: number;
  /** Artifacts this run added to the snapshot it saved. */
  saved: number;
  /** Entries another job had already saved under the same key. */
  alreadySaved: number;
  /** The manifest restored, if any. */
  restoredKey: string | null;
  /** Snapshots saved (checkpoints and the last one). */
  snapshots: number;
}

/**
 * The scope of a job on a runner: the workflow file relative to the workspace, the job's ref
 * (GITHUB_REF), a pull request's base branch (GITHUB_BASE_REF), and a writer unique to this job
 * step (the workflow run, its attempt, a random tag).
 */
export function scopeFor(target: string, cwd: string, workspace: string, env: NodeJS.ProcessEnv): SnapshotScope {
  const file = path.relative(workspace, resolveWorkflowPath(target, cwd)).split(path.sep).join("/");
  return {
    workflow: file,
    ref: env.GITHUB_REF || "refs/heads/local",
    baseRef: env.GITHUB_BASE_REF ? `refs/heads/${env.GITHUB_BASE_REF}` : undefined,
    writer: [env.GITHUB_RUN_ID || "local", env.GITHUB_RUN_ATTEMPT || "1", randomBytes(3).toString("hex")].join("."),
  };
}

export function stateKeyPrefix(prefix: string, workflow: string, ref?: string): string {
  return `${prefix}-state-${short(workflow)}-` + (ref === undefined ? "" : `${short(ref)}-`);
}

export function packKey(prefix: string, digest: string): string {
  return `${prefix}-pack-${digest}`;
}

function short(text: string): string {
  return sha256Hex(text).slice(0, 12);
}

export class ActionsCacheStore implements RemoteStore {
  readonly name = "the GitHub Actions cache";
  readonly stats: CacheStats = {
    lookups: 0,
    found: 0,
    saved: 0,
    alreadySaved: 0,
    uploads: 0,
    downloads: 0,
    retries: 0,
    waitedMs: 0,
    restoredKey: null,
    snapshots: 0,
  };
  /** Why restoring was turned off, once it has been. */
  disabled: string | null = null;
  /** Why saving was turned off (the cache does not take saves from this job), once it has been. */
  savingOff: string | null = null;
  /** Why the snapshot at the end of the run was not saved, if it was not. */
  notSaved: string | null = null;

  private scope: SnapshotScope | null = null;
  private manifest: SnapshotManifest | null = null;
  /** The pack's contents by hash, once downloaded and checked; null until then. */
  private pack: Map<string, Buffer> | null = null;
  private packTried = false;
  /** Pairs whose content in the pack did not match its hash: never used. */
  private readonly damaged = new Set<string>();
  /** Whether the manifest's pack was not there: its key may be taken by an upload that never finished. */
  private packMissing = false;
  /** What this run accepted, by pair: content in hand for the next snapshot. */
  private readonly accepted = new Map<string, RemoteArtifact>();
  /** What this run's generators returned (and verdicts on earlier artifacts), by request key, with contents by hash. */
  private readonly requestsSeen = new Map<string, RequestEntry[]>();
  private readonly requestContents = new Map<string, Buffer>();
  /** The artifacts of the last snapshot saved or restored, and its pack. */
  private lastSaved: Record<string, StoreRecord> = dict();
  private lastRequests: Record<string, RequestEntry[]> = dict();
  private lastPack: string | null = null;
  /** The batches of the last snapshot saved or restored, as its manifest's JSON. */
  private lastBatches = "[]";
  private seq = 0;
  private source: SnapshotSource | null = null;
  private lastCheckpoint = Date.now();
  private checkpointPending = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly stateDir: string;
  private readonly packDir: string;

  constructor(
    private readonly prefix: string,
    private readonly workspace: string,
    private readonly warn: (message: string) => void,
    private readonly options: CacheOptions,
  ) {
    this.stateDir = path.join(workspace, STATE_DIR);
    this.packDir = path.join(workspace, PACK_DIR);
  }

  /**
   * Removes one of the cache's directories under .pairflow/, after checking that none of .pairflow/
   * and the directories in it is a symbolic link (a pull request can commit one): removing or
   * writing through it would reach outside the workspace.
   */
  private clear(dir: string): void {
    checkStateDir(path.join(this.workspace, ".pairflow"), this.workspace);
    rmSync(dir, { recursive: true, force: true });
  }

  /** Whether the runner offers a cache service at all (it does on GitHub-hosted and most self-hosted runners). */
  static available(): boolean {
    return cache.isFeatureAvailable();
  }

  private budget(): RetryBudget {
    return new RetryBudget(this.options.retryMs ?? 60_000);
  }

  /**
   * Restores the newest manifest for this workflow: the job's own ref first, then the pull
   * request's base, then any ref this job can read. One download; no content.
   */
  open(scope: SnapshotScope): Promise<void> {
    this.scope = scope;
    return this.oneAtATime(async () => {
      const prefixes = [...new Set([scope.ref, ...(scope.baseRef ? [scope.baseRef] : []), undefined])].map((ref) =>
        stateKeyPrefix(this.prefix, scope.workflow, ref),
      );
      const found = await this.restoreManifest(prefixes);
      if (found) {
        this.manifest = found;
        this.lastSaved = found.artifacts;
        this.lastRequests = found.requests ?? dict();
        this.lastPack = found.pack;
        this.lastBatches = JSON.stringify(found.batches ?? []);
      }
    });
  }

  /**
   * The newest manifest the base ref saved (a pull request's base branch), to compare against
   * where the base commits no lock file. One more download; undefined when there is none.
   */
  baseState(): Promise<LockFile | undefined> {
    const scope = this.scope;
    if (!scope?.baseRef) return Promise.resolve(undefined);
    return this.oneAtATime(async () => {
      const found = await this.restoreManifest([stateKeyPrefix(this.prefix, scope.workflow, scope.baseRef)]);
      return found ? manifestLock(found) : undefined;
    });
  }

  /** The restored manifest as a lock file: what a planner counts as accepted where the repository commits no lock file. */
  acceptedState(): LockFile | null {
    return this.manifest && !this.disabled ? manifestLock(this.manifest) : null;
  }

  /** The record of the artifact the snapshot holds for this configuration; with contentOnLookup, only once its content checked out. */
  async lookup(pair: string, configRef: string): Promise<StoreRecord | undefined> {
    this.stats.lookups++;
    const found = this.options.contentOnLookup ? (await this.content(pair, configRef))?.record : this.record(pair, configRef);
    if (found) this.stats.found++;
    return found;
  }

  async fetch(pair: string, configRef: string): Promise<RemoteArtifact | undefined> {
    return this.content(pair, configRef);
  }

  /** What the restored snapshot holds for this request (its contents are in its pack). */
  requests(key: string): RequestEntry[] {
    if (this.disabled || this.packMissing) return [];
    return own(this.manifest?.requests, key) ?? [];
  }

  /** A request index entry's content, from the pack (downloaded once). */
  requestContent(hash: string): Promise<Buffer | undefined> {
    const mine = this.requestContents.get(hash);
    if (mine) return Promise.resolve(mine);
    return this.oneAtATime(async () => {
      await this.loadPack();
      return this.pack?.get(hash);
    });
  }

  /** Keeps what a generator returned for a request (or a verdict on it) for the next snapshot. */
  saveRequest(key: string, entry: RequestEntry, content: Buffer): void {
    const entries = this.requestsSeen.get(key) ?? [];
    const known = entries.findIndex((e) => e.contentHash === entry.contentHash);
    if (known === -1) entries.unshift(entry);
    else {
      // Verdicts and a rejection's feedback joined, the newer winning, as the local store joins them.
      entries[known] = joinRequestEntry(entries[known]!, entry);
    }
    this.requestsSeen.set(key, entries);
    this.requestContents.set(entry.contentHash, content);
  }

  /** The provider batches the restored snapshot holds as not done with: this runner collects them. */
  batches(): BatchRecord[] {
    return this.disabled ? [] : (this.manifest?.batches ?? []);
  }

  /**
   * Saves a checkpoint now (after any in flight): a batch was just submitted, and a runner lost
   * while it waits must not leave the next job to submit it again.
   */
  saveSoon(): void {
    if (!this.source || this.checkpointPending) return;
    this.checkpointPending = true;
    void this.oneAtATime(() => this.saveSafely(false)).finally(() => {
      this.checkpointPending = false;
      this.lastCheckpoint = Date.now();
    });
  }

  /** Keeps the accepted artifact for the next snapshot; a long run saves one at its next checkpoint. */
  save(artifact: RemoteArtifact): Promise<void> {
    this.accepted.set(artifact.record.pair, artifact);
    const interval = this.options.checkpointMs ?? 300_000;
    if (this.source && !this.checkpointPending && Date.now() - this.lastCheckpoint >= interval) {
      this.checkpointPending = true;
      void this.oneAtATime(() => this.saveSafely(false)).finally(() => {
        this.checkpointPending = false;
        this.lastCheckpoint = Date.now();
      });
    }
    return Promise.resolve();
  }

  /** What the snapshot is made of: the run's lock file and this machine's contents. Checkpoints start from here. */
  attach(source: SnapshotSource): void {
    this.source = source;
    this.lastCheckpoint = Date.now();
  }

  /** Saves the snapshot of the run's final state (after any checkpoint in flight), unless nothing changed. */
  finish(): Promise<void> {
    return this.oneAtATime(() => this.saveSafely(true));
  }

  /** A snapshot that cannot be written (a full disk while staging it, say) is a warning, never a failed run. */
  private async saveSafely(final: boolean): Promise<void> {
    try {
      await this.saveSnapshot(final);
    } catch (err) {
      this.saveFailed("failed", `${final ? "saving the workflow's state" : "saving a checkpoint"}: ${(err as Error).message}`, final);
    }
  }

  // -------------------------------------------------------------------------------------------

  private record(pair: string, configRef: string): StoreRecord | undefined {
    const mine = this.accepted.get(pair);
    if (mine?.record.configRef === configRef) return mine.record;
    if (this.disabled || this.damaged.has(pair)) return undefined;
    const r = own(this.manifest?.artifacts, pair);
    return r?.configRef === configRef ? r : undefined;
  }

  private content(pair: string, configRef: string): Promise<RemoteArtifact | undefined> {
    const mine = this.accepted.get(pair);
    if (mine?.record.configRef === configRef) return Promise.resolve(mine);
    if (this.record(pair, configRef) === undefined) return Promise.resolve(undefined);
    return this.oneAtATime(async () => {
      await this.loadPack();
      const record = this.record(pair, configRef);
      const content = record && this.pack?.get(record.contentHash!);
      return record && content ? { record, content } : undefined;
    });
  }

  private async restoreManifest(prefixes: string[]): Promise<SnapshotManifest | undefined> {
    if (this.disabled) return undefined;
    this.clear(this.stateDir);
    try {
      const result = await restore([STATE_DIR], prefixes[0]!, prefixes, this.budget(), this.stats);
      if (!("key" in result)) {
        if (result.kind !== "missing") this.turnOff(`restoring the workflow's state: ${result.reason}`);
        return undefined;
      }
      let manifest: SnapshotManifest | string;
      try {
        manifest = parseManifest(readFileSync(path.join(this.stateDir, MANIFEST_FILE), "utf8"));
      } catch (err) {
        manifest = `unreadable: ${(err as Error).message}`;
      }
      if (typeof manifest === "string") {
        this.warn(`the GitHub Actions cache entry ${result.key} is damaged (${manifest}); not used, so its pairs are planned as if never accepted`);
        return undefined;
      }
      this.stats.restoredKey ??= result.key;
      return manifest;
    } finally {
      this.clear(this.stateDir);
    }
  }

  /** Downloads the manifest's pack once, keeping each content that matches its hash. */
  private async loadPack(): Promise<void> {
    if (this.packTried || this.disabled || !this.manifest?.pack) return;
    this.packTried = true;
    const key = packKey(this.prefix, this.manifest.pack);
    this.clear(this.packDir);
    try {
      const result = await restore([PACK_DIR], key, [], this.budget(), this.stats);
      if (!("key" in result)) {
        if (result.kind === "missing") {
          this.packMissing = true;
          this.warn(
            `the GitHub Actions cache has the workflow's state but not its contents (${key}: evicted, or the job saving it did not finish); ` +
              `the pairs whose content is needed run again`,
          );
        } else this.turnOff(`restoring ${key}: ${result.reason}`);
        return;
      }
      const pack = new Map<string, Buffer>();
      let names: string[] = [];
      try {
        names = readdirSync(this.packDir);
      } catch {
        // An empty pack: every artifact is missing, and said so below.
      }
      for (const name of names) {
        const content = readFileSync(path.join(this.packDir, name));
        if (sha256Hex(content) === name) pack.set(name, content);
      }
      const bad = Object.values(this.manifest.artifacts)
        .filter((r) => !pack.has(r.contentHash!))
        .map((r) => r.pair);
      if (bad.length > 0) {
        for (const pair of bad) this.damaged.add(pair);
        this.warn(
          `the GitHub Actions cache entry ${key} is damaged (the content of ${listed(bad)} does not match its hash); not used, so ${bad.length === 1 ? "that pair runs" : "those pairs run"} again`,
        );
      }
      this.pack = pack;
    } finally {
      this.clear(this.packDir);
    }
  }

  private async saveSnapshot(final: boolean): Promise<void> {
    const source = this.source;
    const scope = this.scope;
    if (!source || !scope || this.savingOff) return;
    let artifacts = currentArtifacts(this.usablePrevious(), source.lock(), source.pairs);
    let requests = currentRequests(this.packMissing || this.damaged.size > 0 ? undefined : this.manifest?.requests, this.requestsSeen);
    // A damaged pack's key is taken for good, a missing one's perhaps by an upload that never
    // finished: the same contents go under a key salted with this writer. A salt found in the
    // manifest stays, or the next snapshot would name the unsalted key again.
    const salt = this.damaged.size > 0 || this.packMissing ? scope.writer : this.manifest?.packSalt;
    const batches = snapshotBatches(source.batches?.() ?? []);
    const sameBatches = JSON.stringify(batches) === this.lastBatches;
    if (
      sameArtifacts(artifacts, this.lastSaved) &&
      packDigest(artifacts, salt, requests) === this.lastPack &&
      sameRequests(requests, this.lastRequests) &&
      sameBatches
    )
      return;

    // Every content in hand: accepted here, in the pack, on this machine; else the pack is fetched once.
    const contents = new Map<string, Buffer>();
    const find = (r: StoreRecord): Buffer | undefined => {
      const mine = this.accepted.get(r.pair);
      if (mine !== undefined && mine.record.contentHash === r.contentHash) return mine.content;
      return this.pack?.get(r.contentHash!) ?? source.content(r.pair, r.contentHash!);
    };
    const findRequest = (e: RequestEntry): Buffer | undefined =>
      this.requestContents.get(e.contentHash) ?? this.pack?.get(e.contentHash) ?? source.content(e.pair, e.contentHash);
    let missing = Object.values(artifacts).filter((r) => find(r) === undefined);
    const requestMissing = () => Object.values(requests).some((entries) => entries.some((e) => findRequest(e) === undefined));
    if ((missing.length > 0 && missing.some((r) => own(this.manifest?.artifacts, r.pair)?.contentHash === r.contentHash)) || requestMissing()) {
      await this.loadPack();
      missing = missing.filter((r) => find(r) === undefined);
    }
    // What cannot be had is left out rather than saved without content.
    if (missing.length > 0) artifacts = dictOf(Object.entries(artifacts).filter(([pair]) => !missing.some((r) => r.pair === pair)));
    requests = dictOf(
      Object.entries(requests)
        .map(([key, entries]) => [key, entries.filter((e) => findRequest(e) !== undefined)] as const)
        .filter(([, entries]) => entries.length > 0),
    );
    for (const r of Object.values(artifacts)) contents.set(r.contentHash!, find(r)!);
    for (const entries of Object.values(requests)) for (const e of entries) contents.set(e.contentHash, findRequest(e)!);
    const digest = packDigest(artifacts, salt, requests);
    if (sameArtifacts(artifacts, this.lastSaved) && this.lastPack === digest && sameRequests(requests, this.lastRequests) && sameBatches) return;

    const what = final ? "saving the workflow's state" : "saving a checkpoint of the workflow's state";
    const budget = this.budget();
    if (digest !== null && digest !== this.lastPack) {
      this.clear(this.packDir);
      mkdirSync(this.packDir, { recursive: true });
      for (const [hash, content] of contents) writeFileSync(path.join(this.packDir, hash), content);
      try {
        const result = await save([PACK_DIR], packKey(this.prefix, digest), budget, this.stats);
        if (result.kind === "exists") this.stats.alreadySaved++;
        else if (result.kind === "denied" || result.kind === "failed") return this.saveFailed(result.kind, `${what}: ${result.reason}`, final);
      } finally {
        this.clear(this.packDir);
      }
    }

    const manifest: SnapshotManifest = {
      version: SNAPSHOT_VERSION,
      name: source.name,
      writer: scope.writer,
      seq: ++this.seq,
      at: new Date().toISOString(),
      pack: digest,
      ...(salt === undefined ? {} : { packSalt: salt }),
      artifacts,
      ...(Object.keys(requests).length > 0 ? { requests } : {}),
      ...(batches.length > 0 ? { batches } : {}),
    };
    const key = `${stateKeyPrefix(this.prefix, scope.workflow, scope.ref)}${scope.writer}-${manifest.seq}`;
    this.clear(this.stateDir);
    mkdirSync(this.stateDir, { recursive: true });
    writeFileSync(path.join(this.stateDir, MANIFEST_FILE), JSON.stringify(manifest));
    try {
      const result = await save([STATE_DIR], key, budget, this.stats);
      if (result.kind === "exists") this.stats.alreadySaved++;
      else if (result.kind === "denied" || result.kind === "failed") return this.saveFailed(result.kind, `${what}: ${result.reason}`, final);
    } finally {
      this.clear(this.stateDir);
    }
    const before = this.manifest?.artifacts;
    this.stats.saved = Object.values(artifacts).filter(
      (r) => own(before, r.pair)?.configRef !== r.configRef || own(before, r.pair)?.contentHash !== r.contentHash,
    ).length;
    this.stats.snapshots++;
    this.lastSaved = artifacts;
    this.lastRequests = requests;
    this.lastPack = digest;
    this.lastBatches = JSON.stringify(batches);
    if (!final) this.options.info?.(`saved a checkpoint of the workflow's state: ${Object.keys(artifacts).length} accepted artifacts, as ${key}`);
  }

  /** The previous snapshot's artifacts that can still be vouched for. */
  private usablePrevious(): Record<string, StoreRecord> {
    if (!this.manifest) return dict();
    return dictOf(Object.entries(this.manifest.artifacts).filter(([pair]) => !this.damaged.has(pair)));
  }

  private saveFailed(kind: "denied" | "failed", reason: string, final: boolean): void {
    if (final) this.notSaved = reason;
    if (kind === "denied") {
      this.savingOff = reason;
      this.warn(`the GitHub Actions cache does not take saves from this job (${reason}); restoring still works, but nothing this run accepts is saved there`);
    } else if (final) {
      this.warn(`the GitHub Actions cache did not take the workflow's state (${reason}); the next job runs again what this one accepted`);
    } else {
      this.options.info?.(`the GitHub Actions cache did not take a checkpoint (${reason}); the end of the run tries again`);
    }
  }

  private turnOff(reason: string): void {
    if (this.disabled) return;
    this.disabled = reason;
    this.warn(
      `the GitHub Actions cache is not usable (${reason}); going on with the local store only, ` +
        `so nothing is restored from the cache in this run (the end of the run still tries to save)`,
    );
  }

  private oneAtATime<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function listed(pairs: string[]): string {
  return pairs.length <= 5 ? pairs.join(", ") : `${pairs.slice(0, 5).join(", ")} and ${pairs.length - 5} more`;
}

/** Whether two request indexes hold the same entries with the same verdicts. */
function sameRequests(a: Record<string, RequestEntry[]>, b: Record<string, RequestEntry[]> | undefined): boolean {
  return JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b ?? {}).sort());
}
