#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  LOCK_VERSION
} from "./cli-chunk-7NHSQKXA.js";
import {
  ConfigError,
  asDict,
  lockFileOf,
  writeFileAtomic
} from "./cli-chunk-BXCSBTXN.js";

// src/lockfile/write.ts
function orderedEntry(e) {
  const entry = {
    configRef: e.configRef,
    contentHash: e.contentHash,
    source: e.source,
    model: e.model,
    components: e.components,
    attempts: e.attempts,
    tokens: { input: e.tokens.input, output: e.tokens.output },
    durationMs: e.durationMs,
    acceptedAt: e.acceptedAt
  };
  if (e.observed !== void 0 && e.observed.length > 0) entry.observed = [...e.observed];
  return entry;
}
function entryJson(e) {
  const c = e.components;
  if (typeof c !== "string") return JSON.stringify(orderedEntry(e));
  return JSON.stringify(orderedEntry({ ...e, components: {} })).replace('"components":{}', () => `"components":${c}`);
}
function serializeLock(lock) {
  const ids = Object.keys(lock.pairs).sort();
  const entries = ids.map((id) => `    ${JSON.stringify(id)}: ${entryJson(lock.pairs[id])}
`);
  return `{
  "version": ${LOCK_VERSION},
  "workflow": ${JSON.stringify(lock.workflow)},
  "pairs": {
` + entries.join("    ,\n") + "  }\n}\n";
}
function writeLock(file, lock) {
  writeFileAtomic(file, serializeLock(lock));
}

// src/lockfile/lockfile.ts
import { existsSync } from "node:fs";

// src/lockfile/read.ts
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
var MAX_LOCK_BYTES = 64 * 1024 * 1024;
var FIX = "restore it from version control, or delete it to plan every pair as new";
function readLockText(file, display) {
  const refuse = (message) => new ConfigError([{ file: display, line: 1, column: 1, key: "", message }]);
  const check = (stat) => {
    if (!stat.isFile()) throw refuse(`the lock file is not a regular file (a directory, a pipe or a device); remove it, and pairflow writes a new one`);
    if (stat.size > MAX_LOCK_BYTES) throw refuse(`the lock file is ${stat.size} bytes, more than any lock file pairflow writes; ${FIX}`);
  };
  check(statSync(file));
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    check(stat);
    const buffer = Buffer.alloc(Number(stat.size));
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0; ) length += n;
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
function parseLock(text, display) {
  const cut = componentsCut(text);
  if (cut !== void 0) {
    try {
      const value2 = JSON.parse(cut.text);
      if (putComponentsBack(value2, cut.components)) return checked(value2, text, display, true);
    } catch {
    }
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const offset = /position (\d+)/.exec(err.message)?.[1];
    const before = text.slice(0, Number(offset ?? 0)).split("\n");
    throw new ConfigError([
      {
        file: display,
        line: offset === void 0 ? 1 : before.length,
        column: offset === void 0 ? 1 : before[before.length - 1].length + 1,
        key: "",
        message: `the lock file is not valid JSON (a merge conflict left in it?); ${FIX}`
      }
    ]);
  }
  return checked(value, text, display, false);
}
var STRING = String.raw`"[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*"`;
var FLAT_MAPPING = new RegExp(String.raw`^\{(?:${STRING}:${STRING}(?:,${STRING}:${STRING})*)?\}$`);
var KEY = '"components"';
function componentsCut(text) {
  const pieces = [];
  const components = [];
  let kept = 0;
  for (let at = text.indexOf(KEY); at !== -1; at = text.indexOf(KEY, kept)) {
    const open = at + KEY.length + 1;
    if (text.charCodeAt(at - 1) !== 44 || text.charCodeAt(open - 1) !== 58 || text.charCodeAt(open) !== 123) return void 0;
    const close = text.indexOf("}", open);
    if (close === -1) return void 0;
    const mapping = text.slice(open, close + 1);
    if (!FLAT_MAPPING.test(mapping)) return void 0;
    pieces.push(text.slice(kept, open), String(components.length));
    components.push(mapping);
    kept = close + 1;
  }
  if (components.length === 0) return void 0;
  pieces.push(text.slice(kept));
  return { text: pieces.join(""), components };
}
function putComponentsBack(value, components) {
  if (!isObject(value) || !isObject(value.pairs)) return false;
  const used = new Uint8Array(components.length);
  let found = 0;
  for (const entry of Object.values(value.pairs)) {
    if (!isObject(entry) || typeof entry.components !== "number") continue;
    const n = entry.components;
    if (used[n] !== 0) return false;
    used[n] = 1;
    found += 1;
    entry.components = components[n];
  }
  return found === components.length;
}
function checked(value, text, display, cut) {
  const problems = [];
  if (!isObject(value) || value.version !== LOCK_VERSION) {
    problems.push({ path: isObject(value) ? ["version"] : [], message: `not a pairflow lock file of version ${LOCK_VERSION}; ${FIX}` });
  } else {
    if (typeof value.workflow !== "string") problems.push({ path: ["workflow"], message: `"workflow" must be the workflow's name; ${FIX}` });
    if (!isObject(value.pairs)) problems.push({ path: ["pairs"], message: `"pairs" must be a mapping of pair ids to entries; ${FIX}` });
    else {
      for (const [id, entry] of Object.entries(value.pairs)) {
        const wrong = entryProblem(entry, cut);
        if (wrong) problems.push({ path: ["pairs", id, ...wrong.at], message: `the entry of pair "${id}" ${wrong.what}; ${FIX}` });
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(positioned(text, display, problems));
  asDict(value.pairs);
  return value;
}
var ENTRY_FIELDS = [
  ["configRef", isHash, "a sha256 hex digest"],
  ["contentHash", isHash, "a sha256 hex digest"],
  ["source", (v) => v === "generated" || v === "human", '"generated" or "human"'],
  ["model", (v) => v === null || typeof v === "string", "a model name or null"],
  ["components", (v) => isObject(v) && Object.values(v).every((d) => typeof d === "string"), "a mapping of names to digests"],
  ["attempts", (v) => Number.isInteger(v) && v >= 0, "a whole number"],
  ["tokens", (v) => isObject(v) && isCount(v.input) && isCount(v.output), "a mapping with input and output token counts"],
  ["durationMs", isCount, "a number of milliseconds"],
  ["acceptedAt", (v) => typeof v === "string", "a time"]
];
function entryProblem(entry, cut) {
  if (!isObject(entry)) return { at: [], what: `is ${entry === null ? "null" : Array.isArray(entry) ? "a list" : typeof entry}, not a mapping` };
  for (const [key, ok, expected] of ENTRY_FIELDS) {
    if (!Object.hasOwn(entry, key)) return { at: [], what: `has no "${key}"` };
    if (cut && key === "components" && typeof entry[key] === "string") continue;
    if (!ok(entry[key])) return { at: [key], what: `has a "${key}" that is not ${expected}` };
  }
  if (Object.hasOwn(entry, "observed") && !isPathList(entry.observed)) return { at: ["observed"], what: 'has an "observed" that is not a list of file paths' };
  return void 0;
}
function positioned(text, display, problems) {
  const places = jsonPositions(
    text,
    problems.map((p) => p.path)
  );
  return problems.map(({ path, message }, i) => ({ file: display, line: places[i][0], column: places[i][1], key: path.join("."), message }));
}
function jsonPositions(text, paths) {
  const root = { children: /* @__PURE__ */ new Map(), offset: -1 };
  for (const path of paths) {
    let node = root;
    for (const key of path) {
      let child = node.children.get(String(key));
      if (child === void 0) node.children.set(String(key), child = { children: /* @__PURE__ */ new Map(), offset: -1 });
      node = child;
    }
  }
  let i = 0;
  const space = () => {
    while (isSpace(text.charCodeAt(i))) i++;
  };
  const string = () => {
    const start = ++i;
    for (let c = text.charCodeAt(i); c !== 34 && i < text.length; c = text.charCodeAt(i)) i += c === 92 ? 2 : 1;
    return text.slice(start, i++);
  };
  const skip = () => {
    const c = text.charCodeAt(i);
    if (c === 34) string();
    else if (c !== 123 && c !== 91) while (!isSpace(text.charCodeAt(i)) && !isEnd(text.charCodeAt(i))) i++;
    else {
      let depth = 0;
      do {
        const d = text.charCodeAt(i);
        if (d === 34) string();
        else {
          if (d === 123 || d === 91) depth++;
          else if (d === 125 || d === 93) depth--;
          i++;
        }
      } while (depth > 0 && i < text.length);
    }
  };
  const value = (wanted) => {
    space();
    if (wanted === void 0 || wanted.children.size === 0) {
      if (wanted !== void 0) wanted.offset = i;
      skip();
      return;
    }
    wanted.offset = i;
    const open = text.charCodeAt(i++);
    if (open !== 123 && open !== 91) {
      i--;
      skip();
      return;
    }
    const close = open === 123 ? 125 : 93;
    for (let index = 0; i < text.length; index++) {
      space();
      if (text.charCodeAt(i) === close) break;
      let key = String(index);
      if (open === 123) {
        const raw = string();
        key = raw.includes("\\") ? JSON.parse(`"${raw}"`) : raw;
        space();
        i++;
      }
      value(wanted.children.get(key));
      space();
      if (text.charCodeAt(i) === 44) i++;
    }
    i++;
  };
  value(root);
  const lineStarts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lineStarts.push(at + 1);
  const place = (offset) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = lo + hi + 1 >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return [lo + 1, offset - lineStarts[lo] + 1];
  };
  return paths.map((path) => {
    let node = root;
    let offset = Math.max(root.offset, 0);
    for (const key of path) {
      const child = node.children.get(String(key));
      if (child.offset === -1) break;
      node = child;
      offset = child.offset;
    }
    return place(offset);
  });
}
function isSpace(c) {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
function isEnd(c) {
  return c === 44 || c === 93 || c === 125 || Number.isNaN(c);
}
function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
function isPathList(v) {
  return Array.isArray(v) && v.every((f) => typeof f === "string" && f !== "");
}
function isHash(v) {
  return typeof v === "string" && /^[0-9a-f]{64}$/.test(v);
}
function isCount(v) {
  return typeof v === "number" && Number.isFinite(v) && v >= 0;
}

// src/lockfile/lockfile.ts
function lockPathFor(workflowPath) {
  return lockFileOf(workflowPath);
}
function readLock(file, display = file) {
  if (!existsSync(file)) return null;
  return parseLock(readLockText(file, display), display);
}

export {
  isPathList,
  orderedEntry,
  entryJson,
  writeLock,
  lockPathFor,
  readLock
};
