/**
 * Merging three versions of a lock file (a git merge driver's %O, %A and %B) pair by pair, the
 * result written over our version, as git expects of a driver.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { readLock } from "../lockfile/lockfile.js";
import { type LockMerge, mergeLocks } from "../lockfile/merge.js";
import { writeLock } from "../lockfile/write.js";
import { emptyLock, type LockFile } from "../model/records.js";

export interface MergeLockFiles {
  base: string;
  ours: string;
  theirs: string;
  /** The lock file's path in the repository (git's %P), for messages. */
  name?: string;
  cwd: string;
}

/** Merges and writes the result over `ours`; throws ConfigError, leaving every file as it was, if a version is not a lock file. */
export function mergeLockFiles(files: MergeLockFiles): LockMerge {
  const name = files.name ?? "lock file";
  const read = (file: string, which: string): LockFile | null => {
    const abs = path.resolve(files.cwd, file);
    // A side where the file does not exist (added on one side only, or on both) comes empty.
    if (statSync(abs, { throwIfNoEntry: false })?.size === 0) return null;
    return readLock(abs, `${name} (${which})`);
  };
  const base = read(files.base, "common ancestor");
  const ours = read(files.ours, "ours");
  const theirs = read(files.theirs, "theirs");
  const empty = (other: LockFile | null): LockFile => emptyLock(other?.workflow ?? "");
  const result = mergeLocks(base, ours ?? empty(theirs), theirs ?? empty(ours));
  writeLock(path.resolve(files.cwd, files.ours), result.lock);
  return result;
}
