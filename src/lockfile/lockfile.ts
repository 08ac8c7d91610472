/**
 * The lock file: committed beside the workflow file, it records for each pair the accepted
 * configRef, content hash and component digests. Reviewed in pull requests, so it is written in a
 * stable order (pairs by id, fixed field order) for minimal diffs, and atomically.
 */
import { existsSync } from "node:fs";
import { lockFileOf } from "../config/paths.js";
import { parseLock, readLockText } from "./read.js";
import type { LockFile } from "../model/records.js";

/** workflow.yml -> workflow.lock.json, in the same directory. */
export function lockPathFor(workflowPath: string): string {
  return lockFileOf(workflowPath);
}

/** The lock file, checked entry by entry (src/lockfile/read.ts); null when there is none. */
export function readLock(file: string, display = file): LockFile | null {
  if (!existsSync(file)) return null;
  return parseLock(readLockText(file, display), display);
}

// Writing moved beside the journal; these names stay for the callers that have them.
export { serializeLock, writeLock } from "./write.js";
