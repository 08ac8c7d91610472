/**
 * The state directory (.pairflow/ at the repository root by default) holds only real directories.
 * A repository can commit symbolic links anywhere, under an ignored .pairflow/ too (`git add -f`),
 * and a pull request brings whatever its author committed: a link there would make pairflow write,
 * read or delete through it, outside the repository. So before pairflow reads, writes or deletes
 * there, the state directory's path from the repository root, the directories pairflow keeps in
 * it, and the entries of those it lists (objects' shards, pairs' record folders, runs) are looked
 * at with lstat, never through a link; a link is refused, with the path and what to do, before
 * anything is written.
 *
 * A state directory given explicitly (--state-dir, PAIRFLOW_STATE_DIR) outside the repository is
 * the user's choice, even through a link; what is under it is checked all the same.
 */
import { lstatSync, mkdirSync, readdirSync, readlinkSync, type Stats } from "node:fs";
import path from "node:path";
import { isInside } from "../config/paths.js";
import { UsageError } from "../model/errors.js";
import { lstatOrUndefined } from "./files.js";

/** The directories pairflow keeps under the state directory, parents before children. */
export const STATE_SUBDIRS = [
  "store",
  "store/objects",
  "store/pairs",
  "store/requests",
  "runs",
  "batches",
  "shared",
  "shared/store",
  "shared/store/objects",
  "shared/store/pairs",
  "shared/store/requests",
  "shared/shards",
  "shared/outbox",
  "cache",
  "cache/state",
  "cache/pack",
];

/** Those whose entries are directories pairflow reads and writes into (a shard of objects, a pair's records, a run). */
const LISTED = [
  "store/objects",
  "store/pairs",
  "store/requests",
  "runs",
  "shared/store/objects",
  "shared/store/pairs",
  "shared/store/requests",
  "shared/shards",
  "shared/outbox",
];

/** A link (or a file) where pairflow keeps a directory. */
export class StateLinkError extends UsageError {
  override name = "StateLinkError";
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Throws StateLinkError when the state directory, or a directory pairflow keeps in it, is a
 * symbolic link or not a directory: the state directory's path from the repository root
 * (when it is inside the repository), STATE_SUBDIRS, and the entries of the listed ones.
 */
export function checkStateDir(stateDir: string, root?: string): void {
  const problem = stateDirLink(stateDir, root);
  if (problem) throw problem;
}

/** What checkStateDir throws, or undefined. Without `root`, the state directory's own path is not looked at. */
export function stateDirLink(stateDir: string, root?: string): StateLinkError | undefined {
  const shown = (file: string) => (root !== undefined && isInside(root, file) ? path.relative(root, file) || "." : file);
  const refuse = (file: string, stat: Stats) => refusal(file, stat, shown(file), shown(stateDir));
  if (root !== undefined && isInside(root, stateDir)) {
    for (const dir of componentsBelow(root, stateDir)) {
      const stat = lstatOrUndefined(dir);
      if (stat === undefined) return undefined; // nothing is there yet: what pairflow makes is real
      if (!stat.isDirectory()) return refuse(dir, stat);
    }
  } else if (lstatOrUndefined(stateDir) === undefined) return undefined;
  for (const sub of STATE_SUBDIRS) {
    const dir = path.join(stateDir, sub);
    const stat = lstatOrUndefined(dir);
    if (stat !== undefined && !stat.isDirectory()) return refuse(dir, stat);
  }
  for (const sub of LISTED) {
    for (const entry of direntsOf(path.join(stateDir, sub))) {
      if (entry.isSymbolicLink()) {
        const file = path.join(stateDir, sub, entry.name);
        return refuse(file, lstatSync(file));
      }
    }
  }
  return undefined;
}

function refusal(file: string, stat: Stats, shown: string, state: string): StateLinkError {
  if (stat.isSymbolicLink()) {
    let target = "";
    try {
      target = ` (to ${readlinkSync(file)})`;
    } catch {
      // gone meanwhile
    }
    return new StateLinkError(
      file,
      `${shown} is a symbolic link${target}; pairflow never writes, reads or deletes through a link in its state directory: remove the link (${state}/ and everything pairflow keeps under it must be real directories)`,
    );
  }
  return new StateLinkError(
    file,
    `${shown} is not a directory; pairflow keeps a directory there: remove it (${state}/ and everything pairflow keeps under it must be real directories)`,
  );
}

/** The paths from just below `root` down to `dir`, one component at a time. */
function componentsBelow(root: string, dir: string): string[] {
  const rel = path.relative(root, dir);
  if (rel === "") return [];
  const parts = rel.split(path.sep);
  return parts.map((_, i) => path.join(root, ...parts.slice(0, i + 1)));
}

/**
 * Makes `dir` and the directories between `base` (which exists, checked) and it, one at a time,
 * never through a link: a link (or a file) on the way throws StateLinkError naming it.
 */
export function makeRealDirs(base: string, dir: string): void {
  for (const d of componentsBelow(base, dir)) {
    let stat = lstatOrUndefined(d);
    if (stat === undefined) {
      try {
        mkdirSync(d);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      stat = lstatSync(d);
    }
    if (!stat.isDirectory()) throw refusal(d, stat, d, base);
  }
}

/**
 * Makes `dir` in `parent`, a real directory made or checked before: one call where `dir` is new,
 * and a link (or a file) in its place throws StateLinkError as makeRealDirs does. `base` is what the
 * error names as the state directory.
 */
export function makeRealDirIn(base: string, dir: string): void {
  try {
    mkdirSync(dir);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw refusal(dir, stat, dir, base);
}

function direntsOf(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
