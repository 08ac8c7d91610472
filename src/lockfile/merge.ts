/**
 * A three-way merge of lock files, pair by pair, for `pairflow merge-lock` as a git merge driver.
 *
 * A pair changed on one side only takes that side (an entry added, changed or removed). A pair
 * both sides changed alike keeps that. A pair both sides changed differently keeps the entry made
 * under the merged configuration, when the entries tell what it is: each entry records a digest of
 * every component of its configuration (prompt fields, model, settings, inputs, upstream
 * references and contents), and those merge like files do, component by component: a component
 * changed on one side takes that side's value. When that merge gives exactly one side's
 * components, the merged configuration is that side's for this pair, and so is its entry. When
 * both sides changed the same component differently, or the result is a mix of both, the merged
 * configuration is one neither side ran: the entry is dropped and the next plan runs the pair
 * again. When both entries were made under the same configuration (two runs accepted different
 * content), the later acceptance is kept. Either entry remains a true record of what was accepted
 * under its reference, so no choice here can make a plan reuse content under the wrong reference;
 * the choice only decides what the next run can skip.
 *
 * Git runs a merge driver before it writes the merged files to the working tree, so the driver
 * cannot read the merged workflow there; the components are what it has.
 */
import { componentsOf, type LockEntry, type LockFile, LOCK_VERSION } from "../model/records.js";
import { entryJson, orderedEntry } from "./write.js";
import { dict, own } from "../model/dict.js";

export type MergeOutcome = "ours" | "theirs" | "dropped" | "later";

export interface LockMerge {
  lock: LockFile;
  /** How each pair both sides changed differently was settled. */
  settled: { id: string; outcome: MergeOutcome }[];
  /** Pairs taken from the other side. */
  fromTheirs: string[];
}

export function mergeLocks(base: LockFile | null, ours: LockFile, theirs: LockFile): LockMerge {
  const pairs = dict<LockEntry>();
  const settled: LockMerge["settled"] = [];
  const fromTheirs: string[] = [];
  const ids = new Set([...Object.keys(base?.pairs ?? {}), ...Object.keys(ours.pairs), ...Object.keys(theirs.pairs)]);
  for (const id of [...ids].sort()) {
    const b = own(base?.pairs, id);
    const o = own(ours.pairs, id);
    const t = own(theirs.pairs, id);
    let kept: LockEntry | undefined;
    if (same(o, t) || same(t, b)) kept = o;
    else if (same(o, b)) {
      kept = t;
      fromTheirs.push(id);
    } else {
      const { entry, outcome } = settle(b, o, t);
      kept = entry;
      settled.push({ id, outcome });
    }
    if (kept !== undefined) pairs[id] = kept;
  }
  const workflow = ours.workflow === theirs.workflow || theirs.workflow === base?.workflow ? ours.workflow : theirs.workflow;
  return { lock: { version: LOCK_VERSION, workflow, pairs }, settled, fromTheirs };
}

/** Both sides changed the pair, differently. */
function settle(b: LockEntry | undefined, o: LockEntry | undefined, t: LockEntry | undefined): { entry: LockEntry | undefined; outcome: MergeOutcome } {
  // Removed on one side (the pair left that side's workflow), changed on the other: which one the
  // merged workflow has is for the person merging the workflow file to decide. Dropped either way.
  if (o === undefined || t === undefined) return { entry: undefined, outcome: "dropped" };
  if (o.configRef === t.configRef) {
    const later = o.acceptedAt > t.acceptedAt || (o.acceptedAt === t.acceptedAt && o.contentHash >= t.contentHash) ? o : t;
    return { entry: later, outcome: "later" };
  }
  const [ours, theirs] = [componentsOf(o), componentsOf(t)];
  const merged = mergeComponents(b ? componentsOf(b) : {}, ours, theirs);
  if (merged !== undefined && sameComponents(merged, ours)) return { entry: o, outcome: "ours" };
  if (merged !== undefined && sameComponents(merged, theirs)) return { entry: t, outcome: "theirs" };
  return { entry: undefined, outcome: "dropped" };
}

/** Component by component: a side's change wins over the base; both changing one differently is a conflict (undefined). */
export function mergeComponents(
  base: Record<string, string>,
  ours: Record<string, string>,
  theirs: Record<string, string>,
): Record<string, string> | undefined {
  const out = dict<string>();
  for (const key of new Set([...Object.keys(base), ...Object.keys(ours), ...Object.keys(theirs)])) {
    const [b, o, t] = [own(base, key), own(ours, key), own(theirs, key)];
    const value = o === t || t === b ? o : o === b ? t : null;
    if (value === null) return undefined;
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function sameComponents(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

function same(a: LockEntry | undefined, b: LockEntry | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  // Entries written alike are alike, without decoding their components.
  if (entryJson(a) === entryJson(b)) return true;
  return canonical({ ...orderedEntry(a), components: componentsOf(a) }) === canonical({ ...orderedEntry(b), components: componentsOf(b) });
}

/** JSON with every object's keys sorted, so entries compare by content whatever order they were written in. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
}
