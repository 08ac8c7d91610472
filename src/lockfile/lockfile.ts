/**
 * The lock file: committed beside the workflow file, it records for each pair the accepted
 * configRef, content hash and component digests. Reviewed in pull requests, so it is written in a
 * stable order (pairs by id, fixed field order) for minimal diffs, and atomically.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../model/errors.js";
import { type LockFile, LOCK_VERSION } from "../model/records.js";

/** workflow.yml -> workflow.lock.json, in the same directory. */
export function lockPathFor(workflowPath: string): string {
  const ext = path.extname(workflowPath);
  return path.join(path.dirname(workflowPath), `${path.basename(workflowPath, ext)}.lock.json`);
}

export function readLock(file: string, display = file): LockFile | null {
  if (!existsSync(file)) return null;
  const text = readFileSync(file, "utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const offset = Number(/position (\d+)/.exec((err as Error).message)?.[1] ?? 0);
    const before = text.slice(0, offset).split("\n");
    throw new ConfigError([
      {
        file: display,
        line: before.length,
        column: before[before.length - 1]!.length + 1,
        key: "",
        message: `the lock file is not valid JSON (${(err as Error).message}); restore it from version control, or delete it to plan every pair as new`,
      },
    ]);
  }
  const lock = value as Partial<LockFile>;
  if (lock === null || typeof lock !== "object" || lock.version !== LOCK_VERSION || typeof lock.pairs !== "object" || lock.pairs === null) {
    throw new ConfigError([
      {
        file: display,
        line: 1,
        column: 1,
        key: "version",
        message: `not a pairflow lock file of version ${LOCK_VERSION}; restore it from version control, or delete it to plan every pair as new`,
      },
    ]);
  }
  return lock as LockFile;
}

// Writing moved beside the journal; these names stay for the callers that have them.
export { serializeLock, writeLock } from "./write.js";
