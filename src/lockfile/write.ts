/**
 * Writing the lock file. It is committed and reviewed, and two branches often change it at once,
 * so its layout is chosen for git's line-based merge: the header and the closing lines never
 * change, each pair's entry is one line of its own, and consecutive entries are separated by a
 * line holding only the comma JSON needs between them. A change to one pair therefore touches
 * exactly one line, and changes to two different pairs are never on the same or adjacent lines,
 * which is what git's three-way merge needs to combine them without a conflict. Adding or
 * removing a pair next to a pair the other branch changed can still touch adjacent lines; the
 * `merge-lock` driver (see merge.ts) merges those, and every other case, per pair.
 *
 * Any JSON layout of version 1 is read (readLock parses JSON); only this one is written.
 */
import { writeFileAtomic } from "../workspace/files.js";
import { type LockEntry, type LockFile, LOCK_VERSION } from "../model/records.js";

/** One entry in a fixed field order: the order people read them in, and the same on every write. */
export function orderedEntry(e: LockEntry): LockEntry {
  const entry: LockEntry = {
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
  // Written only when a traced run saw something: a lock file of untraced runs reads as before.
  if (e.observed !== undefined && e.observed.length > 0) entry.observed = [...e.observed];
  return entry;
}

/**
 * One entry's JSON on one line, fields in orderedEntry's order. Components kept as the text a
 * lock file held are written as that text (it was checked to be a flat mapping when read), where
 * JSON.stringify writes an empty mapping: no other `"components":{}` can be in the line, since
 * every other value is a number or a quoted text.
 */
export function entryJson(e: LockEntry): string {
  const c = e.components;
  if (typeof c !== "string") return JSON.stringify(orderedEntry(e));
  return JSON.stringify(orderedEntry({ ...e, components: {} })).replace('"components":{}', () => `"components":${c}`);
}

export function serializeLock(lock: LockFile): string {
  const ids = Object.keys(lock.pairs).sort();
  const entries = ids.map((id) => `    ${JSON.stringify(id)}: ${entryJson(lock.pairs[id]!)}\n`);
  return (
    "{\n" +
    `  "version": ${LOCK_VERSION},\n` +
    `  "workflow": ${JSON.stringify(lock.workflow)},\n` +
    '  "pairs": {\n' +
    entries.join("    ,\n") +
    "  }\n" +
    "}\n"
  );
}

export function writeLock(file: string, lock: LockFile): void {
  writeFileAtomic(file, serializeLock(lock));
}
