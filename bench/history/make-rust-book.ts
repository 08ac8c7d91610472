/**
 * Makes bench/history/rust-book/: a slice of the real history of The Rust Programming Language
 * (https://github.com/rust-lang/book, MIT or Apache-2.0), the pages of chapters 3 and 4 through the
 * last commits of the main line that changed any of them, for bench/replay.ts to replay.
 *
 *   node --import tsx bench/history/make-rust-book.ts GIT_DIR [TIP] [COUNT]
 *
 * GIT_DIR is a clone of the book (a bare one will do), TIP the commit to end at (default HEAD),
 * COUNT how many page-changing commits to keep (default 130). Not run by the tests: its output is
 * committed, and test/bench/history.test.ts checks that replaying it gives back every commit's pages.
 *
 * The main line is the first-parent chain from TIP, except through a merge of the main branch into
 * a topic branch that was then fast-forwarded onto main ("Merge branch 'main' into patch-1"): there
 * the first parent is the topic branch, whose own first parents lead years back, so the chain
 * follows the second parent, main. Each kept commit holds the pages it changed relative to the one
 * before it on that chain.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { changesOf, digestOf, HISTORY_DIR, sha256, type History, type HistoryCommit, type Pages } from "./history.js";

const PAGES = /^src\/ch0[34]-[^/]*\.md$/;
const PATTERNS = ["src/ch03-*.md", "src/ch04-*.md"];
const LICENSES = ["COPYRIGHT", "LICENSE-MIT", "LICENSE-APACHE"];
const MAIN_INTO_BRANCH = /^Merge (remote-tracking )?branch '(origin\/)?(main|master)'( of \S+)? into /;

const [gitDir, tip = "HEAD", countArg = "130"] = process.argv.slice(2);
if (!gitDir) {
  console.error("usage: node --import tsx bench/history/make-rust-book.ts GIT_DIR [TIP] [COUNT]");
  process.exit(2);
}
const count = Number(countArg);
const outDir = path.join(HISTORY_DIR, "rust-book");

const git = (...args: string[]) => execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", maxBuffer: 1 << 30 });

interface Commit {
  id: string;
  parents: string[];
  date: string;
  subject: string;
}

// Every ancestor of the tip: its parents, date and subject.
const commits = new Map<string, Commit>();
for (const line of git("log", "--format=%H%x09%P%x09%ad%x09%s", "--date=short", tip).split("\n")) {
  if (!line) continue;
  const [id, parents, date, subject] = line.split("\t") as [string, string, string, string];
  commits.set(id, { id, parents: parents ? parents.split(" ") : [], date, subject });
}

/** The page blobs of a commit, by path. */
const blobsCache = new Map<string, Record<string, string>>();
function blobsOf(id: string): Record<string, string> {
  let blobs = blobsCache.get(id);
  if (!blobs) {
    blobs = {};
    for (const line of git("ls-tree", id, "src/").split("\n")) {
      const m = /^\d+ blob ([0-9a-f]+)\t(.*)$/.exec(line);
      if (m && PAGES.test(m[2]!)) blobs[m[2]!] = m[1]!;
    }
    blobsCache.set(id, blobs);
  }
  return blobs;
}

const same = (a: Record<string, string>, b: Record<string, string>) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

// Down the main line from the tip, until COUNT commits that changed pages, and the one before them.
const kept: Commit[] = [];
let at = commits.get(git("rev-parse", tip).trim());
let base: Commit | undefined;
while (at && !base) {
  const next = at.parents.length > 1 && MAIN_INTO_BRANCH.test(at.subject) ? at.parents[1] : at.parents[0];
  const parent = next === undefined ? undefined : commits.get(next);
  if (parent === undefined) throw new Error(`the main line ends at ${at.id} before ${count} commits changed the pages`);
  if (!same(blobsOf(at.id), blobsOf(parent.id))) {
    if (kept.length === count) base = at;
    else kept.push(at);
  }
  at = parent;
}
if (!base) throw new Error("no base commit");
kept.reverse();
const last = kept.at(-1)!;

const texts = new Map<string, string>();
function pagesOf(id: string): Pages {
  const pages: Pages = {};
  for (const [p, blob] of Object.entries(blobsOf(id))) {
    if (!texts.has(blob)) texts.set(blob, git("cat-file", "blob", blob));
    pages[p] = texts.get(blob)!;
  }
  return pages;
}

const basePages = pagesOf(base.id);
const entries: HistoryCommit[] = [];
let before = basePages;
for (const c of kept) {
  const after = pagesOf(c.id);
  const entry: HistoryCommit = { id: c.id.slice(0, 12), date: c.date, subject: c.subject, changes: changesOf(before, after), digest: digestOf(after) };
  if (/^Merge pull request /.test(c.subject)) {
    const title = git("log", "-1", "--format=%b", c.id)
      .split("\n")
      .find((l) => l.trim() !== "");
    if (title) entry.title = title.trim();
  }
  entries.push(entry);
  before = after;
}

const history: Omit<History, "commits"> = {
  repository: "https://github.com/rust-lang/book",
  license: "MIT OR Apache-2.0 (COPYRIGHT, LICENSE-MIT and LICENSE-APACHE beside this file)",
  paths: PATTERNS,
  tip: last.id,
  base: { id: base.id.slice(0, 12), date: base.date, subject: base.subject, digest: digestOf(basePages), pages: basePages },
  final: Object.fromEntries(
    Object.keys(before)
      .sort()
      .map((p) => [p, sha256(before[p]!)]),
  ),
};
// One commit a line, so a re-made file diffs commit by commit.
const json = JSON.stringify(history).slice(0, -1) + `,"commits":[\n${entries.map((e) => JSON.stringify(e)).join(",\n")}\n]}\n`;
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, "history.json"), json);
// Byte for byte, as the book publishes them.
for (const f of LICENSES) writeFileSync(path.join(outDir, f), execFileSync("git", ["--git-dir", gitDir, "cat-file", "blob", `${last.id}:${f}`]));
console.log(
  `${kept.length} commits from ${base.id.slice(0, 12)} (${base.date}) to ${last.id.slice(0, 12)} (${last.date}), ` +
    `${Object.keys(basePages).length} pages at the base, ${Object.keys(before).length} at the end; history.json ${(json.length / 1024).toFixed(0)} KB`,
);
