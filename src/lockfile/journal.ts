/**
 * The journal of a run's lock-file changes. Rewriting the whole lock file after every acceptance
 * made a run quadratic in its pairs; instead each acceptance (or removal) is appended as one short
 * line to a journal beside the lock file, and the lock file itself is rewritten only at
 * checkpoints and when the run ends.
 *
 * The journal lives beside the lock file (in its directory's real path), as
 * `.<lock file name>.journal`, not under a state directory: the lock file is shared by every state
 * directory, so whatever reads it (a plan, a run, a resume, with any state directory) reads the
 * journal with it. Only the holder of the workflow's run mutex appends to it. If a run is killed,
 * the next run folds it into the lock file under the mutex before planning and removes it; a plan
 * meanwhile reads the lock file with the journal applied, so accepted pairs are never lost and
 * never look like hand edits.
 *
 * Format: a header line `{"journal":1,"workflow":NAME}`, then one line per change,
 * `{"id":PAIR,"entry":ENTRY}` (ENTRY null: the pair left the lock file). Lines apply in order; a
 * last line without its newline was cut short by the kill and is ignored, as is any line that is
 * not a well-formed change.
 */
import { closeSync, ftruncateSync, lstatSync, openSync, readFileSync, realpathSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import { InputError } from "../model/errors.js";
import { dict } from "../model/dict.js";
import { type LockEntry, type LockFile, LOCK_VERSION } from "../model/records.js";
import { readLock } from "./lockfile.js";
import { isPathList } from "./read.js";
import { entryJson, writeLock } from "./write.js";
import { ownWrite } from "../workspace/files.js";

export interface LockChange {
  id: string;
  /** null: the pair left the lock file. */
  entry: LockEntry | null;
}

export interface Journal {
  /** The workflow's name, from the header (absent if the header was lost). */
  workflow?: string;
  changes: LockChange[];
}

/**
 * The lock file's path in its directory's real path. A lock file that is a symbolic link is not
 * followed: what sits beside the lock file (the journal, the run mutex) stays in the workflow's
 * directory, inside the repository, wherever a committed link leads.
 */
export function realLockPath(lockFile: string): string {
  try {
    return path.join(realpathSync.native(path.dirname(lockFile)), path.basename(lockFile));
  } catch {
    return path.resolve(lockFile);
  }
}

/** `.<lock file name>.journal` beside the lock file, in its directory's real path. */
export function journalPath(lockFile: string): string {
  const real = realLockPath(lockFile);
  return path.join(path.dirname(real), `.${path.basename(real)}.journal`);
}

/** The journal beside the lock file, or null if there is none. */
export function readJournal(lockFile: string): Journal | null {
  const file = journalPath(lockFile);
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return null;
  if (!stat.isFile()) throw new InputError(`${file} is not a file (pairflow keeps its journal of lock-file changes there); remove it`);
  const text = readFileSync(file, "utf8");
  return parseJournal(text);
}

export function parseJournal(text: string): Journal {
  const journal: Journal = { changes: [] };
  const lines = text.split("\n");
  lines.pop(); // after the last newline: empty, or a line the kill cut short
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(value)) continue;
    if (value.journal === 1 && typeof value.workflow === "string") journal.workflow = value.workflow;
    else if (typeof value.id === "string" && (value.entry === null || isLockEntry(value.entry))) journal.changes.push({ id: value.id, entry: value.entry });
  }
  return journal;
}

/** The lock file as the journal's changes leave it (the lock file itself is not changed). */
export function applyJournal(lock: LockFile | null, journal: Journal | null): LockFile | null {
  if (journal === null || journal.changes.length === 0) return lock;
  const next: LockFile = { version: LOCK_VERSION, workflow: lock?.workflow ?? journal.workflow ?? "", pairs: Object.assign(dict<LockEntry>(), lock?.pairs) };
  for (const change of journal.changes) setPair(next.pairs, change.id, change.entry);
  return next;
}

/** What the planner reads: the lock file with the journal of a run in progress, or of a killed one, applied. */
export function readLockWithJournal(lockFile: string, display = lockFile): LockFile | null {
  // The journal first: a checkpoint writes the lock file before it empties the journal, so
  // whichever moment this lands on, the two together hold every change.
  const journal = readJournal(lockFile);
  return applyJournal(readLock(lockFile, display), journal);
}

/**
 * Folds a journal left by a killed run into the lock file and removes it. Only under the run
 * mutex: the journal of a live run is still growing. The lock file is written before the journal
 * is removed, so a kill in between leaves a journal that applies again to the same effect.
 */
export function foldJournal(lockFile: string, display = lockFile): void {
  const journal = readJournal(lockFile);
  if (journal === null) return;
  const lock = applyJournal(readLock(lockFile, display), journal);
  if (journal.changes.length > 0 && lock !== null) writeLock(lockFile, lock);
  rmSync(journalPath(lockFile), { force: true });
}

export interface LockWriterOptions {
  /** Rewrite the lock file once this many changes are journaled since the last time, at the least (default 1000)... */
  every?: number;
  /** ...or once this many milliseconds have passed since the last time (default 30 s). */
  intervalMs?: number;
  now?: () => number;
}

/**
 * A run's writer of the lock file, used under the run mutex: each change is journaled at once; the lock file is rewritten at checkpoints and at close. A checkpoint re-reads the lock
 * file and applies all of this run's changes to it, so entries written meanwhile by anything else
 * (another branch checked out, a pull) for pairs this run did not touch are kept.
 *
 * A checkpoint comes after `every` changes, or as many changes as the lock file has entries if
 * that is more, so the bytes rewritten over a run stay proportional to its size; or after
 * `intervalMs`, so the committed file is never far behind during a long run.
 */
export class LockWriter {
  /** Every change this run made, by pair: what each checkpoint applies. */
  private readonly changes = new Map<string, LockEntry | null>();
  private fd: number | undefined;
  private readonly journal: string;
  private sinceCheckpoint = 0;
  private lastCheckpoint: number;
  private size = 0;
  private readonly every: number;
  private readonly intervalMs: number;
  private readonly now: () => number;
  /** How often the lock file was rewritten, for measurements. */
  checkpoints = 0;

  constructor(
    private readonly lockFile: string,
    private readonly workflow: string,
    options: LockWriterOptions = {},
  ) {
    this.journal = journalPath(lockFile);
    this.every = options.every ?? 1000;
    this.intervalMs = options.intervalMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.lastCheckpoint = this.now();
  }

  /** Journals one change; a checkpoint follows when one is due. */
  record(id: string, entry: LockEntry | null): void {
    const line = `{"id":${JSON.stringify(id)},"entry":${entry === null ? "null" : entryJson(entry)}}\n`;
    // Written through to the kernel before the output file is: a killed or crashed process loses
    // nothing. Not synced to the disk line by line (that costs milliseconds a pair), nor are the
    // store's records: a power loss may take the acceptances since the last checkpoint, whose
    // outputs the next plan then has no record of (docs/lock-file.md). Each checkpoint's lock file is synced.
    ownWrite(this.journal, () => {
      if (this.fd === undefined) {
        this.fd = openSync(this.journal, "a");
        append(this.fd, JSON.stringify({ journal: 1, workflow: this.workflow }) + "\n");
      }
      append(this.fd, line);
    });
    this.changes.set(id, entry);
    this.sinceCheckpoint++;
    if (this.sinceCheckpoint >= Math.max(this.every, this.size) || this.now() - this.lastCheckpoint >= this.intervalMs) {
      try {
        this.checkpoint();
      } catch {
        // The change is safe in the journal; the next checkpoint, or close, tries again (and
        // close reports what keeps failing).
        this.lastCheckpoint = this.now();
      }
    }
  }

  /** Rewrites the lock file with every change of this run, then empties the journal. */
  checkpoint(): void {
    if (this.sinceCheckpoint === 0) return;
    const lock = readLock(this.lockFile);
    const next: LockFile = { version: LOCK_VERSION, workflow: this.workflow, pairs: Object.assign(dict<LockEntry>(), lock?.pairs) };
    for (const [id, entry] of this.changes) setPair(next.pairs, id, entry);
    writeLock(this.lockFile, next);
    // Everything journaled so far is in the lock file now; a kill before this truncation leaves
    // changes that apply again to the same effect.
    if (this.fd !== undefined) ftruncateSync(this.fd, 0);
    if (this.fd !== undefined) append(this.fd, JSON.stringify({ journal: 1, workflow: this.workflow }) + "\n");
    this.size = Object.keys(next.pairs).length;
    this.sinceCheckpoint = 0;
    this.lastCheckpoint = this.now();
    this.checkpoints++;
  }

  /** The last checkpoint; the journal is removed once it holds nothing the lock file lacks. */
  close(): void {
    try {
      this.checkpoint();
    } finally {
      if (this.fd !== undefined) closeSync(this.fd);
      this.fd = undefined;
    }
    // Only a journal with nothing left to fold goes (a failed checkpoint above threw past this).
    rmSync(this.journal, { force: true });
  }
}

function append(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** pairs is a dictionary: an id such as "__proto__" is a key like any other. */
function setPair(pairs: Record<string, LockEntry>, id: string, entry: LockEntry | null): void {
  if (entry === null) delete pairs[id];
  else pairs[id] = entry;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isLockEntry(v: unknown): v is LockEntry {
  if (!isObject(v)) return false;
  const tokens = v.tokens;
  return (
    typeof v.configRef === "string" &&
    typeof v.contentHash === "string" &&
    (v.source === "generated" || v.source === "human") &&
    (v.model === null || typeof v.model === "string") &&
    isObject(v.components) &&
    Object.values(v.components).every((c) => typeof c === "string") &&
    typeof v.attempts === "number" &&
    isObject(tokens) &&
    typeof tokens.input === "number" &&
    typeof tokens.output === "number" &&
    typeof v.durationMs === "number" &&
    typeof v.acceptedAt === "string" &&
    (v.observed === undefined || isPathList(v.observed))
  );
}
