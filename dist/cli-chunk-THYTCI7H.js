#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  entryJson,
  lockPathFor,
  readLock,
  writeLock
} from "./cli-chunk-E7FTIRSQ.js";
import {
  sortedObject
} from "./cli-chunk-F45ITKSN.js";
import {
  LOCK_VERSION
} from "./cli-chunk-KXFCEU3I.js";
import {
  ConfigError,
  InputError,
  OutputFiles,
  UsageError,
  defaultStateDir,
  dict,
  displayPath,
  escapeGlob,
  isInside,
  loadWorkflow,
  outputIssues,
  outputPath,
  ownWrite,
  readFileNoFollow,
  require_out,
  sha256Hex,
  temporaryFor,
  textHashes
} from "./cli-chunk-PQWGCFOQ.js";
import {
  __toESM
} from "./cli-chunk-FRV2UMY2.js";

// src/lockfile/journal.ts
import { closeSync, ftruncateSync, lstatSync, openSync, readFileSync, realpathSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
function realLockPath(lockFile) {
  try {
    return path.join(realpathSync(path.dirname(lockFile)), path.basename(lockFile));
  } catch {
    return path.resolve(lockFile);
  }
}
function journalPath(lockFile) {
  const real = realLockPath(lockFile);
  return path.join(path.dirname(real), `.${path.basename(real)}.journal`);
}
function readJournal(lockFile) {
  const file = journalPath(lockFile);
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (stat === void 0) return null;
  if (!stat.isFile()) throw new InputError(`${file} is not a file (pairflow keeps its journal of lock-file changes there); remove it`);
  const text = readFileSync(file, "utf8");
  return parseJournal(text);
}
function parseJournal(text) {
  const journal = { changes: [] };
  const lines = text.split("\n");
  lines.pop();
  for (const line of lines) {
    let value;
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
function applyJournal(lock, journal) {
  if (journal === null || journal.changes.length === 0) return lock;
  const next = { version: LOCK_VERSION, workflow: lock?.workflow ?? journal.workflow ?? "", pairs: Object.assign(dict(), lock?.pairs) };
  for (const change of journal.changes) setPair(next.pairs, change.id, change.entry);
  return next;
}
function readLockWithJournal(lockFile, display = lockFile) {
  const journal = readJournal(lockFile);
  return applyJournal(readLock(lockFile, display), journal);
}
function foldJournal(lockFile, display = lockFile) {
  const journal = readJournal(lockFile);
  if (journal === null) return;
  const lock = applyJournal(readLock(lockFile, display), journal);
  if (journal.changes.length > 0 && lock !== null) writeLock(lockFile, lock);
  rmSync(journalPath(lockFile), { force: true });
}
var LockWriter = class {
  constructor(lockFile, workflow, options = {}) {
    this.lockFile = lockFile;
    this.workflow = workflow;
    this.journal = journalPath(lockFile);
    this.every = options.every ?? 1e3;
    this.intervalMs = options.intervalMs ?? 3e4;
    this.now = options.now ?? Date.now;
    this.lastCheckpoint = this.now();
  }
  lockFile;
  workflow;
  /** Every change this run made, by pair: what each checkpoint applies. */
  changes = /* @__PURE__ */ new Map();
  fd;
  journal;
  sinceCheckpoint = 0;
  lastCheckpoint;
  size = 0;
  every;
  intervalMs;
  now;
  /** How often the lock file was rewritten, for measurements. */
  checkpoints = 0;
  /** Journals one change; a checkpoint follows when one is due. */
  record(id, entry) {
    const line = `{"id":${JSON.stringify(id)},"entry":${entry === null ? "null" : entryJson(entry)}}
`;
    ownWrite(this.journal, () => {
      if (this.fd === void 0) {
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
        this.lastCheckpoint = this.now();
      }
    }
  }
  /** Rewrites the lock file with every change of this run, then empties the journal. */
  checkpoint() {
    if (this.sinceCheckpoint === 0) return;
    const lock = readLock(this.lockFile);
    const next = { version: LOCK_VERSION, workflow: this.workflow, pairs: Object.assign(dict(), lock?.pairs) };
    for (const [id, entry] of this.changes) setPair(next.pairs, id, entry);
    writeLock(this.lockFile, next);
    if (this.fd !== void 0) ftruncateSync(this.fd, 0);
    if (this.fd !== void 0) append(this.fd, JSON.stringify({ journal: 1, workflow: this.workflow }) + "\n");
    this.size = Object.keys(next.pairs).length;
    this.sinceCheckpoint = 0;
    this.lastCheckpoint = this.now();
    this.checkpoints++;
  }
  /** The last checkpoint; the journal is removed once it holds nothing the lock file lacks. */
  close() {
    try {
      this.checkpoint();
    } finally {
      if (this.fd !== void 0) closeSync(this.fd);
      this.fd = void 0;
    }
    rmSync(this.journal, { force: true });
  }
};
function append(fd, text) {
  const bytes = Buffer.from(text, "utf8");
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}
function setPair(pairs, id, entry) {
  if (entry === null) delete pairs[id];
  else pairs[id] = entry;
}
function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
function isLockEntry(v) {
  if (!isObject(v)) return false;
  const tokens = v.tokens;
  return typeof v.configRef === "string" && typeof v.contentHash === "string" && (v.source === "generated" || v.source === "human") && (v.model === null || typeof v.model === "string") && isObject(v.components) && Object.values(v.components).every((c) => typeof c === "string") && typeof v.attempts === "number" && isObject(tokens) && typeof tokens.input === "number" && typeof tokens.output === "number" && typeof v.durationMs === "number" && typeof v.acceptedAt === "string";
}

// src/refs/keys.ts
function pairKey(id) {
  const key = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(id) ? id : id.replace(/[^A-Za-z0-9_.-]/gu, (c) => encodeURIComponent(c).replace(/[!'()*]/g, escapeChar));
  return boundedKey(key, id);
}
var KEY_BYTES = 150;
function boundedKey(key, whole) {
  if (key.length <= KEY_BYTES) return key;
  let start = key.slice(0, 80);
  const escape = start.lastIndexOf("%");
  if (escape > start.length - 3) start = start.slice(0, escape);
  return `${start}~${sha256Hex(whole)}`;
}
function isHashedKey(key) {
  return key.includes("~");
}
function escapeChar(c) {
  return "%" + c.charCodeAt(0).toString(16).toUpperCase();
}

// src/app/state.ts
import path6 from "node:path";

// src/store/local.ts
import { existsSync, lstatSync as lstatSync3, mkdirSync as mkdirSync2, readdirSync as readdirSync2, renameSync, rmSync as rmSync2, writeFileSync } from "node:fs";
import path3 from "node:path";

// src/workspace/stateDir.ts
import { lstatSync as lstatSync2, mkdirSync, readdirSync, readlinkSync } from "node:fs";
import path2 from "node:path";
var STATE_SUBDIRS = [
  "store",
  "store/objects",
  "store/pairs",
  "store/requests",
  "runs",
  "shared",
  "shared/store",
  "shared/store/objects",
  "shared/store/pairs",
  "shared/store/requests",
  "shared/shards",
  "shared/outbox",
  "cache",
  "cache/state",
  "cache/pack"
];
var LISTED = [
  "store/objects",
  "store/pairs",
  "store/requests",
  "runs",
  "shared/store/objects",
  "shared/store/pairs",
  "shared/store/requests",
  "shared/shards",
  "shared/outbox"
];
var StateLinkError = class extends UsageError {
  constructor(file, message) {
    super(message);
    this.file = file;
  }
  file;
  name = "StateLinkError";
};
function checkStateDir(stateDir, root) {
  const problem = stateDirLink(stateDir, root);
  if (problem) throw problem;
}
function stateDirLink(stateDir, root) {
  const shown = (file) => root !== void 0 && isInside(root, file) ? path2.relative(root, file) || "." : file;
  const refuse = (file, stat) => refusal(file, stat, shown(file), shown(stateDir));
  if (root !== void 0 && isInside(root, stateDir)) {
    for (const dir of componentsBelow(root, stateDir)) {
      const stat = lstatOrUndefined(dir);
      if (stat === void 0) return void 0;
      if (!stat.isDirectory()) return refuse(dir, stat);
    }
  } else if (lstatOrUndefined(stateDir) === void 0) return void 0;
  for (const sub of STATE_SUBDIRS) {
    const dir = path2.join(stateDir, sub);
    const stat = lstatOrUndefined(dir);
    if (stat !== void 0 && !stat.isDirectory()) return refuse(dir, stat);
  }
  for (const sub of LISTED) {
    for (const entry of direntsOf(path2.join(stateDir, sub))) {
      if (entry.isSymbolicLink()) {
        const file = path2.join(stateDir, sub, entry.name);
        return refuse(file, lstatSync2(file));
      }
    }
  }
  return void 0;
}
function refusal(file, stat, shown, state) {
  if (stat.isSymbolicLink()) {
    let target = "";
    try {
      target = ` (to ${readlinkSync(file)})`;
    } catch {
    }
    return new StateLinkError(
      file,
      `${shown} is a symbolic link${target}; pairflow never writes, reads or deletes through a link in its state directory: remove the link (${state}/ and everything pairflow keeps under it must be real directories)`
    );
  }
  return new StateLinkError(
    file,
    `${shown} is not a directory; pairflow keeps a directory there: remove it (${state}/ and everything pairflow keeps under it must be real directories)`
  );
}
function componentsBelow(root, dir) {
  const rel = path2.relative(root, dir);
  if (rel === "") return [];
  const parts = rel.split(path2.sep);
  return parts.map((_, i) => path2.join(root, ...parts.slice(0, i + 1)));
}
function makeRealDirs(base, dir) {
  for (const d of componentsBelow(base, dir)) {
    let stat = lstatOrUndefined(d);
    if (stat === void 0) {
      try {
        mkdirSync(d);
      } catch (err) {
        if (err.code !== "EEXIST") throw err;
      }
      stat = lstatSync2(d);
    }
    if (!stat.isDirectory()) throw refusal(d, stat, d, base);
  }
}
function lstatOrUndefined(file) {
  try {
    return lstatSync2(file);
  } catch (err) {
    const code = err.code;
    if (code === "ENOENT" || code === "ENOTDIR") return void 0;
    throw err;
  }
}
function direntsOf(dir) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

// src/store/local.ts
var HEX64 = /^[0-9a-f]{64}$/;
var MAX_REQUEST_ENTRIES = 8;
function isRequestEntry(e) {
  const r = e;
  return typeof r === "object" && r !== null && typeof r.contentHash === "string" && HEX64.test(r.contentHash) && typeof r.pair === "string" && typeof r.configRef === "string" && typeof r.verdicts === "object" && r.verdicts !== null && Object.values(r.verdicts).every((v) => v === "accepted" || v === "rejected");
}
var LocalStore = class {
  constructor(dir) {
    this.dir = dir;
  }
  dir;
  /** Content hashes found whole in this invocation: each object is read and verified at most once. */
  verified = /* @__PURE__ */ new Set();
  generated = /* @__PURE__ */ new Map();
  /** Directories this invocation has made (or found): each is made once, not before every write. */
  made = /* @__PURE__ */ new Set();
  /** Content hashes of the accepted artifacts this store holds for a pair that pairflow generated, under any reference. */
  generatedHashes(pair) {
    let hashes = this.generated.get(pair);
    if (hashes) return hashes;
    hashes = /* @__PURE__ */ new Set();
    const key = pairKey(pair);
    const dir = path3.join(this.dir, "pairs", key);
    const names = !key.includes("/") && !key.startsWith(".") && lstatSync3(dir, { throwIfNoEntry: false })?.isDirectory() ? readdirSync2(dir) : [];
    for (const name of names) {
      const rec = name.endsWith(".json") ? this.record(pair, name.slice(0, -".json".length)) : void 0;
      if (rec?.status === "accepted" && rec.source !== "human" && rec.contentHash) hashes.add(rec.contentHash);
    }
    this.generated.set(pair, hashes);
    return hashes;
  }
  /** Whether the store holds this content, whole. */
  hasContent(hash) {
    return this.verified.has(hash) || this.content(hash) !== void 0;
  }
  record(pair, configRef) {
    const file = this.recordPath(pair, configRef);
    if (!existsSync(file)) return void 0;
    try {
      const rec = JSON.parse(readFileNoFollow(file).toString("utf8"));
      return rec.pair === pair && rec.configRef === configRef ? rec : void 0;
    } catch {
      return void 0;
    }
  }
  /** The accepted record for this configuration, if any. */
  accepted(pair, configRef) {
    const rec = this.record(pair, configRef);
    return rec?.status === "accepted" ? rec : void 0;
  }
  /** Content by hash, verified: content that does not match its hash is a miss. */
  content(hash) {
    if (!HEX64.test(hash)) return void 0;
    const file = this.objectPath(hash);
    if (!existsSync(file)) return void 0;
    let data;
    try {
      data = readFileNoFollow(file);
    } catch (err) {
      const code = err.code;
      if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP" || code === "EISDIR") return void 0;
      throw err;
    }
    if (sha256Hex(data) !== hash) return void 0;
    this.verified.add(hash);
    return data;
  }
  putContent(data) {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    const hash = sha256Hex(bytes);
    if (!this.verified.has(hash) && this.content(hash) === void 0) this.write(this.objectPath(hash), bytes);
    this.verified.add(hash);
    return hash;
  }
  /**
   * Records an outcome. A rejection never replaces an accepted record of the same configuration, and
   * only what pairflow generated is recorded as a configuration's artifact: a hand edit is not.
   */
  putRecord(rec) {
    if (rec.status === "rejected" && this.accepted(rec.pair, rec.configRef)) return;
    if (rec.status === "accepted" && rec.source === "human") return;
    if (rec.status === "accepted" && rec.contentHash) this.generated.get(rec.pair)?.add(rec.contentHash);
    this.write(this.recordPath(rec.pair, rec.configRef), JSON.stringify(rec, null, 2) + "\n");
  }
  /** What pairflow's generators returned for this request, newest first; a damaged file reads as none. */
  requests(key) {
    if (!HEX64.test(key)) return [];
    const file = this.requestPath(key);
    if (!existsSync(file)) return [];
    try {
      const value = JSON.parse(readFileNoFollow(file).toString("utf8"));
      if (value.key !== key || !Array.isArray(value.entries)) return [];
      return value.entries.filter(isRequestEntry);
    } catch {
      return [];
    }
  }
  /**
   * Records an artifact generated for a request: a new one first, or the verdicts given to one
   * already recorded added to its own. The newest MAX_REQUEST_ENTRIES are kept.
   */
  putRequest(key, entry) {
    if (!HEX64.test(key) || !HEX64.test(entry.contentHash)) return;
    const entries = this.requests(key);
    const known = entries.findIndex((e) => e.contentHash === entry.contentHash);
    if (known === -1) entries.unshift(entry);
    else entries[known] = { ...entries[known], verdicts: { ...entries[known].verdicts, ...entry.verdicts } };
    this.write(this.requestPath(key), JSON.stringify({ key, entries: entries.slice(0, MAX_REQUEST_ENTRIES) }) + "\n");
  }
  /**
   * Atomic (a temporary file renamed over the target, named as the workspace's atomic writes name
   * theirs so that a killed writer's leftovers are found the same way) but not flushed: see above.
   */
  write(file, data) {
    ownWrite(file, () => this.writeOnce(file, data));
  }
  writeOnce(file, data) {
    const dir = path3.dirname(file);
    if (!this.made.has(dir)) {
      mkdirSync2(this.dir, { recursive: true });
      makeRealDirs(this.dir, dir);
      this.made.add(dir);
    }
    const tmp = temporaryFor(file);
    try {
      writeFileSync(tmp, data);
      renameSync(tmp, file);
    } catch (err) {
      rmSync2(tmp, { force: true });
      this.made.delete(dir);
      throw err;
    }
  }
  requestPath(key) {
    return path3.join(this.dir, "requests", key.slice(0, 2), `${key}.json`);
  }
  objectPath(hash) {
    return path3.join(this.dir, "objects", hash.slice(0, 2), hash);
  }
  recordPath(pair, configRef) {
    const dir = pairKey(pair);
    if (!HEX64.test(configRef) || dir.includes("/") || dir.startsWith(".")) throw new Error(`invalid store key ${pair}/${configRef}`);
    return path3.join(this.dir, "pairs", dir, `${configRef}.json`);
  }
};

// src/store/remote.ts
var RemoteCache = class {
  constructor(store) {
    this.store = store;
  }
  store;
  fetched = /* @__PURE__ */ new Map();
  looked = /* @__PURE__ */ new Map();
  get name() {
    return this.store.name;
  }
  fetch(pair, configRef) {
    const key = `${pair}\0${configRef}`;
    let found = this.fetched.get(key);
    if (!found) {
      found = this.store.fetch(pair, configRef).then(
        (a) => a && a.record.pair === pair && a.record.configRef === configRef && a.record.status === "accepted" ? a : void 0,
        () => void 0
      );
      this.fetched.set(key, found);
    }
    return found;
  }
  record(pair, configRef) {
    const store = this.store;
    if (!store.lookup) return this.fetch(pair, configRef).then((a) => a?.record);
    const key = `${pair}\0${configRef}`;
    let found = this.looked.get(key);
    if (!found) {
      found = store.lookup(pair, configRef).then(
        (r) => r && r.pair === pair && r.configRef === configRef && r.status === "accepted" ? r : void 0,
        () => void 0
      );
      this.looked.set(key, found);
    }
    return found;
  }
  /** The accepted state the store holds for the workflow, as a lock file (see RemoteStore.acceptedState). */
  acceptedState() {
    try {
      return this.store.acceptedState?.() ?? null;
    } catch {
      return null;
    }
  }
  /** What the store holds for this request; none when it cannot tell, or fails. */
  requests(key) {
    try {
      return this.store.requests?.(key) ?? [];
    } catch {
      return [];
    }
  }
  /** A request index entry's content, checked against its hash; undefined on a miss or any failure. */
  async requestContent(hash) {
    try {
      const content = await this.store.requestContent?.(hash);
      return content !== void 0 && sha256Hex(content) === hash ? content : void 0;
    } catch {
      return void 0;
    }
  }
  saveRequest(key, entry, content) {
    this.store.saveRequest?.(key, entry, content);
  }
  save(artifact) {
    const key = `${artifact.record.pair}\0${artifact.record.configRef}`;
    this.fetched.set(key, Promise.resolve(artifact));
    this.looked.set(key, Promise.resolve(artifact.record));
    return this.store.save(artifact);
  }
};

// src/workspace/inputs.ts
var import_fast_glob = __toESM(require_out(), 1);
import { readFileSync as readFileSync2, realpathSync as realpathSync2 } from "node:fs";
import path4 from "node:path";
function writtenFiles(workflow, lockPath) {
  const files = /* @__PURE__ */ new Map([[path4.resolve(lockPath), null]]);
  for (const pair of workflow.pairs.values()) {
    if (pair.output !== void 0) files.set(path4.resolve(workflow.dir, pair.output), pair.id);
  }
  return files;
}
var InputHasher = class {
  constructor(workflow, ignore = [], written = /* @__PURE__ */ new Map()) {
    this.workflow = workflow;
    this.ignore = ignore;
    this.written = written;
    this.root = realpathSync2(workflow.root);
  }
  workflow;
  ignore;
  written;
  hashes = /* @__PURE__ */ new Map();
  root;
  /** `{relative path: sha256}` for one pair's globs, sorted by path; `what` names the globs in messages. */
  hash(patterns, what = "input") {
    if (patterns.length === 0) return dict();
    const files = this.match(patterns).filter((rel) => !this.written.has(path4.resolve(this.workflow.dir, rel)));
    files.sort();
    const out = dict();
    for (const rel of files) out[rel] = this.fileHash(path4.resolve(this.workflow.dir, rel), rel, what);
    return out;
  }
  /**
   * For each glob of one pair, the existing files it matches that hash() leaves out. An output that
   * does not exist yet is left out all the same once it does, but cannot be named before.
   */
  leftOut(patterns) {
    const exclusions = patterns.filter((p) => p.startsWith("!"));
    const out = [];
    patterns.forEach((pattern, index) => {
      if (pattern.startsWith("!")) return;
      for (const file of this.match([pattern, ...exclusions]).sort()) {
        const abs = path4.resolve(this.workflow.dir, file);
        const owner = this.written.get(abs);
        if (owner !== void 0) out.push({ index, pattern, file, owner });
      }
    });
    return out;
  }
  /**
   * Matches by glob list: pairs often share their globs, and each match walks the tree. Like the
   * hashes, they are taken once per invocation (the planner takes every pair's inputs up front).
   */
  matches = /* @__PURE__ */ new Map();
  match(patterns) {
    const key = patterns.join("\0");
    let found = this.matches.get(key);
    if (found === void 0) this.matches.set(key, found = this.glob(patterns));
    return [...found];
  }
  glob(patterns) {
    return import_fast_glob.default.sync([...patterns], {
      cwd: this.workflow.dir,
      dot: true,
      onlyFiles: true,
      unique: true,
      ignore: ["**/.git/**", ...this.ignore]
    });
  }
  /** sha256 of one file (`what` and `rel` name it in messages); an error when it resolves outside the repository. */
  fileHash(abs, rel, what = "input") {
    let hash = this.hashes.get(abs);
    if (hash === void 0) {
      const real = realpathSync2(abs);
      if (!isInside(this.root, real)) {
        throw new InputError(`${what} "${rel}" resolves to ${real}, outside the repository (${this.root}); files pairflow hashes must stay inside it`);
      }
      hash = textHashes(readFileSync2(real)).text;
      this.hashes.set(abs, hash);
    }
    return hash;
  }
};

// src/workspace/pairFiles.ts
import { realpathSync as realpathSync3, statSync } from "node:fs";
import path5 from "node:path";
var OPERATORS = /* @__PURE__ */ new Set([";", "&", "|", "<", ">", "(", ")", "\n"]);
var UNRESOLVABLE = /* @__PURE__ */ new Set(["$", "`", "*", "?", "[", "]", "{", "}"]);
var DOUBLE_QUOTED_ESCAPES = /* @__PURE__ */ new Set(["$", "`", '"', "\\", "\n"]);
var MAX_GUARD_DEPTH = 16;
function commandWords(command) {
  const words = [];
  let word = "";
  let started = false;
  let resolvable = true;
  let output = false;
  const end = () => {
    if (started) {
      if (resolvable && !output && word !== "" && !word.startsWith("-")) words.push(word);
      output = false;
    }
    word = "";
    started = false;
    resolvable = true;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === "\\") {
      const next = command[++i];
      if (next === "\n") continue;
      started = true;
      word += next ?? "";
    } else if (c === " " || c === "	" || c === "\r") {
      end();
    } else if (OPERATORS.has(c)) {
      end();
      output = c === ">" || output && c === "|";
    } else if (c === "#" && !started) {
      const newline = command.indexOf("\n", i);
      i = newline === -1 ? command.length : newline - 1;
    } else if (c === "'") {
      started = true;
      const close = command.indexOf("'", i + 1);
      if (close === -1) {
        resolvable = false;
        break;
      }
      word += command.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      started = true;
      let closed = false;
      for (i++; i < command.length; i++) {
        const q = command[i];
        if (q === '"') {
          closed = true;
          break;
        }
        if (q === "\\" && DOUBLE_QUOTED_ESCAPES.has(command[i + 1] ?? "")) word += command[++i];
        else {
          if (q === "$" || q === "`") resolvable = false;
          word += q;
        }
      }
      if (!closed) {
        resolvable = false;
        break;
      }
    } else {
      if (UNRESOLVABLE.has(c) || c === "~" && !started) resolvable = false;
      started = true;
      word += c;
    }
  }
  end();
  return words;
}
var PairFileHasher = class {
  constructor(workflow, hasher, options = {}) {
    this.workflow = workflow;
    this.hasher = hasher;
    this.options = options;
    this.realRoot = realpathSync3(workflow.root);
    this.excluded = new Set(options.exclude ?? []);
    for (const pair of workflow.pairs.values()) {
      const file = outputPath(workflow, pair);
      if (file !== void 0) this.excluded.add(file);
    }
  }
  workflow;
  hasher;
  options;
  realRoot;
  excluded;
  cache = /* @__PURE__ */ new Map();
  /** Whether a command word's absolute path is a file to hash, by path. */
  words = /* @__PURE__ */ new Map();
  /** `{path: sha256}` of what the pair's generator reads and what its guards read; computed once per pair. */
  hashes(pair) {
    let files = this.cache.get(pair.id);
    if (!files) {
      const generator = dict();
      const config = pair.generatorConfig;
      if (pair.generator === "command") this.commandFiles(config.run, generator);
      this.globbed("generator_config.files", config.files, generator);
      const guard = dict();
      this.guardFiles(pair.guard, pair.guardConfig, pair.guards, guard, 0);
      files = { generator: sortedObject(generator), guard: sortedObject(guard) };
      this.cache.set(pair.id, files);
    }
    return files;
  }
  /** A guard's files, and a composite guard's sub-guards' (from the pair's `guards`, else guard_config.guards, as it runs them). */
  guardFiles(name, config, subGuards, out, depth) {
    if (name === "command") this.commandFiles(config.run, out);
    if (name === "json_schema" && typeof config.schema_file === "string") this.namedFile("guard_config.schema_file", config.schema_file, out);
    this.globbed("guard_config.files", config.files, out);
    if (name !== "composite" || depth >= MAX_GUARD_DEPTH) return;
    for (const sub of subGuards ?? guardList(config.guards)) this.guardFiles(sub.guard, sub.guard_config, void 0, out, depth + 1);
  }
  /** The files a command line names; words that name nothing, or something outside the repository, are passed over. */
  commandFiles(run, out) {
    if (typeof run !== "string") return;
    for (const word of commandWords(run)) {
      const abs = path5.resolve(this.workflow.dir, word);
      if (this.readable(abs)) out[this.relative(abs)] = this.hasher.fileHash(abs, word);
    }
  }
  /**
   * Whether a command word's path is a regular file inside the repository that pairflow does not
   * write itself. Most words are programs and arguments that name no file, and every pair repeats
   * them, so each path is looked at once, without throwing.
   */
  readable(abs) {
    let known = this.words.get(abs);
    if (known === void 0) {
      known = false;
      if (isInside(this.workflow.root, abs) && !this.excluded.has(abs) && !this.inStateDir(abs) && statSync(abs, { throwIfNoEntry: false })?.isFile()) {
        known = isInside(this.realRoot, realpathSync3(abs));
      }
      this.words.set(abs, known);
    }
    return known;
  }
  /** A file the configuration names as a file: it must stay inside the repository; a missing one is left to the guard to report. */
  namedFile(key, file, out) {
    const abs = path5.resolve(this.workflow.dir, file);
    if (!isInside(this.workflow.root, abs)) {
      throw new InputError(
        `${key} "${file}" is outside the repository (${this.workflow.root}); keep it inside the repository, so its content is part of the reference`
      );
    }
    if (this.excluded.has(abs) || this.inStateDir(abs)) return;
    try {
      if (!statSync(abs).isFile()) return;
    } catch {
      return;
    }
    out[this.relative(abs)] = this.hasher.fileHash(abs, file, key);
  }
  globbed(key, value, out) {
    const patterns = typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((p) => typeof p === "string") : [];
    if (patterns.length === 0) return;
    for (const [rel, hash] of Object.entries(this.hasher.hash(patterns, key))) {
      const abs = path5.resolve(this.workflow.dir, rel);
      if (!this.excluded.has(abs) && !this.inStateDir(abs)) out[this.relative(abs)] = hash;
    }
  }
  inStateDir(abs) {
    return this.options.excludeDir !== void 0 && isInside(this.options.excludeDir, abs);
  }
  /** The component name of a file: its path relative to the workflow file's directory, with `/`. */
  relative(abs) {
    return path5.relative(this.workflow.dir, abs).split(path5.sep).join("/");
  }
};
function guardList(value) {
  if (!Array.isArray(value)) return [];
  const refs = [];
  for (const item of value) {
    if (typeof item === "string") refs.push({ guard: item, guard_config: {} });
    else if (item !== null && typeof item === "object" && typeof item.guard === "string") {
      const { guard, guard_config } = item;
      const config = guard_config !== null && typeof guard_config === "object" && !Array.isArray(guard_config) ? guard_config : {};
      refs.push({ guard, guard_config: config });
    }
  }
  return refs;
}

// src/app/state.ts
function stateDirFor(root, options) {
  const dir = options.stateDir ?? options.env?.PAIRFLOW_STATE_DIR;
  return dir ? path6.resolve(options.cwd, dir) : defaultStateDir(root);
}
function checkedStateDir(root, options) {
  const dir = stateDirFor(root, options);
  checkStateDir(dir, root);
  return dir;
}
function inputHasherFor(workflow, stateDir, lockPath = lockPathFor(workflow.path)) {
  const stateFiles = path6.relative(workflow.dir, stateDir).split(path6.sep).join("/") + "/**";
  const lockDir = path6.relative(workflow.dir, path6.dirname(lockPath)).split(path6.sep).join("/");
  const lockFiles = (lockDir === "" ? "" : escapeGlob(lockDir) + "/") + `.${escapeGlob(path6.basename(lockPath))}.*`;
  return new InputHasher(workflow, [stateFiles, lockFiles], writtenFiles(workflow, lockPath));
}
function openState(target, options) {
  const loaded = loadWorkflow(target, options.cwd);
  const { workflow, graph } = loaded;
  const stateDir = checkedStateDir(workflow.root, options);
  const lockPath = lockPathFor(workflow.path);
  const lock = options.lock !== void 0 ? options.lock : readLockWithJournal(lockPath, displayPath(lockPath, options.cwd));
  const store = new LocalStore(path6.join(stateDir, "store"));
  const outputs = new OutputFiles(workflow, stateDir);
  if (stateDir !== defaultStateDir(workflow.root)) {
    const issues = outputIssues(loaded, outputs);
    if (issues.length > 0) throw new ConfigError(issues);
  }
  const remote = options.remote && new RemoteCache(options.remote);
  const viewLock = lock ?? (options.lock === void 0 ? remote?.acceptedState() ?? null : null);
  const hasher = inputHasherFor(workflow, stateDir, lockPath);
  const inputs = /* @__PURE__ */ new Map();
  const files = new PairFileHasher(workflow, hasher, { exclude: [lockPath], excludeDir: stateDir });
  const view = {
    lock: viewLock,
    record: (pair, ref) => store.record(pair, ref),
    hasContent: (hash) => store.hasContent(hash),
    outputHash: (pair) => outputs.hash(pair),
    generatedHashes: (pair) => store.generatedHashes(pair),
    inputHashes: (pair) => {
      let hashes = inputs.get(pair.id);
      if (!hashes) inputs.set(pair.id, hashes = hasher.hash(pair.inputs));
      return hashes;
    },
    fileHashes: (pair) => files.hashes(pair),
    remote: remote && ((pair, ref) => remote.record(pair, ref)),
    // As the run reads it for a dependent's prompt: the output file when there is one, else the store's copy.
    text: (pair, hash) => {
      const bytes = outputs.read(pair) ?? store.content(hash);
      return bytes === void 0 ? void 0 : strictText(bytes);
    },
    requests: (key) => {
      const local = store.requests(key).filter((e) => store.hasContent(e.contentHash));
      const more = remote?.requests(key).filter((e) => !local.some((l) => l.contentHash === e.contentHash)) ?? [];
      return [...local, ...more];
    }
  };
  return { workflow, graph, loaded, stateDir, lockPath, lock, store, outputs, remote, view };
}
var STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
function strictText(bytes) {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return void 0;
  }
}

export {
  realLockPath,
  readLockWithJournal,
  foldJournal,
  LockWriter,
  pairKey,
  boundedKey,
  isHashedKey,
  checkStateDir,
  makeRealDirs,
  LocalStore,
  stateDirFor,
  checkedStateDir,
  inputHasherFor,
  openState
};
