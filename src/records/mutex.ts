/**
 * One run at a time per workflow and state directory. The lock is a file created exclusively;
 * it names its holder, so a lock left by a process that no longer exists (killed, crashed) is
 * taken over instead of blocking forever.
 */
import { mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { sha256Hex } from "../refs/hash.js";

export interface LockHolder {
  pid: number;
  host: string;
  runId: string;
  workflow: string;
  since: string;
}

export class LockBusyError extends Error {
  override name = "LockBusyError";
  constructor(readonly holder: LockHolder) {
    super(`another run (${holder.runId}, pid ${holder.pid} on ${holder.host}) is using ${holder.workflow} with this state directory`);
  }
}

/** Keyed by the workflow file's real path: the same file reached through a symlink is the same workflow. */
export function lockPath(stateDir: string, workflowPath: string): string {
  let real = workflowPath;
  try {
    real = realpathSync(workflowPath);
  } catch {
    // A workflow that no longer exists (an old run's record): its path as recorded.
  }
  return path.join(stateDir, "locks", `${sha256Hex(real).slice(0, 16)}.lock`);
}

export interface AcquireOptions {
  runId: string;
  /** Wait for the holder to finish (default) or fail at once with LockBusyError. */
  wait: boolean;
  /** Told once when waiting begins. */
  onWait?: (holder: LockHolder) => void;
  pollMs?: number;
  signal?: AbortSignal;
}

/** Takes the lock, waiting if asked; returns the function that releases it. */
export async function acquireRunLock(stateDir: string, workflowPath: string, options: AcquireOptions): Promise<() => void> {
  const file = lockPath(stateDir, workflowPath);
  mkdirSync(path.dirname(file), { recursive: true });
  const me: LockHolder = { pid: process.pid, host: hostname(), runId: options.runId, workflow: workflowPath, since: new Date().toISOString() };
  let told = false;
  for (;;) {
    try {
      writeFileSync(file, JSON.stringify(me), { flag: "wx" });
      return () => release(file, me);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = readHolder(file);
    if (holder === undefined && youngerThan(file, 5_000)) {
      // Just created, its holder not yet written: wait a moment rather than take it over.
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (holder === undefined || isStale(holder)) {
      // Move the stale lock aside under a unique name: of several processes taking it over at
      // once, exactly one rename succeeds and the others find the lock free or taken again.
      try {
        renameSync(file, `${file}.stale.${process.pid}`);
        rmSync(`${file}.stale.${process.pid}`, { force: true });
      } catch {
        // someone else moved it first
      }
      continue;
    }
    if (!options.wait) throw new LockBusyError(holder);
    if (!told) {
      options.onWait?.(holder);
      told = true;
    }
    if (options.signal?.aborted) throw new LockBusyError(holder);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
  }
}

function youngerThan(file: string, ms: number): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < ms;
  } catch {
    return false;
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as LockHolder;
  } catch {
    return undefined; // gone, or written only in part by a process that died at that instant
  }
}

/** A holder on this machine whose process is gone. Holders on other machines are trusted. */
export function isStale(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

function release(file: string, me: LockHolder): void {
  const holder = readHolder(file);
  if (holder?.pid === me.pid && holder.runId === me.runId) rmSync(file, { force: true });
}

/** The live holder of a workflow's lock, if any (for telling a running run from a crashed one). */
export function currentHolder(stateDir: string, workflowPath: string): LockHolder | undefined {
  const holder = readHolder(lockPath(stateDir, workflowPath));
  return holder && !isStale(holder) ? holder : undefined;
}

/**
 * Takes the locks of several workflows, one after the other in a fixed order (so two callers
 * never wait for each other), for work that must not overlap any of their runs; returns the
 * function that releases them all. If one cannot be taken, those already taken are released.
 */
export async function acquireRunLocks(stateDir: string, workflowPaths: readonly string[], options: AcquireOptions): Promise<() => void> {
  const releases: (() => void)[] = [];
  const releaseAll = () => {
    for (const release of releases.reverse()) release();
  };
  try {
    for (const workflow of [...new Set(workflowPaths)].sort()) releases.push(await acquireRunLock(stateDir, workflow, options));
  } catch (err) {
    releaseAll();
    throw err;
  }
  return releaseAll;
}
