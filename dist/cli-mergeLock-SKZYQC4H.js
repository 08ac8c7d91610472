#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  entryJson,
  orderedEntry,
  readLock,
  writeLock
} from "./cli-chunk-LAOPAIVL.js";
import {
  nameFor
} from "./cli-chunk-FEFDJVE6.js";
import {
  LOCK_VERSION,
  componentsOf,
  emptyLock
} from "./cli-chunk-7NHSQKXA.js";
import {
  dict,
  examples,
  own
} from "./cli-chunk-BXCSBTXN.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";

// src/app/mergeLock.ts
import { statSync } from "node:fs";
import path from "node:path";

// src/lockfile/merge.ts
function mergeLocks(base, ours, theirs) {
  const pairs = dict();
  const settled = [];
  const fromTheirs = [];
  const ids = /* @__PURE__ */ new Set([...Object.keys(base?.pairs ?? {}), ...Object.keys(ours.pairs), ...Object.keys(theirs.pairs)]);
  for (const id of [...ids].sort()) {
    const b = own(base?.pairs, id);
    const o = own(ours.pairs, id);
    const t = own(theirs.pairs, id);
    let kept;
    if (same(o, t) || same(t, b)) kept = o;
    else if (same(o, b)) {
      kept = t;
      fromTheirs.push(id);
    } else {
      const { entry, outcome } = settle(b, o, t);
      kept = entry;
      settled.push({ id, outcome });
    }
    if (kept !== void 0) pairs[id] = kept;
  }
  const workflow = ours.workflow === theirs.workflow || theirs.workflow === base?.workflow ? ours.workflow : theirs.workflow;
  return { lock: { version: LOCK_VERSION, workflow, pairs }, settled, fromTheirs };
}
function settle(b, o, t) {
  if (o === void 0 || t === void 0) return { entry: void 0, outcome: "dropped" };
  if (o.configRef === t.configRef) {
    const later = o.acceptedAt > t.acceptedAt || o.acceptedAt === t.acceptedAt && o.contentHash >= t.contentHash ? o : t;
    return { entry: later, outcome: "later" };
  }
  const [ours, theirs] = [componentsOf(o), componentsOf(t)];
  const merged = mergeComponents(b ? componentsOf(b) : {}, ours, theirs);
  if (merged !== void 0 && sameComponents(merged, ours)) return { entry: o, outcome: "ours" };
  if (merged !== void 0 && sameComponents(merged, theirs)) return { entry: t, outcome: "theirs" };
  return { entry: void 0, outcome: "dropped" };
}
function mergeComponents(base, ours, theirs) {
  const out = dict();
  for (const key of /* @__PURE__ */ new Set([...Object.keys(base), ...Object.keys(ours), ...Object.keys(theirs)])) {
    const [b, o, t] = [own(base, key), own(ours, key), own(theirs, key)];
    const value = o === t || t === b ? o : o === b ? t : null;
    if (value === null) return void 0;
    if (value !== void 0) out[key] = value;
  }
  return out;
}
function sameComponents(a, b) {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}
function same(a, b) {
  if (a === void 0 || b === void 0) return a === b;
  if (entryJson(a) === entryJson(b)) return true;
  return canonical({ ...orderedEntry(a), components: componentsOf(a) }) === canonical({ ...orderedEntry(b), components: componentsOf(b) });
}
function canonical(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
}

// src/app/mergeLock.ts
function mergeLockFiles(files) {
  const name = files.name ?? "lock file";
  const read = (file, which) => {
    const abs = path.resolve(files.cwd, file);
    if (statSync(abs, { throwIfNoEntry: false })?.size === 0) return null;
    return readLock(abs, `${name} (${which})`);
  };
  const base = read(files.base, "common ancestor");
  const ours = read(files.ours, "ours");
  const theirs = read(files.theirs, "theirs");
  const empty = (other) => emptyLock(other?.workflow ?? "");
  const result = mergeLocks(base, ours ?? empty(theirs), theirs ?? empty(ours));
  writeLock(path.resolve(files.cwd, files.ours), result.lock);
  return result;
}

// src/cli/commands/mergeLock.ts
var SETTLED = {
  ours: "kept this branch's entry, made under the merged configuration",
  theirs: "kept the other branch's entry, made under the merged configuration",
  later: "both made under the same configuration; kept the later acceptance",
  dropped: "dropped: neither side ran the merged configuration, the next run runs it"
};
function registerMergeLock(program, { io }) {
  program.command("merge-lock").description(
    "Merge three versions of a lock file pair by pair, as a git merge driver: the result replaces <ours>. A pair changed on one side takes that side; one changed on both keeps the entry made under the merged configuration, or is dropped so the next run runs it. Exit status 0 when merged; 2 when a version is not a readable lock file (git then leaves the file conflicted). See docs/lock-file.md."
  ).argument("<base>", "the common ancestor's version (git's %O)").argument("<ours>", "this branch's version, replaced by the result (git's %A)").argument("<theirs>", "the other branch's version (git's %B)").argument("[path]", "the lock file's path in the repository, for messages (git's %P)").addHelpText(
    "after",
    examples([
      "git config merge.pairflow.name 'pairflow lock file'",
      "git config merge.pairflow.driver 'npx pairflow merge-lock %O %A %B %P'",
      "echo '*.lock.json merge=pairflow' >> .gitattributes"
    ])
  ).action((base, ours, theirs, name) => {
    const merged = mergeLockFiles({ base, ours, theirs, name, cwd: io.cwd });
    for (const { id, outcome } of merged.settled)
      io.stderr.write(`${nameFor(name ?? ours, "terminal")}: ${nameFor(id, "terminal")}: changed on both sides; ${SETTLED[outcome]}
`);
  });
}
export {
  registerMergeLock
};
