/**
 * A vendored slice of a real documentation history (bench/history/<name>/history.json, made by
 * bench/history/make-<name>.mjs): the pages at a base commit, then each commit's changes to them.
 * `replay` gives back every commit's pages, checked against the digest stored with it.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { applyPatch, createPatch } from "diff";

/** One page a commit changed: its new content whole, or a patch (unified hunks, no context) of its old one. */
export interface PageChange {
  path: string;
  /** The page's path before the commit, when the commit renamed it. */
  from?: string;
  patch?: string;
  content?: string;
  deleted?: true;
}

export interface HistoryCommit {
  /** The first 12 hex digits of the commit's id. */
  id: string;
  date: string;
  subject: string;
  /** A merged pull request's title. */
  title?: string;
  changes: PageChange[];
  /** digestOf the pages after this commit. */
  digest: string;
}

export interface History {
  repository: string;
  license: string;
  paths: string[];
  /** The full id of the last commit. */
  tip: string;
  base: { id: string; date: string; subject: string; digest: string; pages: Record<string, string> };
  /** The sha256 of each page after the last commit. */
  final: Record<string, string>;
  commits: HistoryCommit[];
}

export type Pages = Record<string, string>;

export const HISTORY_DIR = path.dirname(fileURLToPath(import.meta.url));

export function loadHistory(name = "rust-book"): History {
  return JSON.parse(readFileSync(path.join(HISTORY_DIR, name, "history.json"), "utf8")) as History;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** One digest of a set of pages: each page's path and the sha256 of its content, by path. */
export function digestOf(pages: Pages): string {
  return sha256(
    Object.keys(pages)
      .sort()
      .map((p) => `${p}\t${sha256(pages[p]!)}\n`)
      .join(""),
  );
}

/** The hunks of a patch from a to b, without headers or context lines. */
export function patchOf(a: string, b: string): string {
  const full = createPatch("page", a, b, "", "", { context: 0 });
  return full.slice(full.indexOf("@@"));
}

/**
 * What turns the pages before into the pages after (applyCommit's inverse): each changed or added
 * page as the smaller of a patch and its whole text; a page that vanished while another appeared,
 * with a patch between them smaller than the new page, as a rename.
 */
export function changesOf(before: Pages, after: Pages): PageChange[] {
  const removed = Object.keys(before)
    .filter((p) => !Object.hasOwn(after, p))
    .sort();
  const added = Object.keys(after)
    .filter((p) => !Object.hasOwn(before, p))
    .sort();
  const renamedFrom = new Map<string, string>();
  for (const p of added) {
    let best: { from: string; size: number } | undefined;
    for (const r of removed) {
      if ([...renamedFrom.values()].includes(r)) continue;
      const size = patchOf(before[r]!, after[p]!).length;
      if (size < after[p]!.length && (best === undefined || size < best.size)) best = { from: r, size };
    }
    if (best) renamedFrom.set(p, best.from);
  }
  const changes: PageChange[] = [];
  for (const p of Object.keys(after).sort()) {
    const from = renamedFrom.get(p) ?? p;
    const old = Object.hasOwn(before, from) ? before[from] : undefined;
    if (old === after[p] && from === p) continue;
    const change: PageChange = { path: p };
    if (from !== p) change.from = from;
    const patch = old === undefined ? undefined : patchOf(old, after[p]!);
    if (patch !== undefined && patch.length < after[p]!.length && applyPatch(old!, patch) === after[p]) change.patch = patch;
    else change.content = after[p]!;
    changes.push(change);
  }
  const renamed = new Set(renamedFrom.values());
  for (const p of removed) if (!renamed.has(p)) changes.push({ path: p, deleted: true });
  return changes;
}

/** The pages after one commit, from the pages before it. */
export function applyCommit(before: Pages, commit: HistoryCommit): Pages {
  const after: Pages = { ...before };
  for (const change of commit.changes) if (change.from !== undefined || change.deleted) delete after[change.from ?? change.path];
  for (const change of commit.changes) {
    if (change.deleted) continue;
    if (change.content !== undefined) {
      after[change.path] = change.content;
      continue;
    }
    const old = before[change.from ?? change.path];
    if (old === undefined || change.patch === undefined) throw new Error(`commit ${commit.id}: ${change.path} has no earlier content to patch`);
    const patched = applyPatch(old, change.patch);
    if (patched === false) throw new Error(`commit ${commit.id}: the patch of ${change.path} does not apply`);
    after[change.path] = patched;
  }
  return after;
}

/** The base's pages, then every commit's, each checked against its digest. */
export function* replay(history: History): Generator<{ commit: HistoryCommit | null; pages: Pages }> {
  let pages = history.base.pages;
  if (digestOf(pages) !== history.base.digest) throw new Error(`the base ${history.base.id}'s pages do not match their digest`);
  yield { commit: null, pages };
  for (const commit of history.commits) {
    pages = applyCommit(pages, commit);
    if (digestOf(pages) !== commit.digest) throw new Error(`replaying commit ${commit.id} does not give its pages back`);
    yield { commit, pages };
  }
}
