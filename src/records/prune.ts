/**
 * Removes old run records, then every store entry nothing refers to. What stays:
 *
 * - every record and object a lock file names: any pairflow lock file in the repository (found by
 *   findLockFiles), and the lock file of every workflow a run record names, with the accepted
 *   record of each (pair, configRef) a lock file names and that record's content;
 * - whatever a kept run's plan, trace or result refers to;
 * - every store entry written since the prune began (a run of a workflow the prune could not know
 *   about, started while it works).
 *
 * A run still holding its workflow's lock is never removed. The caller takes the run mutex of the
 * workflows concerned first (src/app/history.ts), so no run of theirs writes while this reads.
 *
 * Entries in packs (src/store/pack.ts) go by the same rules: a pack losing some is written again
 * with the rest (atomically, in its place among the packs), one losing all is removed, and a pack
 * another process may still be writing (its writer runs, or it changed since the prune began) is
 * left whole. Request index entries stay, in packs as in files.
 */
import { closeSync, constants, existsSync, lstatSync, openSync, readdirSync, readFileSync, readSync, rmSync, type Stats } from "node:fs";
import path from "node:path";
import fg from "fast-glob";
import { escapeGlob } from "../config/paths.js";
import { ConfigError, UsageError } from "../model/errors.js";
import type { LockFile } from "../model/records.js";
import { readLockWithJournal } from "../lockfile/journal.js";
import { lockPathFor } from "../lockfile/lockfile.js";
import { isHashedKey, pairKey } from "../refs/keys.js";
import { LocalStore } from "../store/local.js";
import { listPacks, objectLine, PACK_HEADER, readPack, readPackObject, recordLine, requestLine, packWriter, type PackEntry } from "../store/pack.js";
import { alive, writeFileAtomic } from "../workspace/files.js";
import { checkStateDir } from "../workspace/stateDir.js";
import { currentHolder } from "./mutex.js";
import { listRunIds, outcomesFromTrace, readRun, type RunRecord } from "./read.js";
import { runDir } from "./write.js";

export interface PruneOptions {
  /** Keep at least the newest N runs. */
  keep?: number;
  /** Remove runs that started longer ago than this. */
  olderThanMs?: number;
  /** When the prune began (default: now): runs are aged from it, and no store entry written since is removed. */
  startedAt?: number;
  /** Work out what would be removed, and remove nothing. */
  dryRun?: boolean;
  /** Lock files found in the repository; those of the workflows run records name are read as well. */
  lockFiles?: readonly string[];
}

export interface PrunedRun {
  runId: string;
  bytes: number;
}

export interface PrunedRecord {
  pair: string;
  configRef: string;
  bytes: number;
}

export interface PrunedObject {
  hash: string;
  bytes: number;
}

export interface PruneResult {
  /** Nothing was removed: the lists say what a prune would remove. */
  dryRun: boolean;
  runs: PrunedRun[];
  records: PrunedRecord[];
  objects: PrunedObject[];
  /** What stays. */
  kept: { runs: number; records: number; objects: number };
  /** Bytes of everything listed. */
  bytes: number;
  /** The lock files whose entries were kept. */
  lockFiles: string[];
  warnings: string[];
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "90m", "12h", "30d", "2w" -> milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  if (!m) throw new UsageError(`--older-than ${text}: expected a number and a unit (s, m, h, d, w), e.g. 30d`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

/**
 * Every `*.lock.json` under the repository root, skipping .git, node_modules and the state
 * directory, whichever tool wrote it: prune reads each and keeps only pairflow's.
 */
export function findLockFiles(root: string, stateDir: string): string[] {
  const ignore = ["**/.git/**", "**/node_modules/**"];
  const state = path.relative(root, stateDir);
  if (state !== "" && !state.startsWith("..") && !path.isAbsolute(state)) ignore.push(`${escapeGlob(state.split(path.sep).join("/"))}/**`);
  const found = fg.sync("**/*.lock.json", { cwd: root, dot: true, onlyFiles: true, followSymbolicLinks: false, suppressErrors: true, ignore });
  return found.map((rel) => path.resolve(root, rel)).sort();
}

/** Workflow files a lock file may belong to: workflow.lock.json is beside workflow.yml, .yaml or .json. */
export function workflowsOfLockFile(lockFile: string): string[] {
  const stem = lockFile.slice(0, -".lock.json".length);
  return [".yml", ".yaml", ".json"].map((ext) => stem + ext).filter((file) => existsSync(file));
}

/**
 * The workflow each recorded run belongs to, read cheaply: the first trace line (run_start), else
 * plan.json. Runs whose records say neither are left out.
 */
export function recordedWorkflows(stateDir: string): string[] {
  const workflows = new Set<string>();
  for (const id of listRunIds(stateDir)) {
    const dir = runDir(stateDir, id);
    const workflow = firstTraceLine(path.join(dir, "trace.jsonl"))?.workflow ?? readJson(path.join(dir, "plan.json"))?.workflow?.path;
    if (typeof workflow === "string") workflows.add(workflow);
  }
  return [...workflows].sort();
}

export function prune(stateDir: string, options: PruneOptions = {}): PruneResult {
  // Nothing is removed through a link: one where pairflow keeps a directory stops the prune, and
  // below, only real directories are entered and only real files (or a link itself) removed.
  checkStateDir(stateDir);
  const startedAt = options.startedAt ?? Date.now();
  const warnings: string[] = [];

  const runs: RunRecord[] = [];
  for (const id of listRunIds(stateDir)) {
    try {
      runs.push(readRun(stateDir, id));
    } catch {
      // removed by someone else since it was listed
    }
  }
  const removedRuns: RunRecord[] = [];
  const keptRuns: RunRecord[] = [];
  runs.forEach((run, index) => {
    const started = Date.parse(run.events[0]?.t ?? run.plan?.createdAt ?? run.result?.startedAt ?? "") || startedAt;
    const tooMany = options.keep !== undefined && index >= options.keep;
    const tooOld = options.olderThanMs !== undefined && startedAt - started > options.olderThanMs;
    const workflow = workflowOf(run);
    const active = workflow !== undefined && currentHolder(workflow)?.runId === run.runId;
    if ((tooMany || tooOld) && !active) removedRuns.push(run);
    else keptRuns.push(run);
  });

  // What must stay: every lock file's entries, and whatever kept runs refer to.
  const keepRecords = new Set<string>();
  const keepObjects = new Set<string>();
  const lockFiles = new Set(options.lockFiles ?? []);
  const ownLockFiles = new Set<string>();
  for (const run of runs) {
    const workflow = workflowOf(run);
    if (workflow !== undefined) ownLockFiles.add(lockPathFor(workflow));
  }
  for (const file of ownLockFiles) lockFiles.add(file);
  const honoured: string[] = [];
  let damaged = false;
  for (const file of [...lockFiles].sort()) {
    const read = readLockFile(file, ownLockFiles.has(file) || workflowsOfLockFile(file).length > 0);
    if (read.kind === "damaged") {
      damaged = true;
      warnings.push(`${file}: ${read.reason}; store entries are kept until it is fixed`);
    }
    if (read.kind !== "lock") continue;
    honoured.push(file);
    for (const [id, entry] of Object.entries(read.lock.pairs)) {
      if (!entry || typeof entry !== "object") continue;
      if (typeof entry.configRef === "string") keepRecords.add(`${pairKey(id)}/${entry.configRef}`);
      if (typeof entry.contentHash === "string") keepObjects.add(entry.contentHash);
    }
  }
  for (const run of keptRuns) {
    for (const p of run.plan?.pairs ?? []) if (p.configRef) keepRecords.add(`${pairKey(p.id)}/${p.configRef}`);
    for (const o of outcomesFromTrace(run.events).values()) {
      if (o.configRef) keepRecords.add(`${pairKey(o.id)}/${o.configRef}`);
      if (o.contentHash) keepObjects.add(o.contentHash);
    }
    for (const p of run.result?.pairs ?? []) if (p.contentHash) keepObjects.add(p.contentHash);
  }

  const storeDir = path.join(stateDir, "store");
  const store = new LocalStore(storeDir);
  const records: (PrunedRecord & { file: string })[] = [];
  const looseRecords = new Map<string, PrunedRecord>();
  let keptRecords = 0;
  const pairsDir = path.join(storeDir, "pairs");
  // Records are kept by store key: a long id's key is shortened, and its record names the whole id.
  for (const dir of directories(pairsDir)) {
    for (const name of entries(path.join(pairsDir, dir))) {
      // Names starting with "." are files being written right now.
      if (name.startsWith(".") || !name.endsWith(".json")) continue;
      const configRef = name.slice(0, -".json".length);
      const file = path.join(pairsDir, dir, name);
      const stat = fileStat(file);
      if (!stat) continue;
      const pair = isHashedKey(dir) ? (recordedPair(file, dir) ?? dir) : pairOfKey(dir);
      if (keepRecords.has(`${dir}/${configRef}`) || stat.mtimeMs >= startedAt) {
        // A kept record keeps its content: the accepted record of a configuration a lock file names, above all.
        const rec = safeRecord(store, pair, configRef);
        if (rec?.contentHash) keepObjects.add(rec.contentHash);
        keptRecords++;
        continue;
      }
      records.push({ pair, configRef, bytes: stat.size, file });
      looseRecords.set(`${dir}/${configRef}`, records.at(-1)!);
    }
  }
  const packs = readPacks(path.join(storeDir, "packs"), startedAt);
  const packedRecords = new Map<string, PrunedRecord>();
  for (const pack of packs) {
    for (const e of pack.entries) {
      if (e.kind !== "record") continue;
      const key = `${pairKey(e.record.pair)}/${e.record.configRef}`;
      if (pack.live || keepRecords.has(key)) {
        if (e.record.contentHash) keepObjects.add(e.record.contentHash);
        keptRecords++;
        continue;
      }
      pack.removed = true;
      const listed = packedRecords.get(key) ?? looseRecords.get(key);
      if (listed) listed.bytes += e.bytes;
      else packedRecords.set(key, { pair: e.record.pair, configRef: e.record.configRef, bytes: e.bytes });
    }
  }
  const objects: (PrunedObject & { file: string })[] = [];
  const looseObjects = new Map<string, PrunedObject>();
  let keptObjects = 0;
  const objectsDir = path.join(storeDir, "objects");
  for (const shard of directories(objectsDir)) {
    for (const hash of entries(path.join(objectsDir, shard))) {
      if (hash.startsWith(".")) continue;
      const file = path.join(objectsDir, shard, hash);
      const stat = fileStat(file);
      if (!stat) continue;
      if (keepObjects.has(hash) || stat.mtimeMs >= startedAt) {
        keptObjects++;
        continue;
      }
      objects.push({ hash, bytes: stat.size, file });
      looseObjects.set(hash, objects.at(-1)!);
    }
  }
  const packedObjects = new Map<string, PrunedObject>();
  for (const pack of packs) {
    for (const e of pack.entries) {
      if (e.kind !== "object") continue;
      if (pack.live || keepObjects.has(e.hash)) {
        keptObjects++;
        continue;
      }
      pack.removed = true;
      const listed = packedObjects.get(e.hash) ?? looseObjects.get(e.hash);
      if (listed) listed.bytes += e.bytes;
      else packedObjects.set(e.hash, { hash: e.hash, bytes: e.bytes });
    }
  }
  if (damaged) {
    // Entries a damaged lock file names cannot be told apart: the store stays whole.
    keptRecords += records.length + packedRecords.size;
    keptObjects += objects.length + packedObjects.size;
    records.length = 0;
    objects.length = 0;
    packedRecords.clear();
    packedObjects.clear();
    for (const pack of packs) pack.removed = false;
  }
  const prunedRecords = [...records.map(({ pair, configRef, bytes }) => ({ pair, configRef, bytes })), ...packedRecords.values()];
  const prunedObjects = [...objects.map(({ hash, bytes }) => ({ hash, bytes })), ...packedObjects.values()];

  const prunedRuns = removedRuns.map((run) => ({ runId: run.runId, bytes: treeSize(run.dir) }));
  if (!options.dryRun) {
    // rmSync removes a link it meets, never what it points to; a run's folder is a real directory (above).
    for (const run of removedRuns) if (lstatSync(run.dir, { throwIfNoEntry: false })?.isDirectory()) rmSync(run.dir, { recursive: true, force: true });
    for (const r of records) rmSync(r.file, { force: true });
    for (const o of objects) rmSync(o.file, { force: true });
    for (const pack of packs) if (pack.removed) rewritePack(pack, keepRecords, keepObjects);
  }
  const bytes = [...prunedRuns, ...prunedRecords, ...prunedObjects].reduce((sum, e) => sum + e.bytes, 0);
  return {
    dryRun: options.dryRun ?? false,
    runs: prunedRuns,
    records: prunedRecords,
    objects: prunedObjects,
    kept: { runs: keptRuns.length, records: keptRecords, objects: keptObjects },
    bytes,
    lockFiles: honoured,
    warnings,
  };
}

interface ReadPack {
  file: string;
  entries: PackEntry[];
  /** Another process may be writing it still: left whole. */
  live: boolean;
  /** Some of its entries are to go. */
  removed: boolean;
}

/** The packs of a store, oldest first; a pack directory that is a link is not entered. */
function readPacks(dir: string, startedAt: number): ReadPack[] {
  if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
  const packs: ReadPack[] = [];
  for (const name of listPacks(dir)) {
    const file = path.join(dir, name);
    const stat = fileStat(file);
    if (!stat) continue;
    const writer = packWriter(name);
    const live = stat.mtimeMs >= startedAt || (writer !== undefined && writer !== process.pid && alive(writer));
    packs.push({ file, entries: readPack(file), live, removed: false });
  }
  return packs;
}

/**
 * Writes a pack again with the entries that stay, in their order, in its place (a reader finds
 * the old pack or the new, whole); removes it when none do.
 */
function rewritePack(pack: ReadPack, keepRecords: ReadonlySet<string>, keepObjects: ReadonlySet<string>): void {
  const parts: Buffer[] = [];
  for (const e of pack.entries) {
    if (e.kind === "record" && keepRecords.has(`${pairKey(e.record.pair)}/${e.record.configRef}`)) parts.push(Buffer.from(recordLine(e.record), "utf8"));
    else if (e.kind === "request") parts.push(Buffer.from(requestLine(e.key, e.entries), "utf8"));
    else if (e.kind === "object" && keepObjects.has(e.hash)) {
      const data = readPackObject(pack.file, e.offset, e.bytes);
      if (data !== undefined) parts.push(Buffer.from(objectLine(e.hash, e.bytes), "utf8"), data, Buffer.from("\n", "utf8"));
    }
  }
  if (parts.length === 0) rmSync(pack.file, { force: true });
  else writeFileAtomic(pack.file, Buffer.concat([Buffer.from(PACK_HEADER, "utf8"), ...parts]));
}

function workflowOf(run: RunRecord): string | undefined {
  const fromTrace = run.events.find((e) => e.event === "run_start")?.workflow;
  return run.plan?.workflow.path ?? (typeof fromTrace === "string" ? fromTrace : undefined);
}

type LockRead = { kind: "lock"; lock: LockFile } | { kind: "other" } | { kind: "damaged"; reason: string };

/**
 * A pairflow lock file, another tool's file of the same name (ignored), or a lock file pairflow
 * cannot read: one beside a workflow, or of a workflow a run recorded, that is not a lock file of
 * version 1 (a merge conflict left in it, say).
 */
function readLockFile(file: string, ofWorkflow: boolean): LockRead {
  try {
    // With a killed run's journal applied: what it accepted is referenced too.
    const lock = readLockWithJournal(file);
    return lock ? { kind: "lock", lock } : { kind: "other" };
  } catch (err) {
    if (!ofWorkflow) return { kind: "other" };
    const reason = err instanceof ConfigError ? "not a readable pairflow lock file" : `cannot be read (${(err as Error).message})`;
    return { kind: "damaged", reason };
  }
}

/** The whole pair id a record under a shortened store key names, when it is that key's. */
function recordedPair(file: string, key: string): string | undefined {
  const pair = (readJson(file) as { pair?: unknown } | undefined)?.pair;
  return typeof pair === "string" && pairKey(pair) === key ? pair : undefined;
}

/** The pair id a store directory is named after (see pairKey). */
function pairOfKey(dir: string): string {
  try {
    return decodeURIComponent(dir);
  } catch {
    return dir; // not a name pairflow writes
  }
}

function safeRecord(store: LocalStore, pair: string, configRef: string) {
  try {
    return store.record(pair, configRef);
  } catch {
    return undefined; // not a store key pairflow writes
  }
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The real directories in dir: a link to one is not entered. */
function directories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** A real file's stat; a link, even to a file, is none. */
function fileStat(file: string): Stats | undefined {
  try {
    const stat = lstatSync(file);
    return stat.isFile() ? stat : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes of the files under dir, links not followed. */
function treeSize(dir: string): number {
  let size = 0;
  for (const entry of entries(dir)) {
    const file = path.join(dir, entry);
    try {
      const stat = lstatSync(file);
      size += stat.isDirectory() ? treeSize(file) : stat.size;
    } catch {
      // gone meanwhile
    }
  }
  return size;
}

/** The first line of a trace, when it is whole JSON; read without loading the rest. */
function firstTraceLine(file: string): Record<string, unknown> | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const buffer = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, n).toString("utf8");
    const end = text.indexOf("\n");
    return end < 0 ? undefined : (JSON.parse(text.slice(0, end)) as Record<string, unknown>);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function readJson(file: string): { workflow?: { path?: unknown } } | undefined {
  try {
    if (!lstatSync(file).isFile()) return undefined; // a link is not followed
    return JSON.parse(readFileSync(file, "utf8")) as { workflow?: { path?: unknown } };
  } catch {
    return undefined;
  }
}
