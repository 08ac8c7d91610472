/**
 * Removes old run records, then every store entry that no lock file and no kept run refers to.
 * A run still holding its workflow's lock is never removed.
 */
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../model/errors.js";
import { lockPathFor, readLock } from "../lockfile/lockfile.js";
import { LocalStore } from "../store/local.js";
import { currentHolder } from "./mutex.js";
import { listRunIds, outcomesFromTrace, readRun, type RunRecord } from "./read.js";

export interface PruneOptions {
  /** Keep at least the newest N runs. */
  keep?: number;
  /** Remove runs that started longer ago than this. */
  olderThanMs?: number;
  now?: number;
}

export interface PruneResult {
  removedRuns: string[];
  keptRuns: number;
  removedRecords: number;
  removedObjects: number;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "90m", "12h", "30d", "2w" -> milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  if (!m) throw new UsageError(`--older-than ${text}: expected a number and a unit (s, m, h, d, w), e.g. 30d`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

export function prune(stateDir: string, options: PruneOptions): PruneResult {
  const now = options.now ?? Date.now();
  const runs = listRunIds(stateDir).map((id) => readRun(stateDir, id));
  const removed: RunRecord[] = [];
  const kept: RunRecord[] = [];
  runs.forEach((run, index) => {
    const started = Date.parse(run.events[0]?.t ?? run.plan?.createdAt ?? "") || now;
    const tooMany = options.keep !== undefined && index >= options.keep;
    const tooOld = options.olderThanMs !== undefined && now - started > options.olderThanMs;
    const active = run.plan !== null && currentHolder(stateDir, run.plan.workflow.path)?.runId === run.runId;
    if ((tooMany || tooOld) && !active) removed.push(run);
    else kept.push(run);
  });
  for (const run of removed) rmSync(run.dir, { recursive: true, force: true });

  // What must stay: every lock file's entries (of every workflow any run recorded) and what kept runs used.
  const keepRecords = new Set<string>();
  const keepObjects = new Set<string>();
  const workflows = new Set(runs.flatMap((r) => (r.plan ? [r.plan.workflow.path] : [])));
  for (const workflow of workflows) {
    const lock = safeReadLock(lockPathFor(workflow));
    for (const [id, entry] of Object.entries(lock?.pairs ?? {})) {
      keepRecords.add(`${id}/${entry.configRef}`);
      keepObjects.add(entry.contentHash);
    }
  }
  for (const run of kept) {
    for (const p of run.plan?.pairs ?? []) if (p.configRef) keepRecords.add(`${p.id}/${p.configRef}`);
    for (const o of outcomesFromTrace(run.events).values()) {
      if (o.configRef) keepRecords.add(`${o.id}/${o.configRef}`);
      if (o.contentHash) keepObjects.add(o.contentHash);
    }
  }

  const storeDir = path.join(stateDir, "store");
  const store = new LocalStore(storeDir);
  let removedRecords = 0;
  const pairsDir = path.join(storeDir, "pairs");
  for (const pair of existsSync(pairsDir) ? readdirSync(pairsDir) : []) {
    for (const name of readdirSync(path.join(pairsDir, pair))) {
      const ref = name.replace(/\.json$/, "");
      if (keepRecords.has(`${pair}/${ref}`)) {
        const rec = store.record(pair, ref);
        if (rec?.contentHash) keepObjects.add(rec.contentHash);
        continue;
      }
      rmSync(path.join(pairsDir, pair, name), { force: true });
      removedRecords++;
    }
  }
  let removedObjects = 0;
  const objectsDir = path.join(storeDir, "objects");
  for (const shard of existsSync(objectsDir) ? readdirSync(objectsDir) : []) {
    for (const hash of readdirSync(path.join(objectsDir, shard))) {
      // Names starting with "." are files being written right now.
      if (hash.startsWith(".") || keepObjects.has(hash) || !statSync(path.join(objectsDir, shard, hash)).isFile()) continue;
      rmSync(path.join(objectsDir, shard, hash), { force: true });
      removedObjects++;
    }
  }
  return { removedRuns: removed.map((r) => r.runId), keptRuns: kept.length, removedRecords, removedObjects };
}

function safeReadLock(file: string) {
  try {
    return readLock(file);
  } catch {
    return null; // a damaged lock file protects nothing; prune keeps going
  }
}
