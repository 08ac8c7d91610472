/**
 * The lock file: committed beside the workflow file, it records for each pair the accepted
 * configRef, content hash and component digests. Reviewed in pull requests, so it is written in a
 * stable order (pairs by id, fixed field order) for minimal diffs, and atomically.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../workspace/files.js";
import { parseLock, readLockText } from "./read.js";
import { type LockFile, LOCK_VERSION, type LockEntry } from "../model/records.js";

/** workflow.yml -> workflow.lock.json, in the same directory. */
export function lockPathFor(workflowPath: string): string {
  const ext = path.extname(workflowPath);
  return path.join(path.dirname(workflowPath), `${path.basename(workflowPath, ext)}.lock.json`);
}

/** The lock file, checked entry by entry (src/lockfile/read.ts); null when there is none. */
export function readLock(file: string, display = file): LockFile | null {
  if (!existsSync(file)) return null;
  return parseLock(readLockText(file, display), display);
}

export function serializeLock(lock: LockFile): string {
  const pairs: Record<string, LockEntry> = {};
  for (const id of Object.keys(lock.pairs).sort()) {
    const e = lock.pairs[id]!;
    // Fixed field order: the order people read them in, and the same on every write.
    pairs[id] = {
      configRef: e.configRef,
      contentHash: e.contentHash,
      source: e.source,
      model: e.model,
      components: e.components,
      attempts: e.attempts,
      tokens: { input: e.tokens.input, output: e.tokens.output },
      durationMs: e.durationMs,
      acceptedAt: e.acceptedAt,
    };
  }
  return JSON.stringify({ version: LOCK_VERSION, workflow: lock.workflow, pairs }, null, 2) + "\n";
}

export function writeLock(file: string, lock: LockFile): void {
  writeFileAtomic(file, serializeLock(lock));
}
