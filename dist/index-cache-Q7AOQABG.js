import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  LOCK_VERSION,
  asDict,
  checkStateDir,
  componentIdOfKey,
  componentsOf,
  dict,
  dictOf,
  isBatchRecord,
  isRequestEntry,
  joinRequestEntry,
  lockEntry,
  own,
  resolveWorkflowPath,
  sha256Hex
} from "./index-chunk-MRHZ4JYY.js";
import "./index-chunk-PZ2QIV5B.js";
import {
  RetryBudget,
  isFeatureAvailable,
  restore,
  save
} from "./index-chunk-TXM2BVLM.js";
import "./index-chunk-36MXEOPK.js";
import "./index-chunk-FYY37R2X.js";
import "./index-chunk-V4KIBFXN.js";
import {
  __name
} from "./index-chunk-YGZKRGIO.js";

// src/github/cache.ts
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";

// src/store/snapshot.ts
var SNAPSHOT_VERSION = 2;
var MAX_SNAPSHOT_REQUESTS = 1e3;
var HEX64 = /^[0-9a-f]{64}$/;
function parseManifest(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `its manifest is not JSON (${err.message})`;
  }
  const m = value;
  if (m === null || typeof m !== "object" || m.version !== SNAPSHOT_VERSION && m.version !== 1)
    return `its manifest is not of version 1 or ${SNAPSHOT_VERSION}`;
  if (typeof m.name !== "string" || typeof m.writer !== "string" || typeof m.seq !== "number") return "its manifest lacks its name, writer or sequence";
  if (m.pack !== null && (typeof m.pack !== "string" || !HEX64.test(m.pack))) return "its manifest names no valid pack";
  if (typeof m.artifacts !== "object" || m.artifacts === null) return "its manifest has no artifacts";
  for (const [pair, record] of Object.entries(m.artifacts)) {
    if (!usableRecord(pair, record)) return `its manifest's entry for ${pair} is not an accepted artifact`;
  }
  if (m.packSalt !== void 0 && typeof m.packSalt !== "string") return "its manifest's pack salt is not text";
  if (m.requests !== void 0) {
    if (typeof m.requests !== "object" || m.requests === null) return "its manifest's requests are not a mapping";
    for (const [key, entries] of Object.entries(m.requests)) {
      if (!HEX64.test(key) || !Array.isArray(entries) || !entries.every(isRequestEntry)) return `its manifest's request entry ${key.slice(0, 12)} is not one`;
    }
    asDict(m.requests);
  }
  if (m.batches !== void 0 && (!Array.isArray(m.batches) || !m.batches.every(isBatchRecord))) return "its manifest's batches are not batch records";
  if (m.pack !== packDigest(m.artifacts, m.packSalt, m.requests)) return "its manifest's pack does not match its artifacts";
  asDict(m.artifacts);
  return { ...m, version: SNAPSHOT_VERSION };
}
__name(parseManifest, "parseManifest");
function usableRecord(pair, r) {
  return typeof r === "object" && r !== null && r.pair === pair && r.status === "accepted" && r.source !== "human" && typeof r.configRef === "string" && HEX64.test(r.configRef) && typeof r.contentHash === "string" && HEX64.test(r.contentHash) && typeof r.components === "object" && r.components !== null;
}
__name(usableRecord, "usableRecord");
function packDigest(artifacts, salt, requests) {
  const hashes = [
    .../* @__PURE__ */ new Set([
      ...Object.values(artifacts).map((r) => r.contentHash),
      ...Object.values(requests ?? {}).flatMap((entries) => entries.map((e) => e.contentHash))
    ])
  ].sort();
  return hashes.length === 0 ? null : sha256Hex(hashes.join("\n") + (salt === void 0 ? "" : `
${salt}`));
}
__name(packDigest, "packDigest");
function currentRequests(previous, mine, limit = MAX_SNAPSHOT_REQUESTS) {
  const merged = /* @__PURE__ */ new Map();
  for (const source of [mine, new Map(Object.entries(previous ?? {}))]) {
    for (const [key, entries] of source) {
      const into = merged.get(key) ?? [];
      for (const e of entries) {
        const known = into.findIndex((x) => x.contentHash === e.contentHash);
        if (known === -1) into.push(e);
        else into[known] = joinRequestEntry(e, into[known]);
      }
      merged.set(key, into);
    }
  }
  const all = [...merged].flatMap(([key, entries]) => entries.map((e) => ({ key, e })));
  all.sort((a, b) => a.e.at < b.e.at ? 1 : a.e.at > b.e.at ? -1 : 0);
  const kept = dict();
  for (const { key, e } of all.slice(0, limit)) (kept[key] ??= []).push(e);
  return kept;
}
__name(currentRequests, "currentRequests");
function manifestLock(manifest) {
  const pairs = dict();
  for (const [pair, r] of Object.entries(manifest.artifacts)) pairs[pair] = lockEntryOf(r);
  return { version: LOCK_VERSION, workflow: manifest.name, pairs };
}
__name(manifestLock, "manifestLock");
function lockEntryOf(r) {
  const observed = Object.keys(r.components).map(componentIdOfKey).filter((c) => c.kind === "observed").map((c) => c.name).sort();
  const entry = {
    configRef: r.configRef,
    contentHash: r.contentHash,
    source: r.source ?? "generated",
    model: r.model ?? null,
    components: r.components,
    attempts: r.attempts ?? 0,
    tokens: { input: r.tokens?.input ?? 0, output: r.tokens?.output ?? 0 },
    durationMs: r.durationMs ?? 0,
    acceptedAt: r.at
  };
  if (observed.length > 0) entry.observed = observed;
  return entry;
}
__name(lockEntryOf, "lockEntryOf");
function recordOfLockEntry(pair, e) {
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
    durationMs: e.durationMs
  };
}
__name(recordOfLockEntry, "recordOfLockEntry");
function currentArtifacts(previous, lock, pairs) {
  const artifacts = dict();
  for (const pair of [...pairs].sort()) {
    const entry = lockEntry(lock, pair);
    const before = own(previous, pair);
    if (entry !== void 0) {
      if (entry.source === "generated") artifacts[pair] = recordOfLockEntry(pair, entry);
    } else if (before !== void 0) {
      artifacts[pair] = before;
    }
  }
  return artifacts;
}
__name(currentArtifacts, "currentArtifacts");
function sameArtifacts(a, b) {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => {
    const other = own(b, k);
    return other !== void 0 && a[k].configRef === other.configRef && a[k].contentHash === other.contentHash;
  });
}
__name(sameArtifacts, "sameArtifacts");
function snapshotBatches(batches) {
  return batches.map(({ results: _, ...rest }) => ({ ...rest, state: rest.state === "ended" ? "submitted" : rest.state }));
}
__name(snapshotBatches, "snapshotBatches");

// src/github/cache.ts
var STATE_DIR = ".pairflow/cache/state";
var PACK_DIR = ".pairflow/cache/pack";
var MANIFEST_FILE = "manifest.json";
function scopeFor(target, cwd, workspace, env) {
  const file = path.relative(workspace, resolveWorkflowPath(target, cwd)).split(path.sep).join("/");
  return {
    workflow: file,
    ref: env.GITHUB_REF || "refs/heads/local",
    baseRef: env.GITHUB_BASE_REF ? `refs/heads/${env.GITHUB_BASE_REF}` : void 0,
    writer: [env.GITHUB_RUN_ID || "local", env.GITHUB_RUN_ATTEMPT || "1", randomBytes(3).toString("hex")].join(".")
  };
}
__name(scopeFor, "scopeFor");
function stateKeyPrefix(prefix, workflow, ref) {
  return `${prefix}-state-${short(workflow)}-` + (ref === void 0 ? "" : `${short(ref)}-`);
}
__name(stateKeyPrefix, "stateKeyPrefix");
function packKey(prefix, digest) {
  return `${prefix}-pack-${digest}`;
}
__name(packKey, "packKey");
function short(text) {
  return sha256Hex(text).slice(0, 12);
}
__name(short, "short");
var ActionsCacheStore = class {
  constructor(prefix, workspace, warn, options) {
    this.prefix = prefix;
    this.workspace = workspace;
    this.warn = warn;
    this.options = options;
    this.stateDir = path.join(workspace, STATE_DIR);
    this.packDir = path.join(workspace, PACK_DIR);
  }
  prefix;
  workspace;
  warn;
  options;
  static {
    __name(this, "ActionsCacheStore");
  }
  name = "the GitHub Actions cache";
  stats = {
    lookups: 0,
    found: 0,
    saved: 0,
    alreadySaved: 0,
    uploads: 0,
    downloads: 0,
    retries: 0,
    waitedMs: 0,
    restoredKey: null,
    snapshots: 0
  };
  /** Why restoring was turned off, once it has been. */
  disabled = null;
  /** Why saving was turned off (the cache does not take saves from this job), once it has been. */
  savingOff = null;
  /** Why the snapshot at the end of the run was not saved, if it was not. */
  notSaved = null;
  scope = null;
  manifest = null;
  /** The pack's contents by hash, once downloaded and checked; null until then. */
  pack = null;
  packTried = false;
  /** Pairs whose content in the pack did not match its hash: never used. */
  damaged = /* @__PURE__ */ new Set();
  /** Whether the manifest's pack was not there: its key may be taken by an upload that never finished. */
  packMissing = false;
  /** What this run accepted, by pair: content in hand for the next snapshot. */
  accepted = /* @__PURE__ */ new Map();
  /** What this run's generators returned (and verdicts on earlier artifacts), by request key, with contents by hash. */
  requestsSeen = /* @__PURE__ */ new Map();
  requestContents = /* @__PURE__ */ new Map();
  /** The artifacts of the last snapshot saved or restored, and its pack. */
  lastSaved = dict();
  lastRequests = dict();
  lastPack = null;
  /** The batches of the last snapshot saved or restored, as its manifest's JSON. */
  lastBatches = "[]";
  seq = 0;
  source = null;
  lastCheckpoint = Date.now();
  checkpointPending = false;
  queue = Promise.resolve();
  stateDir;
  packDir;
  /**
   * Removes one of the cache's directories under .pairflow/, after checking that none of .pairflow/
   * and the directories in it is a symbolic link (a pull request can commit one): removing or
   * writing through it would reach outside the workspace.
   */
  clear(dir) {
    checkStateDir(path.join(this.workspace, ".pairflow"), this.workspace);
    rmSync(dir, { recursive: true, force: true });
  }
  /** Whether the runner offers a cache service at all (it does on GitHub-hosted and most self-hosted runners). */
  static available() {
    return isFeatureAvailable();
  }
  budget() {
    return new RetryBudget(this.options.retryMs ?? 6e4);
  }
  /**
   * Restores the newest manifest for this workflow: the job's own ref first, then the pull
   * request's base, then any ref this job can read. One download; no content.
   */
  open(scope) {
    this.scope = scope;
    return this.oneAtATime(async () => {
      const prefixes = [.../* @__PURE__ */ new Set([scope.ref, ...scope.baseRef ? [scope.baseRef] : [], void 0])].map(
        (ref) => stateKeyPrefix(this.prefix, scope.workflow, ref)
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
  baseState() {
    const scope = this.scope;
    if (!scope?.baseRef) return Promise.resolve(void 0);
    return this.oneAtATime(async () => {
      const found = await this.restoreManifest([stateKeyPrefix(this.prefix, scope.workflow, scope.baseRef)]);
      return found ? manifestLock(found) : void 0;
    });
  }
  /** The restored manifest as a lock file: what a planner counts as accepted where the repository commits no lock file. */
  acceptedState() {
    return this.manifest && !this.disabled ? manifestLock(this.manifest) : null;
  }
  /** The record of the artifact the snapshot holds for this configuration; with contentOnLookup, only once its content checked out. */
  async lookup(pair, configRef) {
    this.stats.lookups++;
    const found = this.options.contentOnLookup ? (await this.content(pair, configRef))?.record : this.record(pair, configRef);
    if (found) this.stats.found++;
    return found;
  }
  async fetch(pair, configRef) {
    return this.content(pair, configRef);
  }
  /** What the restored snapshot holds for this request (its contents are in its pack). */
  requests(key) {
    if (this.disabled || this.packMissing) return [];
    return own(this.manifest?.requests, key) ?? [];
  }
  /** A request index entry's content, from the pack (downloaded once). */
  requestContent(hash) {
    const mine = this.requestContents.get(hash);
    if (mine) return Promise.resolve(mine);
    return this.oneAtATime(async () => {
      await this.loadPack();
      return this.pack?.get(hash);
    });
  }
  /** Keeps what a generator returned for a request (or a verdict on it) for the next snapshot. */
  saveRequest(key, entry, content) {
    const entries = this.requestsSeen.get(key) ?? [];
    const known = entries.findIndex((e) => e.contentHash === entry.contentHash);
    if (known === -1) entries.unshift(entry);
    else {
      entries[known] = joinRequestEntry(entries[known], entry);
    }
    this.requestsSeen.set(key, entries);
    this.requestContents.set(entry.contentHash, content);
  }
  /** The provider batches the restored snapshot holds as not done with: this runner collects them. */
  batches() {
    return this.disabled ? [] : this.manifest?.batches ?? [];
  }
  /**
   * Saves a checkpoint now (after any in flight): a batch was just submitted, and a runner lost
   * while it waits must not leave the next job to submit it again.
   */
  saveSoon() {
    if (!this.source || this.checkpointPending) return;
    this.checkpointPending = true;
    void this.oneAtATime(() => this.saveSafely(false)).finally(() => {
      this.checkpointPending = false;
      this.lastCheckpoint = Date.now();
    });
  }
  /** Keeps the accepted artifact for the next snapshot; a long run saves one at its next checkpoint. */
  save(artifact) {
    this.accepted.set(artifact.record.pair, artifact);
    const interval = this.options.checkpointMs ?? 3e5;
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
  attach(source) {
    this.source = source;
    this.lastCheckpoint = Date.now();
  }
  /** Saves the snapshot of the run's final state (after any checkpoint in flight), unless nothing changed. */
  finish() {
    return this.oneAtATime(() => this.saveSafely(true));
  }
  /** A snapshot that cannot be written (a full disk while staging it, say) is a warning, never a failed run. */
  async saveSafely(final) {
    try {
      await this.saveSnapshot(final);
    } catch (err) {
      this.saveFailed("failed", `${final ? "saving the workflow's state" : "saving a checkpoint"}: ${err.message}`, final);
    }
  }
  // -------------------------------------------------------------------------------------------
  record(pair, configRef) {
    const mine = this.accepted.get(pair);
    if (mine?.record.configRef === configRef) return mine.record;
    if (this.disabled || this.damaged.has(pair)) return void 0;
    const r = own(this.manifest?.artifacts, pair);
    return r?.configRef === configRef ? r : void 0;
  }
  content(pair, configRef) {
    const mine = this.accepted.get(pair);
    if (mine?.record.configRef === configRef) return Promise.resolve(mine);
    if (this.record(pair, configRef) === void 0) return Promise.resolve(void 0);
    return this.oneAtATime(async () => {
      await this.loadPack();
      const record = this.record(pair, configRef);
      const content = record && this.pack?.get(record.contentHash);
      return record && content ? { record, content } : void 0;
    });
  }
  async restoreManifest(prefixes) {
    if (this.disabled) return void 0;
    this.clear(this.stateDir);
    try {
      const result = await restore([STATE_DIR], prefixes[0], prefixes, this.budget(), this.stats);
      if (!("key" in result)) {
        if (result.kind !== "missing") this.turnOff(`restoring the workflow's state: ${result.reason}`);
        return void 0;
      }
      let manifest;
      try {
        manifest = parseManifest(readFileSync(path.join(this.stateDir, MANIFEST_FILE), "utf8"));
      } catch (err) {
        manifest = `unreadable: ${err.message}`;
      }
      if (typeof manifest === "string") {
        this.warn(`the GitHub Actions cache entry ${result.key} is damaged (${manifest}); not used, so its pairs are planned as if never accepted`);
        return void 0;
      }
      this.stats.restoredKey ??= result.key;
      return manifest;
    } finally {
      this.clear(this.stateDir);
    }
  }
  /** Downloads the manifest's pack once, keeping each content that matches its hash. */
  async loadPack() {
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
            `the GitHub Actions cache has the workflow's state but not its contents (${key}: evicted, or the job saving it did not finish); the pairs whose content is needed run again`
          );
        } else this.turnOff(`restoring ${key}: ${result.reason}`);
        return;
      }
      const pack = /* @__PURE__ */ new Map();
      let names = [];
      try {
        names = readdirSync(this.packDir);
      } catch {
      }
      for (const name of names) {
        const content = readFileSync(path.join(this.packDir, name));
        if (sha256Hex(content) === name) pack.set(name, content);
      }
      const bad = Object.values(this.manifest.artifacts).filter((r) => !pack.has(r.contentHash)).map((r) => r.pair);
      if (bad.length > 0) {
        for (const pair of bad) this.damaged.add(pair);
        this.warn(
          `the GitHub Actions cache entry ${key} is damaged (the content of ${listed(bad)} does not match its hash); not used, so ${bad.length === 1 ? "that pair runs" : "those pairs run"} again`
        );
      }
      this.pack = pack;
    } finally {
      this.clear(this.packDir);
    }
  }
  async saveSnapshot(final) {
    const source = this.source;
    const scope = this.scope;
    if (!source || !scope || this.savingOff) return;
    let artifacts = currentArtifacts(this.usablePrevious(), source.lock(), source.pairs);
    let requests = currentRequests(this.packMissing || this.damaged.size > 0 ? void 0 : this.manifest?.requests, this.requestsSeen);
    const salt = this.damaged.size > 0 || this.packMissing ? scope.writer : this.manifest?.packSalt;
    const batches = snapshotBatches(source.batches?.() ?? []);
    const sameBatches = JSON.stringify(batches) === this.lastBatches;
    if (sameArtifacts(artifacts, this.lastSaved) && packDigest(artifacts, salt, requests) === this.lastPack && sameRequests(requests, this.lastRequests) && sameBatches)
      return;
    const contents = /* @__PURE__ */ new Map();
    const find = /* @__PURE__ */ __name((r) => {
      const mine = this.accepted.get(r.pair);
      if (mine !== void 0 && mine.record.contentHash === r.contentHash) return mine.content;
      return this.pack?.get(r.contentHash) ?? source.content(r.pair, r.contentHash);
    }, "find");
    const findRequest = /* @__PURE__ */ __name((e) => this.requestContents.get(e.contentHash) ?? this.pack?.get(e.contentHash) ?? source.content(e.pair, e.contentHash), "findRequest");
    let missing = Object.values(artifacts).filter((r) => find(r) === void 0);
    const requestMissing = /* @__PURE__ */ __name(() => Object.values(requests).some((entries) => entries.some((e) => findRequest(e) === void 0)), "requestMissing");
    if (missing.length > 0 && missing.some((r) => own(this.manifest?.artifacts, r.pair)?.contentHash === r.contentHash) || requestMissing()) {
      await this.loadPack();
      missing = missing.filter((r) => find(r) === void 0);
    }
    if (missing.length > 0) artifacts = dictOf(Object.entries(artifacts).filter(([pair]) => !missing.some((r) => r.pair === pair)));
    requests = dictOf(
      Object.entries(requests).map(([key2, entries]) => [key2, entries.filter((e) => findRequest(e) !== void 0)]).filter(([, entries]) => entries.length > 0)
    );
    for (const r of Object.values(artifacts)) contents.set(r.contentHash, find(r));
    for (const entries of Object.values(requests)) for (const e of entries) contents.set(e.contentHash, findRequest(e));
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
    const manifest = {
      version: SNAPSHOT_VERSION,
      name: source.name,
      writer: scope.writer,
      seq: ++this.seq,
      at: (/* @__PURE__ */ new Date()).toISOString(),
      pack: digest,
      ...salt === void 0 ? {} : { packSalt: salt },
      artifacts,
      ...Object.keys(requests).length > 0 ? { requests } : {},
      ...batches.length > 0 ? { batches } : {}
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
      (r) => own(before, r.pair)?.configRef !== r.configRef || own(before, r.pair)?.contentHash !== r.contentHash
    ).length;
    this.stats.snapshots++;
    this.lastSaved = artifacts;
    this.lastRequests = requests;
    this.lastPack = digest;
    this.lastBatches = JSON.stringify(batches);
    if (!final) this.options.info?.(`saved a checkpoint of the workflow's state: ${Object.keys(artifacts).length} accepted artifacts, as ${key}`);
  }
  /** The previous snapshot's artifacts that can still be vouched for. */
  usablePrevious() {
    if (!this.manifest) return dict();
    return dictOf(Object.entries(this.manifest.artifacts).filter(([pair]) => !this.damaged.has(pair)));
  }
  saveFailed(kind, reason, final) {
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
  turnOff(reason) {
    if (this.disabled) return;
    this.disabled = reason;
    this.warn(
      `the GitHub Actions cache is not usable (${reason}); going on with the local store only, so nothing is restored from the cache in this run (the end of the run still tries to save)`
    );
  }
  oneAtATime(task) {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => void 0);
    return next;
  }
};
function listed(pairs) {
  return pairs.length <= 5 ? pairs.join(", ") : `${pairs.slice(0, 5).join(", ")} and ${pairs.length - 5} more`;
}
__name(listed, "listed");
function sameRequests(a, b) {
  return JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b ?? {}).sort());
}
__name(sameRequests, "sameRequests");
export {
  ActionsCacheStore,
  PACK_DIR,
  STATE_DIR,
  packKey,
  scopeFor,
  stateKeyPrefix
};
