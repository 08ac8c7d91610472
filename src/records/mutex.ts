/**
 * One run at a time per workflow: the run mutex, keyed by the path of the workflow's lock file in
 * the workflow's real directory, whatever the state directory and however the workflow was reached
 * (a symlinked file or directory is the same workflow). It is the file `.<lock file name>.mutex`
 * beside the lock file, naming its holder; runs with different state directories write the same
 * lock file and output files, so they share it.
 *
 * Taking it is creating that file exclusively: the holder's record is written to a temporary file
 * and hard-linked to the mutex's name, which fails if the name exists, so the mutex is never seen
 * half-written. A holder on this machine whose process is gone (killed, crashed) is taken over,
 * and the takeover can never admit two holders: the dead holder's file is removed only by the
 * one process that exclusively created the takeover guard named after that file's content, and
 * only after re-reading the mutex under the guard and finding it still the same. Everyone then
 * competes again for the exclusive creation, which exactly one wins. Nothing else ever removes the
 * mutex but its holder releasing it. A guard whose own creator died is taken over the same way,
 * by a guard named after the guard.
 *
 * A holder record that cannot be a holder of this file is ignored, with one warning, and taken over
 * like a dead one, where waiting for it would mean waiting for ever:
 *
 * - A holder on another host. The record names the host that wrote it, and a run can only hold a
 *   file on the host it runs on; the only way for a live run elsewhere to hold this very file is
 *   a repository on a network file system shared by two machines that run the same workflow at
 *   the same moment. That is rare (a repository is a clone per machine: CI jobs, laptops), while
 *   foreign records are common: a mutex committed by accident (`git add -A` during a run) reaches
 *   every clone, and CI gets a new host name for each job, even a re-run of the same job, so such a
 *   record would stop every run in every clone for ever, and nothing here could ever find it dead.
 *   Trusting it would trade a rare double run for a certain hang; it is not trusted.
 * - A record that git put there: the file is tracked by git and was not written when its record
 *   says it was taken (its modification time is more than SINCE_SLACK_MS after `since`), as a
 *   checkout, a reset or a stash writes it. Its pid is a process of another time, or another
 *   clone: alive now only by reuse (in a container pid 1 always is). A tracked file that a live
 *   run here did write (the path was committed once, and a run has taken it since) is still
 *   waited for: ignoring every tracked file would let two runs into a clone that has the mistake.
 *   git is asked only when the mutex is found held by a live process of this host, so the common
 *   path (no mutex, or one's own) never starts it; without git, or outside a repository, nothing
 *   is tracked.
 *
 * The mutex is beside the lock file's path in the workflow's real directory, never beside what a
 * lock file that is a symbolic link leads to: a committed link (a pull request's file) could lead
 * out of the repository, and pairflow writes nothing outside it. (pairflow's own writes replace
 * such a link by a file, so keying the mutex by the link's target would change the key mid-run.)
 *
 * proper-lockfile was considered: its staleness is an mtime its holder refreshes on a timer (a
 * busy run or a suspended laptop can lose a live lock), and its takeover removes the stale lock
 * and re-creates it in two steps, so two processes that both saw it stale can both end up holding it.
 */
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { linkSync, readFileSync, realpathSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { lockPathFor } from "../lockfile/lockfile.js";
import { UsageError } from "../model/errors.js";
import { realLockPath } from "../lockfile/journal.js";

export interface LockHolder {
  pid: number;
  host: string;
  runId: string;
  workflow: string;
  since: string;
  /** Unique to one taking of the mutex. */
  token?: string;
}

export class LockBusyError extends Error {
  override name = "LockBusyError";
  constructor(readonly holder: LockHolder) {
    super(`another run (${holder.runId}, pid ${holder.pid} on ${holder.host}) is using ${holder.workflow}`);
  }
}

/**
 * The mutex file of a workflow: beside the lock file of the workflow's real path, in that real
 * directory, so a workflow file reached through a symlink, or in a symlinked directory, has one
 * mutex. A lock file that is itself a link is not followed (see realLockPath).
 */
export function lockPath(workflowPath: string): string {
  let real = workflowPath;
  try {
    real = realpathSync.native(workflowPath);
  } catch {
    // A workflow that no longer exists (an old run's record): its path as recorded.
  }
  const lock = realLockPath(lockPathFor(real));
  return path.join(path.dirname(lock), `.${path.basename(lock)}.mutex`);
}

export interface AcquireOptions {
  runId: string;
  /** Wait for the holder to finish (default) or fail at once with LockBusyError. */
  wait: boolean;
  /** Told once when waiting begins. */
  onWait?: (holder: LockHolder) => void;
  /** Told once when a holder record that cannot hold this file (see above) is ignored. */
  onWarn?: (message: string) => void;
  pollMs?: number;
  signal?: AbortSignal;
}

/** Takes the workflow's mutex, waiting if asked; returns the function that releases it. */
export async function acquireRunLock(workflowPath: string, options: AcquireOptions): Promise<() => void> {
  const file = lockPath(workflowPath);
  let told = false;
  let warned = false;
  // The verdict on the record last seen: while waiting for a live holder, git is asked once.
  let judged: { seen: string; ignored: string | undefined } | undefined;
  for (;;) {
    // Written afresh each time: `since` is when the file was written (see ignoredBecause).
    const me = holderRecord(options.runId, workflowPath);
    if (createExclusive(file, me)) return () => release(file, me);
    const seen = readText(file);
    if (seen === undefined) {
      await sleep(1); // released meanwhile: try again
      continue;
    }
    const holder = parseHolder(seen);
    if (holder === undefined || isStale(holder)) {
      if (holder === undefined && youngerThan(file, 5_000)) {
        // Written without hard links (see createExclusive) and not yet complete: wait a moment.
        await sleep(50);
        continue;
      }
      removeDeadHolder(file, seen, options.runId, workflowPath);
      await sleep(1); // let the guard's creator finish; then compete again
      continue;
    }
    if (judged?.seen !== seen) judged = { seen, ignored: ignoredBecause(file, holder) };
    const ignored = judged.ignored;
    if (ignored !== undefined) {
      if (!warned) options.onWarn?.(ignored);
      warned = true;
      removeDeadHolder(file, seen, options.runId, workflowPath);
      await sleep(1);
      continue;
    }
    if (!options.wait) throw new LockBusyError(holder);
    if (!told) {
      options.onWait?.(holder);
      told = true;
    }
    if (options.signal?.aborted) throw new LockBusyError(holder);
    await sleep(options.pollMs ?? 200);
  }
}

function holderRecord(runId: string, workflow: string): string {
  const holder: LockHolder = { pid: process.pid, host: hostname(), runId, workflow, since: new Date().toISOString(), token: randomBytes(8).toString("hex") };
  return JSON.stringify(holder);
}

/**
 * Removes the mutex (or a guard) at `file` if it still holds `seen`, the record of a holder found
 * dead. Of all the processes that try at once, only the one that creates the guard for this exact
 * content removes it, after checking under the guard that it is still that content; the guard
 * goes when it is done. If the guard's own creator died holding it, its guard is taken over first.
 */
function removeDeadHolder(file: string, seen: string, runId: string, workflow: string, depth = 0): void {
  const guard = `${file}.takeover-${createHash("sha256").update(seen).digest("hex").slice(0, 16)}`;
  if (createExclusive(guard, holderRecord(runId, workflow))) {
    try {
      if (readText(file) === seen) unlinkSync(file);
    } finally {
      rmSync(guard, { force: true });
    }
    return;
  }
  const other = readText(guard);
  if (other === undefined || depth >= 8) return;
  const holder = parseHolder(other);
  if (holder !== undefined && !isStale(holder) && ignoredBecause(guard, holder) === undefined) return; // alive and taking it over: let it
  if (holder === undefined && youngerThan(guard, 5_000)) return;
  removeDeadHolder(guard, other, runId, workflow, depth + 1);
}

/** Creates `file` holding `text` if it does not exist, atomically and complete; false if it exists. */
function createExclusive(file: string, text: string): boolean {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  writeFileSync(tmp, text);
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV") throw err;
    // A file system without hard links: exclusive creation, then the content (a reader may
    // briefly find it empty; see the wait in acquireRunLock).
    try {
      writeFileSync(file, text, { flag: "wx" });
      return true;
    } catch (err2) {
      if ((err2 as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw err2;
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}

function youngerThan(file: string, ms: number): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < ms;
  } catch {
    return false;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined; // gone
    // A directory or an unreadable file where the mutex belongs: waiting would never end.
    throw new UsageError(`${file} cannot be read as pairflow's run mutex (${(err as NodeJS.ErrnoException).code}); remove it if no run is going`);
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder> | null;
    if (value === null || typeof value !== "object" || typeof value.pid !== "number" || typeof value.host !== "string") return undefined;
    return { runId: "?", workflow: "?", since: "?", ...value } as LockHolder;
  } catch {
    return undefined;
  }
}

function readHolder(file: string): LockHolder | undefined {
  const text = readText(file);
  return text === undefined ? undefined : parseHolder(text);
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

/** How far a holder's own file's modification time may be from the `since` in it (coarse or network file system clocks). */
export const SINCE_SLACK_MS = 60_000;

/**
 * Why the live-looking holder in `file` cannot be holding it (the module comment says why each
 * is ignored), as the warning to give; undefined when it is a holder to wait for.
 */
function ignoredBecause(file: string, holder: LockHolder): string | undefined {
  const fix = `git rm --cached ${file}, and add ${path.basename(file)} to .gitignore`;
  const who = `run ${holder.runId}, pid ${holder.pid}`;
  if (holder.host !== hostname()) {
    return `${file} names a holder on another host (${who} on ${holder.host}): a run mutex is held only on the host that runs pairflow, so it is ignored. It must not be committed; if git tracks it, ${fix}`;
  }
  if (writtenBySince(file, holder) || !trackedByGit(file)) return undefined;
  return `${file} is tracked by git, and its holder (${who}, since ${holder.since}) came with a checkout, not from a run here, so it is ignored. It must not be committed: ${fix}`;
}

/** Whether the file was written when its record says it was taken, as a holder writes it. */
function writtenBySince(file: string, holder: LockHolder): boolean {
  const since = Date.parse(holder.since);
  let mtime: number;
  try {
    mtime = statSync(file).mtimeMs;
  } catch {
    return true; // gone: released meanwhile, nothing to ignore
  }
  return Number.isFinite(since) && Math.abs(mtime - since) <= SINCE_SLACK_MS;
}

/** Whether git tracks the file; false without git, or outside a repository. */
function trackedByGit(file: string): boolean {
  const r = spawnSync("git", ["ls-files", "--error-unmatch", "--", path.basename(file)], {
    cwd: path.dirname(file),
    stdio: "ignore",
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
  });
  return r.status === 0;
}

/** Removes the mutex if it is still this holder's (nothing else removes a live holder's mutex). */
function release(file: string, me: string): void {
  if (readText(file) === me) rmSync(file, { force: true });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The live holder of a workflow's mutex, if any (for telling a running run from a crashed one). */
export function currentHolder(workflowPath: string): LockHolder | undefined {
  const file = lockPath(workflowPath);
  const holder = readHolder(file);
  return holder && !isStale(holder) && ignoredBecause(file, holder) === undefined ? holder : undefined;
}

/**
 * Takes the mutexes of several workflows, one after the other in a fixed order (so two callers
 * never wait for each other), for work that must not overlap any of their runs; returns the
 * function that releases them all. If one cannot be taken, those already taken are released.
 */
export async function acquireRunLocks(workflowPaths: readonly string[], options: AcquireOptions): Promise<() => void> {
  const releases: (() => void)[] = [];
  const releaseAll = () => {
    for (const release of releases.reverse()) release();
  };
  try {
    const byMutex = new Map<string, string>();
    for (const workflow of workflowPaths) if (!byMutex.has(lockPath(workflow))) byMutex.set(lockPath(workflow), workflow);
    for (const key of [...byMutex.keys()].sort()) releases.push(await acquireRunLock(byMutex.get(key)!, options));
  } catch (err) {
    releaseAll();
    throw err;
  }
  return releaseAll;
}
