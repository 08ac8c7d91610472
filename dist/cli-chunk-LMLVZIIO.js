#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  BatchPendingError,
  DEFAULT_CONCURRENCY,
  GeneratorError,
  GuardConfigError,
  GuardError,
  RateLimitWaitError,
  acquireRunLock,
  currentHolder,
  executePlan,
  limiter,
  lockPath,
  newRunId
} from "./cli-chunk-74NRXERS.js";
import {
  mark
} from "./cli-chunk-VWCPAHPU.js";
import {
  checkWorkflow
} from "./cli-chunk-4JJEQPFB.js";
import {
  eventLine,
  runSummary
} from "./cli-chunk-AM42MMQN.js";
import {
  RunRecorder,
  estimateOf,
  inFlightGroups,
  latestRunOf,
  listRunIds,
  outcomesFromTrace,
  planOpened,
  readRun,
  resumeState,
  runState
} from "./cli-chunk-3N45G7H4.js";
import {
  BatchFile,
  LocalStore,
  LockWriter,
  boundedKey,
  checkedStateDir,
  foldJournal,
  openState
} from "./cli-chunk-TPNKQGFG.js";
import {
  lockPathFor
} from "./cli-chunk-LAOPAIVL.js";
import {
  styleFor
} from "./cli-chunk-TNYNDC55.js";
import {
  CHARS_PER_TOKEN,
  CHAT_OVERHEAD_TOKENS,
  asksBeforeRunning,
  cacheMinTokens,
  callsModel,
  costOf,
  countTokens,
  decider,
  planWorkflow,
  priceFor,
  providerEndpoint,
  usd,
  withDependencies,
  workflowRef
} from "./cli-chunk-YKULHKX5.js";
import {
  nameFor
} from "./cli-chunk-FEFDJVE6.js";
import {
  lockEntry
} from "./cli-chunk-7NHSQKXA.js";
import {
  ASSEMBLE,
  ConfigError,
  EXIT,
  Option,
  PATH_HELP,
  RunDeclinedError,
  StorageError,
  UsageError,
  WRITE_FAILURES,
  WriteError,
  assemble,
  dict,
  didYouMean,
  diskFiles,
  displayPath,
  examples,
  findRepoRoot,
  formatBytes,
  isInside,
  isUtf8Name,
  loadWorkflow,
  nameBytes,
  nameText,
  outputPath,
  ownWrite,
  plain,
  positiveInt,
  readFileNoFollow,
  recoverStaged,
  removeStaleTemporaries,
  require_dist,
  resolveWorkflowPath,
  sha256Hex,
  stateDirOption,
  terminalColumns,
  writeFileAtomic
} from "./cli-chunk-BXCSBTXN.js";
import {
  __toESM
} from "./cli-chunk-FRV2UMY2.js";

// src/plan/shards.ts
function parseShard(text) {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count3 = Number(m?.[2]);
  if (!m || count3 < 1 || index < 1 || index > count3) throw new UsageError(`--shard ${text}: expected I/N with 1 <= I <= N, e.g. --shard 2/3`);
  return { index, count: count3 };
}
var SLACK = 1.15;
function shardPlan(plan, count3, weigh) {
  if (!Number.isInteger(count3) || count3 < 1) throw new UsageError(`--shards ${count3}: expected a whole number of at least 1`);
  const running = plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
  const weight = new Map(running.map((id) => [id, Math.max(weigh(id), 1e-9)]));
  const total = running.reduce((sum, id) => sum + weight.get(id), 0);
  const share = total / count3 * SLACK;
  const loads = Array(count3).fill(0);
  const owner = /* @__PURE__ */ new Map();
  for (const id of running) {
    const w = weight.get(id);
    const pull = Array(count3).fill(0);
    for (const dep of plan.byId.get(id).requires) {
      const s = owner.get(dep);
      if (s !== void 0) pull[s] = pull[s] + weight.get(dep);
    }
    let best = -1;
    for (let s = 0; s < count3; s++) if (pull[s] > 0 && loads[s] + w <= share && (best < 0 || pull[s] > pull[best])) best = s;
    if (best < 0) best = lightest(loads);
    owner.set(id, best);
    loads[best] = loads[best] + w;
  }
  const shards = loads.map((load, s) => ({ index: s + 1, count: count3, pairs: [], weight: load, awaits: dict() }));
  for (const id of running) {
    const shard = shards[owner.get(id)];
    shard.pairs.push(id);
    for (const dep of plan.byId.get(id).requires) {
      const s = owner.get(dep);
      if (s !== void 0 && s !== owner.get(id)) shard.awaits[dep] = s + 1;
    }
  }
  return shards.filter((s) => s.pairs.length > 0);
}
function lightest(loads) {
  let best = 0;
  for (let s = 1; s < loads.length; s++) if (loads[s] < loads[best]) best = s;
  return best;
}
function owners(shards) {
  const map = /* @__PURE__ */ new Map();
  for (const s of shards) for (const id of s.pairs) map.set(id, { index: s.index, count: s.count });
  return map;
}
function matrixOf(shards, fanout) {
  return { include: shards.map((s) => ({ shard: `${s.index}/${s.count}`, ...fanout !== void 0 ? { fanout } : {} })) };
}

// src/app/shard.ts
import path11 from "node:path";

// src/store/shared.ts
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
var POLL_MS = 200;
var PULL_EVERY_MS = 1e4;
var SharedStore = class {
  constructor(dir, fanout, since = 0, attempt) {
    this.dir = dir;
    this.fanout = fanout;
    this.since = since;
    this.attempt = attempt;
    this.store = new LocalStore(path.join(dir, "store"), { shared: true });
  }
  dir;
  fanout;
  since;
  attempt;
  store;
  resultPath(shard) {
    return path.join(this.dir, "shards", safeName(this.fanout), `${shard.index}of${shard.count}.json`);
  }
  /** A shard starting again forgets what it reported before, so nobody reads an old ending as this one's. */
  started(shard) {
    rmSync(this.resultPath(shard), { force: true });
  }
  finished(result) {
    writeFileAtomic(this.resultPath(result), JSON.stringify(result, null, 2) + "\n");
  }
  result(shard) {
    const file = this.resultPath(shard);
    if (!existsSync(file)) return void 0;
    try {
      const value = JSON.parse(readFileSync(file, "utf8"));
      const current = Date.parse(value.endedAt) >= this.since && (this.attempt === void 0 || value.attempt === this.attempt);
      return value.version === 1 && Array.isArray(value.outcomes) && current ? value : void 0;
    } catch {
      return void 0;
    }
  }
  /** Every shard result of this fan-out. */
  results() {
    const dir = path.join(this.dir, "shards", safeName(this.fanout));
    if (!existsSync(dir)) return [];
    return readdirSync(dir).map((name) => /^(\d+)of(\d+)\.json$/.exec(name)).flatMap((m) => m ? [this.result({ index: Number(m[1]), count: Number(m[2]) })].filter((r) => r !== void 0) : []);
  }
  outboxDir(shard) {
    return path.join(this.dir, "outbox", `${shard.index}of${shard.count}`);
  }
  /**
   * Writes this shard's outbox: every record it accepted, the content they name, and its report
   * when it has one. Written whole each time, so the newest copy is all another machine needs.
   */
  writeOutbox(shard, records, result) {
    const dir = this.outboxDir(shard);
    for (const r of records) {
      const content = this.store.content(r.contentHash);
      const file = path.join(dir, "objects", r.contentHash);
      if (content && !existsSync(file)) writeFileAtomic(file, content);
    }
    writeFileAtomic(path.join(dir, "records.json"), JSON.stringify(records) + "\n");
    if (result) writeFileAtomic(path.join(dir, "result.json"), JSON.stringify(result) + "\n");
  }
  splitDir() {
    return path.join(this.dir, "split", safeName(this.fanout));
  }
  /** Pins the split of this fan-out. */
  writeSplit(split) {
    writeFileAtomic(path.join(this.splitDir(), "split.json"), JSON.stringify(split) + "\n");
  }
  /** The split pinned for this fan-out, if one is here and well-formed. */
  readSplit() {
    const split = readJson(path.join(this.splitDir(), "split.json"));
    const wellFormed = (s) => Number.isInteger(s?.index) && s.count === split.count && Array.isArray(s.pairs) && s.pairs.every((p) => typeof p === "string");
    if (split?.version !== 1 || split.fanout !== this.fanout || typeof split.workflowRef !== "string" || !Number.isInteger(split.count)) return void 0;
    return Array.isArray(split.shards) && split.shards.every(wellFormed) ? split : void 0;
  }
  /**
   * Takes in shard `owner`'s outbox as another machine published it: content checked against its
   * hash, records only with their content. Returns the accepted records it took in.
   */
  readOutbox(owner) {
    const dir = this.outboxDir(owner);
    const records = readJson(path.join(dir, "records.json"));
    const taken = [];
    if (Array.isArray(records)) {
      for (const r of records) {
        if (r?.status !== "accepted" || typeof r.contentHash !== "string" || !/^[0-9a-f]{64}$/.test(r.contentHash)) continue;
        const file = path.join(dir, "objects", r.contentHash);
        if (!existsSync(file)) continue;
        let content;
        try {
          content = readFileNoFollow(file);
        } catch {
          continue;
        }
        if (sha256Hex(content) !== r.contentHash) continue;
        this.store.putContent(content);
        this.store.putRecord(r);
        taken.push(r);
      }
    }
    const result = readJson(path.join(dir, "result.json"));
    if (result?.version === 1 && result.index === owner.index && result.count === owner.count && Array.isArray(result.outcomes)) {
      mkdirSync(path.dirname(this.resultPath(owner)), { recursive: true });
      writeFileAtomic(this.resultPath(owner), JSON.stringify(result) + "\n");
    }
    return taken;
  }
  /** The accepted artifact of (pair, configRef), verified, once it is here. */
  accepted(pair, configRef) {
    const store = new LocalStore(this.store.dir, { shared: true });
    const record = store.record(pair, configRef);
    if (record?.status !== "accepted" || !record.contentHash) return void 0;
    const content = store.content(record.contentHash);
    return content && { record, content };
  }
  /**
   * Waits for the shard that owns a pair to accept it under this reference. Ends with the reason it
   * will not come when that shard ended without it, the wait ran out, or the signal aborted.
   */
  async await(pair, configRef, owner, timeoutMs, signal, sync) {
    const by = `shard ${owner.index}/${owner.count}`;
    const deadline = Date.now() + timeoutMs;
    let pulled = 0;
    for (; ; ) {
      if (sync && Date.now() - pulled >= sync.everyMs) {
        pulled = Date.now();
        await sync.pull(owner);
        this.readOutbox(owner);
      }
      const got = this.accepted(pair, configRef);
      if (got) return { content: got.content, contentHash: got.record.contentHash, note: `executed by ${by}` };
      const ended = this.result(owner);
      if (ended) {
        const outcome = ended.outcomes.find((o) => o.id === pair);
        const why = outcome ? `${outcome.status}${outcome.note ? `: ${outcome.note}` : ""}` : "it did not reach it";
        return { missing: `${by} ended without accepting it (${why})` };
      }
      if (signal.aborted) return { missing: "not received: the run was interrupted" };
      if (Date.now() >= deadline) return { missing: `${by} did not deliver it within ${Math.round(timeoutMs / 1e3)} s` };
      await sleep(POLL_MS, signal);
    }
  }
};
var ShardStore = class {
  constructor(base, shared) {
    this.base = base;
    this.shared = shared;
  }
  base;
  shared;
  /** The accepted records this shard wrote, in order: its outbox. */
  written = [];
  record(pair, configRef) {
    const a = this.base.record(pair, configRef);
    if (a?.status === "accepted") return a;
    return this.shared.record(pair, configRef) ?? a;
  }
  content(hash) {
    return this.base.content(hash) ?? this.shared.content(hash);
  }
  requests(key) {
    const shared = this.shared.requests(key);
    return [...shared, ...this.base.requests(key).filter((e) => !shared.some((s) => s.contentHash === e.contentHash))];
  }
  putRequest(key, entry) {
    this.shared.putRequest(key, entry);
  }
  hasContent(hash) {
    return this.base.hasContent(hash) || this.shared.hasContent(hash);
  }
  generatedHashes(pair) {
    return /* @__PURE__ */ new Set([...this.base.generatedHashes(pair), ...this.shared.generatedHashes(pair)]);
  }
  putContent(data) {
    return this.shared.putContent(data);
  }
  putRecord(record) {
    this.shared.putRecord(record);
    if (record.status === "accepted" && record.source !== "human") this.written.push(record);
  }
};
function readJson(file) {
  try {
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : void 0;
  } catch {
    return void 0;
  }
}
function safeName(name) {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100) || "local";
}
function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

// src/workspace/scratch.ts
import { mkdirSync as mkdirSync2, mkdtempSync, rmSync as rmSync2, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path2 from "node:path";
function scratchDir() {
  let dir;
  return {
    file(name, content) {
      dir ??= mkdtempSync(path2.join(tmpdir(), "pairflow-run-"));
      const file = path2.join(dir, name);
      mkdirSync2(path2.dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    dispose() {
      if (dir !== void 0) rmSync2(dir, { recursive: true, force: true });
    }
  };
}
function removeInBackground(dir) {
  pending.add(dir);
  if (pending.size === 1 && !exitHook) {
    exitHook = true;
    process.on("exit", () => {
      for (const left of pending) rmSync2(left, { recursive: true, force: true });
    });
  }
  void rm(dir, { recursive: true, force: true }).catch(() => rmSync2(dir, { recursive: true, force: true })).finally(() => pending.delete(dir));
}
var pending = /* @__PURE__ */ new Set();
var exitHook = false;

// src/app/environment.ts
import { constants as constants2, gunzipSync } from "node:zlib";

// src/generators/http.ts
import { randomBytes } from "node:crypto";
import { request as httpRequest, validateHeaderName, validateHeaderValue } from "node:http";
import { request as httpsRequest } from "node:https";
import { setTimeout as sleep2 } from "node:timers/promises";

// src/schedule/clock.ts
var MAX_TIMER_MS = 2 ** 31 - 1;
var systemClock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    return () => clearTimeout(timer);
  }
};

// src/schedule/headers.ts
var DIMENSIONS = ["requests", "tokens", "input", "output"];
var OPENAI = { requests: "requests", tokens: "tokens" };
var ANTHROPIC = { requests: "requests", tokens: "tokens", input: "input-tokens", output: "output-tokens" };
function readRateHeaders(header, now) {
  const readings = {};
  for (const dimension of Object.keys(ANTHROPIC)) {
    const openai = OPENAI[dimension];
    const reading = read(
      header(`anthropic-ratelimit-${ANTHROPIC[dimension]}-limit`),
      header(`anthropic-ratelimit-${ANTHROPIC[dimension]}-remaining`),
      header(`anthropic-ratelimit-${ANTHROPIC[dimension]}-reset`),
      now
    ) ?? (openai === void 0 ? void 0 : read(header(`x-ratelimit-limit-${openai}`), header(`x-ratelimit-remaining-${openai}`), header(`x-ratelimit-reset-${openai}`), now));
    if (reading) readings[dimension] = reading;
  }
  const retryAfterMs = count(header("retry-after-ms")) ?? retryAfter(header("retry-after"), now);
  return retryAfterMs === void 0 ? { readings } : { readings, retryAfterMs };
}
function read(limit, remaining, reset, now) {
  const left = count(remaining);
  if (left === void 0) return void 0;
  const reading = { remaining: left };
  const size = count(limit);
  if (size !== void 0) reading.limit = size;
  const resetMs = reset === null ? void 0 : duration(reset) ?? until(reset, now);
  if (resetMs !== void 0) reading.resetMs = resetMs;
  return reading;
}
function count(text) {
  if (text === null || !/^\s*\d+(\.\d+)?\s*$/.test(text)) return void 0;
  return Number(text);
}
var UNIT_MS = { h: 36e5, m: 6e4, s: 1e3, ms: 1 };
function duration(text) {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1e3;
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(trimmed)) return void 0;
  let total = 0;
  for (const m of trimmed.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) total += Number(m[1]) * UNIT_MS[m[2]];
  return total;
}
function until(text, now) {
  if (!/^\d{4}-\d\d-\d\dT/.test(text.trim())) return void 0;
  const at = Date.parse(text.trim());
  return Number.isNaN(at) ? void 0 : Math.max(0, at - now);
}
function retryAfter(text, now) {
  if (text === null) return void 0;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1e3;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? void 0 : Math.max(0, at - now);
}

// src/schedule/pacer.ts
var MINUTE_MS = 6e4;
var FIRST_BACKOFF_MS = 1e3;
var MAX_BACKOFF_MS = 6e4;
var Pacer = class {
  constructor(options) {
    this.options = options;
  }
  options;
  budgets = /* @__PURE__ */ new Map();
  stats = { calls: 0, held: 0, waitedMs: 0, refused: 0 };
  turn(budget, cost, signal, shared) {
    let b = this.budgets.get(budget.id);
    if (!b) {
      const given = this.options.limits;
      const limits = { ...budget.limits };
      if (given?.requestsPerMinute !== void 0) limits.requestsPerMinute = given.requestsPerMinute;
      if (given?.tokensPerMinute !== void 0) limits.tokensPerMinute = given.tokensPerMinute;
      b = new Budget(this, budget.host, limits);
      this.budgets.set(budget.id, b);
    }
    return b.turn(cost, signal, shared);
  }
  /** Calls held for their budget now. */
  waiting() {
    let n = 0;
    for (const b of this.budgets.values()) n += b.holding();
    return n;
  }
  /** What pacing did so far. */
  summary() {
    const now = this.options.clock.now();
    let waitedMs = this.stats.waitedMs;
    for (const b of this.budgets.values()) waitedMs += b.heldFor(now);
    return { ...this.stats, waitedMs, budgets: [...this.budgets.values()].map((b) => b.limits()) };
  }
};
var Budget = class {
  constructor(pacer, host, configured) {
    this.pacer = pacer;
    this.host = host;
    const { options } = pacer;
    this.share = options.share ?? 1;
    this.minuteMs = options.minuteMs ?? MINUTE_MS;
    this.cap = Math.max(1, options.concurrency?.cap ?? Number.POSITIVE_INFINITY);
    this.window = Math.min(this.cap, Math.max(1, options.concurrency?.start ?? this.cap));
    const now = options.clock.now();
    const full = (perMinute) => {
      const capacity = perMinute * this.share;
      return { capacity, rate: capacity / this.minuteMs, level: capacity, at: now, applied: -1, told: false };
    };
    if (configured.requestsPerMinute !== void 0) this.buckets.set("requests", full(configured.requestsPerMinute));
    if (configured.tokensPerMinute !== void 0) this.buckets.set("tokens", full(configured.tokensPerMinute));
  }
  pacer;
  host;
  buckets = /* @__PURE__ */ new Map();
  /** Calls sent and not yet answered, by sequence number, with their costs. */
  inFlight = /* @__PURE__ */ new Map();
  queue = [];
  /** Beginnings calls share, for the provider's prompt cache: being written by a first call, or written. */
  beginnings = /* @__PURE__ */ new Map();
  seq = 0;
  blockedUntil = 0;
  refusedInARow = 0;
  window;
  cap;
  refusedOnce = false;
  cancelTimer;
  /** Since when the first call in line has been held for the budget. */
  heldSince;
  share;
  minuteMs;
  turn(rateCost, signal, shared) {
    const cost = { requests: 1, tokens: rateCost.input + rateCost.output, input: rateCost.input, output: rateCost.output };
    const { clock, maxWaitMs } = this.pacer.options;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new GeneratorError("cancelled"));
      const leave = (error) => {
        const at = this.queue.indexOf(waiter);
        if (at < 0) return;
        this.queue.splice(at, 1);
        waiter.dispose();
        if (at === 0) this.heldUntil(clock.now());
        reject(error);
        this.pump();
      };
      const onAbort = () => leave(new GeneratorError("cancelled"));
      signal.addEventListener("abort", onAbort, { once: true });
      const cancelDeadline = maxWaitMs === void 0 ? void 0 : clock.setTimer(
        () => leave(
          new RateLimitWaitError(`waited ${seconds(maxWaitMs)} for ${this.host}'s rate limit, the longest a call may wait; the pair is interrupted`)
        ),
        maxWaitMs
      );
      const waiter = {
        cost,
        shared,
        resolve,
        reject,
        held: false,
        dispose: () => {
          signal.removeEventListener("abort", onAbort);
          cancelDeadline?.();
        }
      };
      this.queue.push(waiter);
      this.pump();
    });
  }
  /** Lets the first calls in line go while the budget allows; else sets a timer for when it will. */
  pump() {
    this.cancelTimer?.();
    this.cancelTimer = void 0;
    const { clock } = this.pacer.options;
    while (this.queue.length > 0) {
      const now = clock.now();
      if (this.inFlight.size >= Math.floor(this.window)) return this.heldUntil(now);
      const at = this.queue.findIndex((w) => w.shared === void 0 || this.beginnings.get(w.shared) !== "writing");
      if (at < 0) return this.heldUntil(now);
      const head = this.queue[at];
      const wait = Math.max(this.blockedUntil - now, this.budgetWait(head.cost, now));
      if (wait > 0) {
        head.held = true;
        this.heldSince ??= now;
        this.cancelTimer = clock.setTimer(() => this.pump(), Math.ceil(wait));
        return;
      }
      this.queue.splice(at, 1);
      this.heldUntil(now);
      head.dispose();
      head.resolve(this.admit(head, now));
    }
  }
  /** Adds the time the first call in line was held, up to `now`. */
  heldUntil(now) {
    if (this.heldSince === void 0) return;
    this.pacer.stats.waitedMs += now - this.heldSince;
    this.heldSince = void 0;
  }
  /** Calls in line while the first of them is held for the budget. */
  holding() {
    return this.heldSince === void 0 ? 0 : this.queue.length;
  }
  heldFor(now) {
    return this.heldSince === void 0 ? 0 : now - this.heldSince;
  }
  /** How long until every bucket holds `cost` (a cost larger than a bucket waits for it to be full). */
  budgetWait(cost, now) {
    let wait = 0;
    for (const [dimension, bucket] of this.buckets) {
      const capacity = bucket.capacity ?? Number.POSITIVE_INFINITY;
      const need = Math.min(cost[dimension], capacity);
      const short = need - this.level(bucket, now, dimension);
      if (short <= 0) continue;
      const refill = capacity - this.pending(dimension) >= need && bucket.rate > 0;
      wait = Math.max(wait, refill ? short / bucket.rate : FIRST_BACKOFF_MS);
    }
    return wait;
  }
  /**
   * What a bucket holds at `now`, refilled since its level was set, and never more than its size less
   * the calls in flight: a call reaches the provider a while after it went, and a bucket that was
   * full meanwhile did not refill.
   */
  level(bucket, now, dimension) {
    const refilled = bucket.level + bucket.rate * Math.max(0, now - bucket.at);
    return Math.min((bucket.capacity ?? Number.POSITIVE_INFINITY) - this.pending(dimension), refilled);
  }
  /** What the calls in flight cost. */
  pending(dimension) {
    let sum = 0;
    for (const cost of this.inFlight.values()) sum += cost[dimension];
    return sum;
  }
  /**
   * Gives the call its turn at `now`. Times the provider gives as dates (Anthropic's resets) are read
   * from then: the provider wrote them somewhere between the call's going and its answer, and
   * counting from the earlier time never makes a bucket refill faster than it does.
   */
  admit(waiter, now) {
    const seq = this.seq++;
    for (const [dimension, bucket] of this.buckets) {
      bucket.level = this.level(bucket, now, dimension) - waiter.cost[dimension];
      bucket.at = now;
    }
    this.inFlight.set(seq, waiter.cost);
    const writes = waiter.shared !== void 0 && !this.beginnings.has(waiter.shared);
    if (writes) this.beginnings.set(waiter.shared, "writing");
    const written = (done2) => {
      if (!writes) return;
      if (done2) this.beginnings.set(waiter.shared, "written");
      else this.beginnings.delete(waiter.shared);
    };
    const stats = this.pacer.stats;
    stats.calls++;
    if (waiter.held) stats.held++;
    let done = false;
    const end = (how) => {
      if (done) return;
      done = true;
      how();
      this.pump();
    };
    return {
      answered: (header) => end(() => {
        this.observe(seq, readRateHeaders(header, now), waiter.cost);
        this.inFlight.delete(seq);
        written(true);
        this.refusedInARow = 0;
        this.window = Math.min(this.cap, this.window + (this.refusedOnce ? 1 / this.window : 1));
      }),
      limited: (header) => end(() => {
        const told = readRateHeaders(header, now);
        const answeredAt = this.pacer.options.clock.now();
        const cost = this.inFlight.get(seq);
        this.inFlight.delete(seq);
        written(false);
        for (const [dimension, bucket] of this.buckets) bucket.level += cost[dimension];
        this.observe(seq, told);
        stats.refused++;
        this.refusedOnce = true;
        this.window = Math.max(1, this.window / 2);
        const wait = told.retryAfterMs ?? this.resetWait(told, cost) ?? Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** this.refusedInARow);
        this.refusedInARow++;
        this.blockedUntil = Math.max(this.blockedUntil, answeredAt + wait);
      }),
      failed: () => end(() => {
        this.inFlight.delete(seq);
        written(false);
      })
    };
  }
  /** Without a retry time: when the buckets the call did not fit in are full again, as far as the provider said. */
  resetWait(told, cost) {
    let wait;
    for (const dimension of DIMENSIONS) {
      const reading = told.readings[dimension];
      if (reading?.resetMs !== void 0 && reading.remaining < cost[dimension]) wait = Math.max(wait ?? 0, reading.resetMs);
    }
    return wait;
  }
  /** Takes what an answer to call `seq` says is left; `counted`: what the provider counted of the call. */
  observe(seq, told, counted) {
    const now = this.pacer.options.clock.now();
    for (const dimension of DIMENSIONS) {
      const reading = told.readings[dimension];
      if (!reading) continue;
      let bucket = this.buckets.get(dimension);
      if (!bucket || !bucket.told) {
        bucket = { capacity: void 0, rate: 0, level: 0, at: now, applied: -1, told: true };
        this.buckets.set(dimension, bucket);
      }
      const { limit, remaining, resetMs } = reading;
      bucket.capacity = limit !== void 0 ? limit * this.share : Math.max(bucket.capacity ?? 0, remaining * this.share);
      if (limit !== void 0 && resetMs !== void 0 && resetMs > 0 && limit - remaining >= Math.max(1, limit / 20)) {
        bucket.rate = (limit - remaining) * this.share / resetMs;
      } else if (bucket.rate === 0) {
        bucket.rate = bucket.capacity / MINUTE_MS;
      }
      let uncounted = 0;
      for (const [other, cost] of this.inFlight) if (other !== seq) uncounted += cost[dimension];
      const said = remaining * this.share - uncounted;
      if (seq > bucket.applied) {
        bucket.level = said;
        bucket.applied = seq;
      } else {
        bucket.level = Math.min(this.level(bucket, now, dimension) + (counted?.[dimension] ?? 0), said);
      }
      bucket.at = now;
    }
  }
  limits() {
    const perMinute = (dimension) => {
      const capacity = this.buckets.get(dimension)?.capacity;
      return capacity === void 0 ? void 0 : Math.round(capacity / this.share);
    };
    const requests = perMinute("requests");
    const tokens = perMinute("tokens") ?? perMinute("input");
    return {
      host: this.host,
      ...requests === void 0 ? {} : { requestsPerMinute: requests },
      ...tokens === void 0 ? {} : { tokensPerMinute: tokens }
    };
  }
};
function seconds(ms) {
  return ms % 1e3 === 0 ? `${ms / 1e3}s` : `${(ms / 1e3).toFixed(1)}s`;
}

// src/generators/http.ts
var RETRYABLE_STATUSES = /* @__PURE__ */ new Set([429, 500, 502, 503, 504, 529]);
var DEFAULT_BASE_DELAY_MS = 1e3;
var MAX_BACKOFF_MS2 = 3e4;
var MAX_RETRY_AFTER_MS = 6e4;
var MAX_MESSAGE_CHARS = 500;
var MAX_TIMER_MS2 = 2 ** 31 - 1;
function readProviderSettings(provider, request, defaults) {
  const { config, env } = request;
  const baseUrl = providerEndpoint(provider, configString(provider, config, "base_url"));
  const apiKeyEnv = configString(provider, config, "api_key_env") ?? defaults.apiKeyEnv;
  const apiKey = env[apiKeyEnv] || void 0;
  if (apiKey === void 0 && baseUrl === providerEndpoint(provider, void 0)) {
    throw new GeneratorError(
      `${provider}: set the ${apiKeyEnv} environment variable to your API key (or name another variable in generator_config.api_key_env)`
    );
  }
  const headers = config.headers ?? {};
  if (typeof headers !== "object" || headers === null || Array.isArray(headers) || !Object.values(headers).every((v) => typeof v === "string")) {
    throw new GeneratorError(`${provider}: generator_config.headers must map header names to strings`);
  }
  const backoff = Number(env.PAIRFLOW_HTTP_BACKOFF_MS);
  const rateLimit = readRateLimit(provider, config.rate_limit);
  return {
    baseUrl,
    apiKey,
    apiKeyEnv,
    headers,
    timeoutSeconds: configNumber(provider, config, "timeout", { min: 0, exclusive: true }) ?? 120,
    retries: configNumber(provider, config, "retries", { min: 0, integer: true }) ?? 4,
    baseDelayMs: env.PAIRFLOW_HTTP_BACKOFF_MS && backoff >= 0 ? backoff : DEFAULT_BASE_DELAY_MS,
    ...rateLimit === void 0 ? {} : { rateLimit }
  };
}
function readRateLimit(provider, value) {
  if (value === void 0 || value === null) return void 0;
  const wrong = () => new GeneratorError(`${provider}: generator_config.rate_limit must be {requests_per_minute, tokens_per_minute}, each a number > 0`);
  if (typeof value !== "object" || Array.isArray(value)) throw wrong();
  const limits = {};
  for (const [key, n] of Object.entries(value)) {
    if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) throw wrong();
    if (key === "requests_per_minute") limits.requestsPerMinute = n;
    else if (key === "tokens_per_minute") limits.tokensPerMinute = n;
    else throw wrong();
  }
  return limits;
}
function requestCost(prompt, model, maxTokens) {
  let input;
  try {
    input = countTokens(prompt, model).tokens;
  } catch {
    input = Math.ceil(prompt.length / CHARS_PER_TOKEN);
  }
  return { input: input + CHAT_OVERHEAD_TOKENS, output: maxTokens ?? 0 };
}
function sharedBeginning(prompt, prefix, model) {
  if (prefix === void 0 || prefix <= 0) return void 0;
  const head = prompt.slice(0, prefix);
  if (Math.ceil(head.length / CHARS_PER_TOKEN) < cacheMinTokens(model)) return void 0;
  return sha256Hex(`${model}
${head}`);
}
var processPacing;
function requireModel(provider, request) {
  if (request.model === null || request.model === "") {
    throw new GeneratorError(`${provider}: no model set; set "model" on pair ${request.pairId} or on the workflow`);
  }
  return request.model;
}
function configString(provider, config, key) {
  const value = config[key];
  if (value === void 0 || value === null) return void 0;
  if (typeof value !== "string" || value === "") {
    throw new GeneratorError(`${provider}: generator_config.${key} must be a non-empty string`);
  }
  return value;
}
function configNumber(provider, config, key, rules = {}) {
  const value = config[key];
  if (value === void 0 || value === null) return void 0;
  const ok = typeof value === "number" && Number.isFinite(value) && (!rules.integer || Number.isInteger(value)) && (rules.min === void 0 || (rules.exclusive ? value > rules.min : value >= rules.min));
  if (!ok) {
    const kind = rules.integer ? "an integer" : "a number";
    const bound = rules.min === void 0 ? "" : ` ${rules.exclusive ? ">" : ">="} ${rules.min}`;
    throw new GeneratorError(`${provider}: generator_config.${key} must be ${kind}${bound}`);
  }
  return value;
}
function sendCall(call, signal, pacing) {
  const url = new URL(call.url);
  const budget = {
    id: sha256Hex(`${url.origin}${url.pathname}
${call.model}
${call.settings.apiKey ?? ""}`),
    host: url.host,
    ...call.settings.rateLimit ? { limits: call.settings.rateLimit } : {}
  };
  return postJson({
    paced: { pacing: pacing ?? (processPacing ??= new Pacer({ clock: systemClock })), budget, cost: call.cost, shared: call.shared },
    provider: call.provider,
    url: call.url,
    headers: call.headers,
    body: call.body,
    timeoutSeconds: call.settings.timeoutSeconds,
    retries: call.settings.retries,
    signal,
    secrets: call.secrets,
    baseDelayMs: call.settings.baseDelayMs,
    authHint: call.authHint
  });
}
function postJson(options) {
  return httpCall({ ...options, method: "POST" });
}
function multipart(upload) {
  let boundary;
  do
    boundary = `pairflow-${randomBytes(16).toString("hex")}`;
  while (upload.file.content.includes(boundary) || Object.values(upload.fields).some((value) => value.includes(boundary)));
  const part = (disposition, type) => `--${boundary}\r
Content-Disposition: form-data; ${disposition}\r
${type ? `Content-Type: ${type}\r
` : ""}\r
`;
  const text = [
    ...Object.entries(upload.fields).map(([name, value]) => `${part(`name="${name}"`)}${value}\r
`),
    part(`name="${upload.file.field}"; filename="${upload.file.name}"`, upload.file.type)
  ].join("");
  return {
    type: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.concat([Buffer.from(text), Buffer.from(upload.file.content), Buffer.from(`\r
--${boundary}--\r
`)])
  };
}
async function httpCall(options) {
  const { provider, url, timeoutSeconds, retries, signal } = options;
  const fail = (reason) => new GeneratorError(redact(`${provider}: ${reason}`, options.secrets));
  let host;
  try {
    host = new URL(url).host;
  } catch {
    throw fail(`generator_config.base_url does not make a valid URL: ${url}`);
  }
  const headers = options.body !== void 0 ? { "content-type": "application/json" } : {};
  for (const [name, value] of Object.entries(options.headers)) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      throw fail(`header "${name}" has an invalid name or value`);
    }
    for (const known of Object.keys(headers)) if (known.toLowerCase() === name.toLowerCase()) delete headers[known];
    headers[name] = value;
  }
  let payload;
  if (options.form) {
    const encoded = multipart(options.form);
    headers["content-type"] = encoded.type;
    payload = encoded.body;
  } else if (options.body !== void 0) payload = Buffer.from(JSON.stringify(options.body));
  const paced = options.paced;
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw fail("cancelled");
    let turn;
    if (paced) {
      try {
        turn = await paced.pacing.turn(paced.budget, paced.cost, signal, paced.shared);
      } catch (error) {
        if (error instanceof RateLimitWaitError) throw new RateLimitWaitError(redact(`${provider}: ${error.message}`, options.secrets));
        throw fail("cancelled");
      }
    }
    const timeout = AbortSignal.timeout(Math.min(timeoutSeconds * 1e3, MAX_TIMER_MS2));
    let failure;
    let retryAfter2 = null;
    try {
      const response = await exchange(url, options.method, headers, payload, AbortSignal.any([signal, timeout]));
      const text = response.text;
      const header = (name) => response.header(name);
      const spent = response.status === 429 && quotaSpent(text);
      if (response.status === 429 && turn && !spent) {
        turn.limited(header);
        attempt--;
        continue;
      }
      turn?.answered(header);
      turn = void 0;
      if (response.ok) return options.as === "text" ? text : parseJson(text, fail, options.secrets);
      failure = `HTTP ${response.status}: ${providerMessage(text, response.statusText, options.secrets)}`;
      if (!RETRYABLE_STATUSES.has(response.status) || spent) {
        const hint = (response.status === 401 || response.status === 403) && options.authHint;
        throw fail(hint ? `${failure} (${hint})` : failure);
      }
      retryAfter2 = response.header("retry-after");
    } catch (error) {
      turn?.failed();
      if (error instanceof GeneratorError) throw error;
      if (signal.aborted) throw fail("cancelled");
      failure = timeout.aborted ? `timed out after ${timeoutSeconds}s` : `could not reach ${host}: ${networkReason(error)}`;
      if (options.retryUnanswered === false && !neverSent(error)) throw new UnansweredError(redact(`${provider}: ${failure}`, options.secrets));
    }
    if (attempt >= retries) {
      throw fail(retries > 0 ? `${failure} (gave up after ${attempt + 1} attempts)` : failure);
    }
    try {
      await sleep2(retryDelayMs(attempt, retryAfter2, options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS), void 0, {
        signal
      });
    } catch {
      throw fail("cancelled");
    }
  }
}
function exchange(url, method, headers, body, signal) {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : target.protocol === "http:" ? httpRequest : void 0;
  if (!send) return Promise.reject(new Error(`unsupported protocol ${target.protocol}`));
  const plain2 = { ...headers };
  if (body !== void 0) plain2["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = send(target, { method, headers: plain2, signal }, (res) => {
      const chunks2 = [];
      res.on("data", (chunk) => chunks2.push(chunk));
      res.on("error", reject);
      res.on("aborted", () => reject(new Error("the connection closed before the whole answer came")));
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        const all = res.headers;
        resolve({
          status,
          ok: status >= 200 && status < 300,
          statusText: res.statusMessage ?? "",
          header: (name) => {
            const value = all[name.toLowerCase()];
            return value === void 0 ? null : Array.isArray(value) ? value.join(", ") : value;
          },
          text: Buffer.concat(chunks2).toString("utf8")
        });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
function quotaSpent(text) {
  try {
    const body = JSON.parse(text);
    return field(body, "error", "code") === "insufficient_quota" || field(body, "error", "type") === "insufficient_quota";
  } catch {
    return false;
  }
}
var UnansweredError = class extends GeneratorError {
  name = "UnansweredError";
};
function retryDelayMs(attempt, retryAfterText, baseMs, now = Date.now()) {
  const asked = retryAfter(retryAfterText, now);
  if (asked !== void 0) return Math.min(asked, MAX_RETRY_AFTER_MS);
  const ceiling = Math.min(MAX_BACKOFF_MS2, baseMs * 2 ** attempt);
  return ceiling / 2 + Math.random() * ceiling / 2;
}
function parseJson(text, fail, secrets) {
  try {
    return JSON.parse(text);
  } catch {
    throw fail(`the response is not JSON: ${shownText(text.trim() || "(empty body)", secrets)}`);
  }
}
function providerMessage(text, statusText, secrets) {
  let message;
  try {
    const body = JSON.parse(text);
    message = field(body, "error", "message") ?? field(body, "error") ?? field(body, "message");
  } catch {
  }
  const shown = typeof message === "string" ? message : text.replace(/\s+/g, " ").trim();
  return shownText(shown || statusText || "(empty body)", secrets);
}
function shownText(text, secrets) {
  return truncate(redact(text, secrets));
}
var NOT_SENT = /* @__PURE__ */ new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
function neverSent(error) {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return NOT_SENT.has(cause?.code ?? "");
}
function networkReason(error) {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) {
    const code = cause.code;
    return code && !cause.message.includes(code) ? `${code} ${cause.message}` : cause.message;
  }
  return String(cause);
}
function truncate(text) {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}\u2026` : text;
}
function redact(text, secrets) {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.replaceAll(secret, "***");
  return out;
}
function field(value, ...path12) {
  let current = value;
  for (const key of path12) {
    if (typeof current !== "object" || current === null) return void 0;
    current = current[key];
  }
  return current;
}

// src/generators/anthropic.ts
var DEFAULT_MAX_TOKENS = 4096;
var ANTHROPIC_KEY_VARIABLE = "ANTHROPIC_API_KEY";
function anthropicCall(request) {
  const model = requireModel("anthropic", request);
  const settings = readProviderSettings("anthropic", request, { apiKeyEnv: ANTHROPIC_KEY_VARIABLE });
  const temperature = configNumber("anthropic", request.config, "temperature", { min: 0 });
  const maxTokens = configNumber("anthropic", request.config, "max_tokens", { min: 1, integer: true }) ?? DEFAULT_MAX_TOKENS;
  const headers = { "anthropic-version": "2023-06-01" };
  if (settings.apiKey !== void 0) headers["x-api-key"] = settings.apiKey;
  Object.assign(headers, settings.headers);
  const body = (content) => ({
    model,
    max_tokens: maxTokens,
    messages: [{ role: "user", content }],
    ...temperature !== void 0 && { temperature }
  });
  return {
    provider: "anthropic",
    settings,
    url: `${settings.baseUrl}/v1/messages`,
    headers,
    body: body(cacheableContent(request.prompt, request.cacheablePrefix)),
    asked: body(request.prompt),
    model,
    cost: requestCost(request.prompt, model, maxTokens),
    shared: sharedBeginning(request.prompt, request.cacheablePrefix, model),
    secrets: [settings.apiKey ?? "", ...Object.values(settings.headers)],
    authHint: settings.apiKey === void 0 ? `no API key sent: ${settings.apiKeyEnv} is not set` : void 0
  };
}
function cacheableContent(prompt, prefix) {
  if (prefix === void 0 || prefix <= 0 || prefix > prompt.length) return prompt;
  const head = prompt.slice(0, prefix);
  const tail2 = prompt.slice(prefix);
  if (tail2.trim() === "") return [{ type: "text", text: prompt, cache_control: { type: "ephemeral" } }];
  if (head.trim() === "") return prompt;
  return [
    { type: "text", text: head, cache_control: { type: "ephemeral" } },
    { type: "text", text: tail2 }
  ];
}
var anthropicGenerator = async (request) => {
  const call = anthropicCall(request);
  const data = await sendCall(call, request.signal, request.pacing);
  return anthropicResult(data, call.secrets);
};
function anthropicResult(data, secrets) {
  const blocks = field(data, "content");
  const texts = Array.isArray(blocks) ? blocks.filter((b) => field(b, "type") === "text" && typeof field(b, "text") === "string") : [];
  if (texts.length === 0) {
    const reason = field(data, "stop_reason");
    const why = typeof reason === "string" ? ` (stop_reason: ${shownText(reason, secrets)})` : "";
    throw new GeneratorError(`anthropic: the response has no text content${why}`);
  }
  const result = { content: texts.map((b) => field(b, "text")).join("") };
  const input = field(data, "usage", "input_tokens");
  const output = field(data, "usage", "output_tokens");
  if (typeof input === "number" && typeof output === "number") {
    const read2 = count2(field(data, "usage", "cache_read_input_tokens"));
    const written = count2(field(data, "usage", "cache_creation_input_tokens"));
    const tokens = { input: input + read2 + written, output };
    if (read2 > 0) tokens.cacheRead = read2;
    if (written > 0) tokens.cacheWrite = written;
    result.tokens = tokens;
  }
  return result;
}
function count2(value) {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

// src/generators/openai.ts
var OPENAI_KEY_VARIABLE = "OPENAI_API_KEY";
function openaiCall(request) {
  const model = requireModel("openai", request);
  const settings = readProviderSettings("openai", request, { apiKeyEnv: OPENAI_KEY_VARIABLE });
  const temperature = configNumber("openai", request.config, "temperature", { min: 0 });
  const maxTokens = configNumber("openai", request.config, "max_tokens", { min: 1, integer: true });
  const apiVersion = configString("openai", request.config, "api_version");
  const headers = {};
  if (settings.apiKey !== void 0) {
    if (apiVersion !== void 0) headers["api-key"] = settings.apiKey;
    else headers.authorization = `Bearer ${settings.apiKey}`;
  }
  Object.assign(headers, settings.headers);
  let url = `${settings.baseUrl}/chat/completions`;
  if (apiVersion !== void 0) url += `?api-version=${encodeURIComponent(apiVersion)}`;
  const body = {
    model,
    messages: [{ role: "user", content: request.prompt }],
    ...temperature !== void 0 && { temperature },
    ...maxTokens !== void 0 && { max_tokens: maxTokens }
  };
  return {
    provider: "openai",
    settings,
    url,
    headers,
    body,
    asked: body,
    apiVersion,
    model,
    cost: requestCost(request.prompt, model, maxTokens),
    shared: sharedBeginning(request.prompt, request.cacheablePrefix, model),
    secrets: [settings.apiKey ?? "", ...Object.values(settings.headers)],
    authHint: settings.apiKey === void 0 ? `no API key sent: ${settings.apiKeyEnv} is not set` : void 0
  };
}
var openaiGenerator = async (request) => {
  const call = openaiCall(request);
  const data = await sendCall(call, request.signal, request.pacing);
  return openaiResult(data, call.secrets);
};
function openaiResult(data, secrets) {
  const content = field(data, "choices", 0, "message", "content");
  if (typeof content !== "string") {
    const reason = field(data, "choices", 0, "finish_reason");
    const why = typeof reason === "string" ? ` (finish_reason: ${shownText(reason, secrets)})` : "";
    throw new GeneratorError(`openai: the response has no message content${why}`);
  }
  const result = { content };
  const input = field(data, "usage", "prompt_tokens");
  const output = field(data, "usage", "completion_tokens");
  if (typeof input === "number" && typeof output === "number") {
    const tokens = { input, output };
    const cached = field(data, "usage", "prompt_tokens_details", "cached_tokens");
    if (typeof cached === "number" && cached > 0) tokens.cacheRead = Math.min(cached, input);
    result.tokens = tokens;
  }
  return result;
}

// src/model/redact.ts
var MIN_SECRET_LENGTH = 6;
var REDACTED = "***";
var PIECE_LENGTH = 64;
var GZIP_INFLATED_LIMIT = 1024 * 1024;
var noRedaction = (text) => text;
var FORMS_PER_PATTERN = 4;
var BREAK = "(?:\\r?\\n)?";
function redactor(secrets, gunzip2) {
  const forms = [];
  const seen = /* @__PURE__ */ new Set();
  for (const secret of secrets) {
    for (const value of /* @__PURE__ */ new Set([secret, secret.trim()])) {
      if (value.length < MIN_SECRET_LENGTH) continue;
      for (const piece of piecesOf(value)) {
        if (seen.has(piece)) continue;
        seen.add(piece);
        forms.push(...formsOf(piece));
      }
    }
  }
  if (forms.length === 0) return noRedaction;
  const kinds = /* @__PURE__ */ new Map();
  for (const form of forms) kinds.set(form.kind, [...kinds.get(form.kind) ?? [], form]);
  const patterns = [...kinds.values()].flatMap(patternsOf);
  const inGzip = gunzip2 && ((base64) => gzipHolds(base64, patterns, gunzip2));
  return (text) => {
    if (text === "") return text;
    let out = text;
    if (inGzip && text.includes(GZIP_BASE64)) {
      out = text.replace(GZIP_TOKEN, (token, at) => redactGzip(token, LINE_END.test(text.charAt(at + token.length)), inGzip));
    }
    for (const pattern of patterns) out = out.replace(pattern, REDACTED);
    return out;
  };
}
var LINE_END = /^[\r\n]?$/;
function patternsOf(forms) {
  const sorted = forms.sort((a, b) => b.length - a.length);
  const patterns = [];
  for (let i = 0; i < sorted.length; i += FORMS_PER_PATTERN) {
    const some = sorted.slice(i, i + FORMS_PER_PATTERN);
    patterns.push(new RegExp(some.map((f) => f.units.join(BREAK)).join("|"), "gu"));
    const apart = some.filter((f) => f.separable).map((f, n) => separated(f.units, n + 1));
    if (apart.length > 0) patterns.push(new RegExp(apart.join("|"), "gu"));
  }
  return patterns;
}
function separated([first, ...rest], group) {
  return `${first}${BREAK}([\\s\\S]{1,4}?)${BREAK}${rest.join(`${BREAK}(?:\\${group})${BREAK}`)}`;
}
function piecesOf(value) {
  const chars = [...value];
  if (chars.length <= PIECE_LENGTH) return [value];
  const pieces = [];
  for (let i = 0; i < chars.length; i += PIECE_LENGTH) pieces.push(chars.slice(i, i + PIECE_LENGTH).join(""));
  if ([...pieces.at(-1)].length < MIN_SECRET_LENGTH) {
    const last = pieces.pop();
    pieces.push(pieces.pop() + last);
  }
  return pieces;
}
function formsOf(value) {
  const chars = [...value];
  const bytes = Buffer.from(value, "utf8");
  const forms = [
    { kind: "characters", units: chars.map(escapedChar), length: value.length, separable: true },
    { kind: "reversed", units: [...chars].reverse().map(literal), length: value.length, separable: true },
    { kind: "hex", units: [...bytes].map((b) => hexDigits(b.toString(16).padStart(2, "0"))), length: bytes.length * 2, separable: true }
  ];
  for (const encoded of base64Forms(value)) {
    if (encoded.length >= MIN_SECRET_LENGTH) forms.push({ kind: "base64", units: [...encoded].map(literal), length: encoded.length, separable: false });
  }
  return forms;
}
function escapedChar(c) {
  const ways = /* @__PURE__ */ new Set([literal(c)]);
  ways.add([...Buffer.from(c, "utf8")].map((b) => `%${hexDigits(b.toString(16).padStart(2, "0"))}`).join(""));
  if (c === " ") ways.add("\\+");
  let units = "";
  for (let i = 0; i < c.length; i++) units += `\\\\u${hexDigits(c.charCodeAt(i).toString(16).padStart(4, "0"))}`;
  ways.add(units);
  const short = JSON_SHORT[c];
  if (short) ways.add(literal(short));
  return `(?:${[...ways].join("|")})`;
}
var JSON_SHORT = { '"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "	": "\\t" };
function hexDigits(hex) {
  return hex.replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}
function literal(text) {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
function base64Forms(value) {
  const bytes = Buffer.from(value, "utf8");
  const forms = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64").replace(/=+$/, "");
    const start = [0, 2, 3][offset];
    const total = offset + bytes.length;
    const end = Math.floor(total / 3) * 4 + [0, 1, 2][total % 3];
    if (end > start) forms.push(encoded.slice(start, end));
  }
  return forms;
}
var GZIP_BASE64 = "H4sI";
var GZIP_TOKEN = /(?<![A-Za-z0-9+/_-])H4sI[A-Za-z0-9+/_-]*=*(?:\r?\n[A-Za-z0-9+/_-]+=*)*/g;
function redactGzip(token, endsLine, holds) {
  if (!holds(token)) return token;
  const lines2 = token.split(/(?<=\n)/);
  const upTo = (n) => lines2.slice(0, n).join("");
  let [without, taken] = [0, lines2.length];
  while (taken - without > 1) {
    const middle = Math.floor((without + taken) / 2);
    if (holds(upTo(middle))) taken = middle;
    else without = middle;
  }
  if (taken < lines2.length) taken = endsLine ? lines2.length : Math.max(taken, lines2.length - 1);
  const replaced = upTo(taken);
  const lineBreak = /\r?\n$/.exec(replaced)?.[0] ?? "";
  return REDACTED + lineBreak + lines2.slice(taken).join("");
}
function gzipHolds(token, patterns, gunzip2) {
  const data = Buffer.from(token.replace(/\s+/g, ""), "base64");
  if (data.length < 10 || (data[3] & 224) !== 0) return false;
  const inflated = gunzip2(data, GZIP_INFLATED_LIMIT);
  if (inflated === "too large") return true;
  const text = Buffer.from(inflated).toString("utf8");
  return patterns.some((pattern) => {
    pattern.lastIndex = 0;
    return pattern.test(text);
  });
}

// src/app/sandbox.ts
import { chmodSync, existsSync as existsSync3, mkdtempSync as mkdtempSync3, rmSync as rmSync4, writeFileSync as writeFileSync3 } from "node:fs";
import { tmpdir as tmpdir3 } from "node:os";
import path4 from "node:path";

// src/processes/sandbox.ts
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync as existsSync2, lstatSync, mkdirSync as mkdirSync3, mkdtempSync as mkdtempSync2, readdirSync as readdirSync2, readFileSync as readFileSync2, rmSync as rmSync3, statSync, writeFileSync as writeFileSync2 } from "node:fs";
import { tmpdir as tmpdir2 } from "node:os";
import path3 from "node:path";
var SANDBOX_MODES = ["auto", "required", "off"];
var LAYER_DIR = "/run/pairflow-layer";
var LAYER_SETUP = [
  "root=$1 candidate=$2 at=$3 setpriv=$4 options=$5 n=$6; shift 6",
  "mkdir -p /tmp/.pairflow-layer/upper /tmp/.pairflow-layer/work || exit 123",
  `mount -t overlay pairflow -o "$options"lowerdir=${LAYER_DIR}/lower,upperdir=/tmp/.pairflow-layer/upper,workdir=/tmp/.pairflow-layer/work "$root" || exit 123`,
  `while [ "$n" -gt 0 ]; do mount --bind ${LAYER_DIR}/empty "$1" || exit 123; shift; n=$((n - 1)); done`,
  'if [ -n "$at" ]; then mkdir -p "${at%/*}" && cat "$candidate" > "$at" || exit 123; fi',
  `mount -t tmpfs -o size=4k,mode=0755 pairflow ${LAYER_DIR} || exit 123`,
  'cd "$PWD" || exit 123',
  'exec "$setpriv" --bounding-set=-all --inh-caps=-all --ambient-caps=-all --no-new-privs -- "$@"'
].join("\n");
var LAYER_FAILED = 123;
function runnerDirectories(env, execPath = process.execPath) {
  const dirs = [];
  if (env.RUNNER_TEMP) {
    dirs.push(env.RUNNER_TEMP);
    const work = path3.dirname(env.RUNNER_TEMP);
    if (path3.basename(work) === "_work" && path3.dirname(work) !== "/") dirs.push(path3.dirname(work));
  }
  const externals = /^(.*)\/externals\/node\d+\/bin\/node$/.exec(execPath);
  if (externals?.[1]) dirs.push(externals[1]);
  return [...new Set(dirs)];
}
var CREDENTIAL_HOMES = /* @__PURE__ */ new Set([
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".docker",
  ".kube",
  ".config",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".gitconfig",
  ".git-credentials",
  ".gcloud",
  ".terraform.d"
]);
function toolHomes(home, pathVar) {
  const dirs = /* @__PURE__ */ new Set();
  for (const entry of pathVar.split(":")) {
    if (!path3.isAbsolute(entry)) continue;
    const rel = path3.relative(home, entry);
    if (rel === "" || rel.startsWith("..") || path3.isAbsolute(rel)) continue;
    const first = rel.split(path3.sep)[0];
    if (CREDENTIAL_HOMES.has(first)) continue;
    const dir = path3.join(home, first);
    if (lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) dirs.add(dir);
  }
  return [...dirs];
}
var NOT_WALKED = /* @__PURE__ */ new Set(["node_modules", ".pairflow"]);
function gitConfigFiles(root) {
  const found = [];
  const configs = (gitDir) => {
    for (const name of ["config", "config.worktree"]) {
      const file = path3.join(gitDir, name);
      if (lstat(file)?.isFile()) found.push(file);
    }
    const modules = path3.join(gitDir, "modules");
    if (lstat(modules)?.isDirectory()) walkModules(modules);
  };
  const walkModules = (dir) => {
    for (const entry of readdirSafe(dir)) {
      if (!entry.directory) continue;
      const sub = path3.join(dir, entry.name);
      if (lstat(path3.join(sub, "HEAD"))?.isFile()) configs(sub);
      else walkModules(sub);
    }
  };
  const linked = (file) => {
    let gitDir;
    try {
      const named = /^gitdir: (.+)$/m.exec(nameText(readFileSync2(fsName(file))))?.[1]?.trim();
      if (named === void 0) return;
      gitDir = path3.resolve(path3.dirname(file), named);
    } catch {
      return;
    }
    configs(gitDir);
    try {
      const common = nameText(readFileSync2(fsName(path3.join(gitDir, "commondir")))).trim();
      if (common !== "") configs(path3.resolve(gitDir, common));
    } catch {
    }
  };
  const walk = (dir) => {
    for (const entry of readdirSafe(dir)) {
      const sub = path3.join(dir, entry.name);
      if (entry.name === ".git" && entry.file) linked(sub);
      if (!entry.directory || NOT_WALKED.has(entry.name)) continue;
      if (entry.name === ".git") configs(sub);
      else walk(sub);
    }
  };
  walk(root);
  for (let dir = path3.dirname(root); dir !== path3.dirname(dir); dir = path3.dirname(dir)) {
    const git = lstat(path3.join(dir, ".git"));
    if (git?.isDirectory()) configs(path3.join(dir, ".git"));
    else if (git?.isFile()) linked(path3.join(dir, ".git"));
    if (git) break;
  }
  return [...new Set(found)];
}
function readdirSafe(dir) {
  try {
    return readdirSync2(fsName(dir), { withFileTypes: true, encoding: "buffer" }).map((entry) => ({
      name: nameText(entry.name),
      directory: entry.isDirectory(),
      file: entry.isFile()
    }));
  } catch {
    return [];
  }
}
function lstat(file) {
  return lstatSync(fsName(file), { throwIfNoEntry: false });
}
function fsName(file) {
  return isUtf8Name(file) ? file : nameBytes(file);
}
function bwrapArguments(layout, command) {
  const layered = command.layer !== void 0 && layout.layer !== void 0 && layout.emptyFile !== void 0;
  const args = [
    "--die-with-parent",
    "--unshare-user",
    ...layered ? [] : ["--disable-userns"],
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try"
  ];
  if (!command.network) args.push("--unshare-net");
  const setup = ["CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_SETPCAP"].flatMap((cap) => ["--cap-add", cap]);
  args.push("--cap-drop", "ALL", ...layered && layout.layer.unshare === void 0 ? setup : []);
  const sized = command.tmpBytes === void 0 ? [] : ["--size", String(command.tmpBytes)];
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", ...sized, "--tmpfs", "/tmp");
  args.push("--tmpfs", "/run", "--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
  for (const dir of layout.hide) if (dir !== "/" && !isInside(layout.root, dir)) args.push("--tmpfs", dir);
  if (layout.home !== void 0 && layout.home !== "/" && !isInside(layout.root, layout.home)) {
    args.push(...sized, "--tmpfs", layout.home);
    for (const dir of layout.show ?? []) args.push("--ro-bind", dir, dir);
  }
  for (const dir of [layout.root, ...command.readable]) if (dir !== "/") args.push("--ro-bind", dir, dir);
  if (layout.emptyFile !== void 0) for (const file of layout.empty ?? []) args.push("--ro-bind", layout.emptyFile, file);
  if (layered) args.push("--ro-bind", layout.root, `${LAYER_DIR}/lower`, "--ro-bind", layout.emptyFile, `${LAYER_DIR}/empty`);
  args.push("--chdir", command.cwd);
  return args;
}
function confinedArgv(bwrap, layout, command) {
  const argv = [bwrap, ...bwrapArguments(layout, command)];
  const tools = layout.layer;
  if (command.layer === void 0 || tools === void 0 || layout.emptyFile === void 0) return argv;
  const inside = (layout.empty ?? []).filter((file) => isInside(layout.root, file));
  const place2 = command.layer.place;
  const nest = tools.unshare === void 0 ? [] : [tools.unshare, "-Urm", "--"];
  const options = tools.unshare === void 0 ? "" : "userxattr,";
  return [
    ...argv,
    ...nest,
    "/bin/sh",
    "-c",
    LAYER_SETUP,
    "pairflow-layer",
    layout.root,
    place2?.candidate ?? "",
    place2?.at ?? "",
    tools.setpriv,
    options,
    String(inside.length),
    ...inside
  ];
}
function bubblewrap(bwrap, layout) {
  return {
    name: "bubblewrap",
    layered: layout.layer !== void 0,
    confine: (command) => spawnable(confinedArgv(bwrap, layout, command))
  };
}
function spawnable(argv) {
  if (argv.every(isUtf8Name)) return [...argv];
  const made2 = [];
  const words = argv.map((arg, i) => {
    if (isUtf8Name(arg)) return `'${arg.replaceAll("'", `'\\''`)}'`;
    const octal = [...nameBytes(arg)].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");
    made2.push(`a${i}=$(printf '${octal}.') && a${i}=\${a${i}%.}`);
    return `"$a${i}"`;
  });
  return ["/bin/sh", "-c", `${made2.join(" && ")} && exec ${words.join(" ")} "$@"`, "pairflow-sandbox"];
}
var layers = /* @__PURE__ */ new Map();
function probeLayer(bwrap, emptyFile2) {
  const known = layers.get(bwrap);
  if (known !== void 0) return known;
  const probe = probeLayerNow(bwrap, emptyFile2);
  layers.set(bwrap, probe);
  return probe;
}
function probeLayerNow(bwrap, emptyFile2) {
  const root = process.getuid?.() === 0;
  const unshare = root ? void 0 : systemProgram("unshare");
  const setpriv = systemProgram("setpriv");
  if (!root && unshare === void 0 || setpriv === void 0) return "util-linux's unshare and setpriv are not installed";
  const dir = mkdtempSync2(path3.join(tmpdir2(), "pairflow-layer-"));
  try {
    const repo = path3.join(dir, "repo");
    mkdirSync3(path3.join(repo, ".git"), { recursive: true });
    writeFileSync2(path3.join(repo, ".git", "config"), "probe-secret\n");
    writeFileSync2(path3.join(dir, "candidate"), "probe-candidate\n");
    const tools = { ...unshare ? { unshare } : {}, setpriv };
    const layout = { root: repo, hide: [], empty: [path3.join(repo, ".git", "config")], emptyFile: emptyFile2, layer: tools };
    const command = {
      cwd: repo,
      readable: [dir],
      network: false,
      layer: { place: { candidate: path3.join(dir, "candidate"), at: path3.join(repo, "out", "placed.txt") } }
    };
    const script = "cat .git/config out/placed.txt; echo x > written && cat written; grep '^CapEff' /proc/self/status";
    const argv = [...confinedArgv(bwrap, layout, command), "/bin/sh", "-c", script];
    const r = spawnSync(argv[0], argv.slice(1), { encoding: "utf8", timeout: 1e4, env: { PATH: "/usr/bin:/bin" } });
    const said = (r.stderr || "").trim().split("\n")[0] ?? "";
    if (r.error || r.status !== 0) return `the writable layer cannot be made here${said ? ` (${said})` : r.error ? ` (${r.error.message})` : ""}`;
    const caps = /^CapEff:\s*([0-9a-f]+)$/m.exec(r.stdout)?.[1];
    const held = r.stdout.includes("probe-secret") || caps === void 0 || /[1-9a-f]/.test(caps);
    if (held || !r.stdout.includes("probe-candidate") || existsSync2(path3.join(repo, "written")) || existsSync2(path3.join(repo, "out"))) {
      return "the writable layer does not hold here";
    }
    return tools;
  } finally {
    rmSync3(dir, { recursive: true, force: true });
  }
}
var probes = /* @__PURE__ */ new Map();
var SYSTEM_DIRECTORIES = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"];
var BWRAP_VARIABLE = "PAIRFLOW_BWRAP";
function probeSandbox(env) {
  const asked = env[BWRAP_VARIABLE];
  const key = asked ?? "";
  const known = probes.get(key);
  if (known) return known;
  const probe = probeNow(asked);
  probes.set(key, probe);
  return probe;
}
function systemProgram(name, given) {
  if (given !== void 0 && given !== "") return path3.isAbsolute(given) && isExecutable(given) ? given : void 0;
  return findExecutable(name, SYSTEM_DIRECTORIES.join(":"));
}
var PROBE = "ls /proc; grep '^CapEff:' /proc/self/status; umount -l /proc 2>/dev/null && echo UNMOUNTED; exit 0";
function probeNow(asked) {
  const bwrap = systemProgram("bwrap", asked);
  if (bwrap === void 0) {
    return { available: false, reason: asked ? `${BWRAP_VARIABLE} (${asked}) is not an absolute path to a program` : "bubblewrap (bwrap) is not installed" };
  }
  const args = bwrapArguments({ root: "/", hide: [] }, { cwd: "/", readable: [], network: false });
  const r = spawnSync(bwrap, [...args, "/bin/sh", "-c", PROBE], { encoding: "utf8", timeout: 1e4, env: {} });
  if (r.error) return { available: false, reason: `bwrap could not be started: ${r.error.message}` };
  if (r.status !== 0) {
    const said = (r.stderr || r.stdout).trim().split("\n")[0] ?? "";
    return { available: false, reason: `bwrap does not work here${said ? ` (${said})` : ""}` };
  }
  const pids = r.stdout.split(/\s+/).filter((name) => /^\d+$/.test(name));
  if (pids.length === 0 || pids.length > 4) return { available: false, reason: "bwrap does not hide other processes here" };
  const caps = /^CapEff:\s*([0-9a-f]+)$/m.exec(r.stdout)?.[1];
  if (caps === void 0 || /[1-9a-f]/.test(caps)) return { available: false, reason: "a command in bwrap keeps capabilities here" };
  if (r.stdout.includes("UNMOUNTED")) return { available: false, reason: "a command in bwrap can unmount its /proc here" };
  return { available: true, bwrap };
}
function findExecutable(name, pathVar) {
  for (const dir of pathVar.split(":")) {
    if (dir === "") continue;
    const file = path3.join(dir, name);
    if (isExecutable(file)) return file;
  }
  return void 0;
}
function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return existsSync2(file) && statSync(file).isFile();
  } catch {
    return false;
  }
}

// src/app/sandbox.ts
var SANDBOX_VARIABLE = "PAIRFLOW_SANDBOX";
var SandboxUnavailableError = class extends UsageError {
  name = "SandboxUnavailableError";
};
function sandboxMode(asked, env) {
  const mode = asked ?? env[SANDBOX_VARIABLE] ?? "auto";
  if (SANDBOX_MODES.includes(mode)) return mode;
  const where = asked !== void 0 ? "the sandbox mode" : SANDBOX_VARIABLE;
  throw new UsageError(`${where} is "${mode}"; expected one of: ${SANDBOX_MODES.join(", ")}`);
}
function pairsToRun(plan) {
  return plan.pairs.filter((p) => p.action === "run").map((p) => plan.workflow.pairs.get(p.id));
}
var judgedByCommand = (pair) => pair.guard === "command" || (pair.guards ?? []).some((g) => g.guard === "command");
function commandsToStart(plan) {
  let commands = 0;
  for (const pair of pairsToRun(plan)) commands += (pair.generator === "command" ? 1 : 0) + (judgedByCommand(pair) ? 1 : 0);
  return commands;
}
function runsCommands(plan) {
  return commandsToStart(plan) > 0;
}
function runsCommandGuards(plan) {
  return pairsToRun(plan).some(judgedByCommand);
}
function chooseSandbox(mode, env, root, layers2 = true) {
  if (mode === "off") return { state: { mode, confined: false, reason: "the sandbox is off" } };
  const probe = probeSandbox(env);
  if (probe.available) {
    const hide = runnerDirectories(env).filter((dir) => existsSync3(dir));
    const home = env.HOME !== void 0 && path4.isAbsolute(env.HOME) && existsSync3(env.HOME) ? path4.resolve(env.HOME) : void 0;
    const empty2 = emptyFile();
    const layer = layers2 ? probeLayer(probe.bwrap, empty2) : void 0;
    const layout = {
      root,
      hide,
      empty: gitConfigFiles(root),
      emptyFile: empty2,
      ...typeof layer === "object" ? { layer } : {},
      ...home ? { home, show: toolHomes(home, env.PATH ?? "") } : {}
    };
    const state = { mode, confined: true, by: "bubblewrap", ...typeof layer === "string" ? { layer } : {} };
    return { state, sandbox: bubblewrap(probe.bwrap, layout) };
  }
  if (mode === "required") {
    throw new SandboxUnavailableError(
      `the sandbox is required and cannot be had here: ${probe.reason}; install bubblewrap (on Ubuntu 24.04 also allow it user namespaces), or see docs/security.md; nothing was executed`
    );
  }
  return { state: { mode, confined: false, reason: probe.reason } };
}
function unconfinedWarning(state) {
  if (state === void 0 || state.confined || state.mode !== "auto") return void 0;
  return `commands run without a sandbox (${state.reason}): a guard running code a model wrote can read the job's tokens from pairflow's process; install bubblewrap to confine them, or see docs/security.md`;
}
var empty;
function emptyFile() {
  if (empty !== void 0 && existsSync3(empty)) return empty;
  const dir = mkdtempSync3(path4.join(tmpdir3(), "pairflow-empty-"));
  chmodSync(dir, 493);
  empty = path4.join(dir, "empty");
  writeFileSync3(empty, "", { mode: 292 });
  process.once("exit", () => rmSync4(dir, { recursive: true, force: true }));
  return empty;
}

// src/app/environment.ts
var RUNNER_SECRETS = ["GITHUB_TOKEN", "GH_TOKEN"];
var RUNNER_FILES = ["GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE"];
var SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE_KEY|API_KEY|ACCESS_KEY|AUTH/i;
var PASS_ENV_VARIABLE = "PAIRFLOW_PASS_ENV";
var PASS_ENV_GUARDS_VARIABLE = "PAIRFLOW_PASS_ENV_GUARDS";
var DEFAULT_KEY_VARIABLES = [OPENAI_KEY_VARIABLE, ANTHROPIC_KEY_VARIABLE];
function childEnvironments(env, workflow) {
  const passed = names(env[PASS_ENV_VARIABLE]);
  const toGuards = names(env[PASS_ENV_GUARDS_VARIABLE]);
  const guardPassed = (name) => passed.has(name) && toGuards.has(name);
  const generator = {};
  const guard = {};
  const secrets = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === void 0) continue;
    const runners = RUNNER_SECRETS.includes(name) || RUNNER_FILES.includes(name) || name.startsWith("ACTIONS_") || name.startsWith("INPUT_");
    const withheld = runners || SECRET_NAME.test(name);
    if (!withheld || passed.has(name)) generator[name] = value;
    if (!withheld || guardPassed(name)) guard[name] = value;
    if (RUNNER_SECRETS.includes(name) || name.startsWith("ACTIONS_") || SECRET_NAME.test(name)) secrets.push(value);
  }
  for (const name of keyVariables(workflow)) {
    const value = env[name];
    if (value === void 0) continue;
    generator[name] = value;
    secrets.push(value);
    if (!guardPassed(name)) delete guard[name];
  }
  return { generator, guard, secrets };
}
function names(list) {
  return new Set(
    (list ?? "").split(",").map((name) => name.trim()).filter((name) => name !== "")
  );
}
function keyVariables(workflow) {
  const names2 = new Set(DEFAULT_KEY_VARIABLES);
  for (const pair of workflow.pairs.values()) {
    const name = pair.generatorConfig.api_key_env;
    if (typeof name === "string") names2.add(name);
  }
  return [...names2];
}
function childSetup(request, workflow, plan) {
  const env = request.env ?? {};
  const mode = sandboxMode(request.sandbox, env);
  const { generator, guard, secrets } = childEnvironments(env, workflow);
  const setup = { env: { generator, guard }, redact: secretRedactor(secrets) };
  if (!runsCommands(plan)) return setup;
  const choice = chooseSandbox(mode, env, workflow.root, runsCommandGuards(plan));
  return { ...setup, sandbox: choice.sandbox, state: choice.state };
}
function secretRedactor(secrets) {
  return redactor(secrets, gunzip);
}
var gunzip = (data, limit) => {
  const inflate = (length) => gunzipSync(data.subarray(0, length), { finishFlush: constants2.Z_SYNC_FLUSH, maxOutputLength: limit });
  const tooLarge = (err) => err.code === "ERR_BUFFER_TOO_LARGE";
  try {
    return inflate(data.length);
  } catch (err) {
    if (tooLarge(err)) return "too large";
  }
  let good = new Uint8Array(0);
  let [ok, failed] = [0, data.length];
  while (failed - ok > 1) {
    const length = Math.floor((ok + failed) / 2);
    try {
      good = inflate(length);
      ok = length;
    } catch (err) {
      if (tooLarge(err)) return "too large";
      failed = length;
    }
  }
  return good;
};

// src/processes/limits.ts
import { randomBytes as randomBytes2 } from "node:crypto";
import { existsSync as existsSync4, mkdirSync as mkdirSync4, readdirSync as readdirSync3, readFileSync as readFileSync3, rmdirSync, writeFileSync as writeFileSync4 } from "node:fs";
import path5 from "node:path";
var DEFAULT_LIMITS = {
  processes: 2048,
  memoryBytes: 4 * 2 ** 30,
  tmpBytes: 1 * 2 ** 30,
  timeSeconds: 3600
};
var LIMIT_NAMES = ["processes", "memory", "tmp", "time"];
function parseLimits(text, base = DEFAULT_LIMITS) {
  const limits = { ...base };
  for (const item of text.split(/[\s,]+/).filter((part) => part !== "")) {
    const [name, value = ""] = item.split("=", 2);
    const bytes = name === "memory" || name === "tmp";
    const parsed = parseAmount(value, bytes);
    if (!LIMIT_NAMES.includes(name)) return `"${name}" is not a limit; use ${LIMIT_NAMES.map((n) => `${n}=`).join(", ")}`;
    if (parsed === void 0)
      return `${name}=${value} is not ${bytes ? "a size such as 512m or 4g" : name === "time" ? "a number of seconds" : "a whole number"} above 0`;
    if (name === "processes") limits.processes = parsed;
    else if (name === "memory") limits.memoryBytes = parsed;
    else if (name === "tmp") limits.tmpBytes = parsed;
    else limits.timeSeconds = parsed;
  }
  return limits;
}
function describeLimits(limits) {
  const size = (bytes) => bytes % 2 ** 30 === 0 ? `${bytes / 2 ** 30}g` : bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20}m` : String(bytes);
  return `processes=${limits.processes},memory=${size(limits.memoryBytes)},tmp=${size(limits.tmpBytes)},time=${limits.timeSeconds}`;
}
function parseAmount(text, bytes) {
  const m = /^(\d+(?:\.\d+)?)([kmgt]i?b?)?$/i.exec(text.trim());
  if (!m) return void 0;
  const unit = m[2]?.toLowerCase()[0];
  if (unit !== void 0 && !bytes) return void 0;
  const scale = unit === void 0 ? 1 : 1024 ** ("kmgt".indexOf(unit) + 1);
  const value = Math.floor(Number(m[1]) * scale);
  return Number.isSafeInteger(value) && value > 0 ? value : void 0;
}
function limitMessage(hit, limits) {
  switch (hit) {
    case "processes":
      return `stopped by the process limit (${limits.processes} processes at once; --limits processes=N)`;
    case "memory":
      return `stopped by the memory limit (${formatBytes(limits.memoryBytes)}; --limits memory=SIZE)`;
    case "tmp":
      return `stopped by the size limit of its /tmp and home directory (${formatBytes(limits.tmpBytes)} each; --limits tmp=SIZE)`;
  }
}
function rlimitPrefix(limits) {
  return `ulimit -p ${limits.processes} 2>/dev/null; ulimit -d ${Math.ceil(limits.memoryBytes / 1024)} 2>/dev/null; `;
}
function limitFromOutput(output, sandboxed) {
  if (/Cannot fork|fork: (retry: )?Resource temporarily unavailable|fork failed: resource temporarily unavailable|EAGAIN.*(spawn|fork)|(spawn|fork).*EAGAIN/i.test(
    output
  ))
    return "processes";
  if (/out of memory|Cannot allocate memory|ENOMEM|MemoryError|std::bad_alloc|allocation failed/i.test(output)) return "memory";
  if (sandboxed && /No space left on device|ENOSPC/i.test(output)) return "tmp";
  return void 0;
}
var hierarchy;
var made = 0;
var runTag = `pairflow-${process.pid}-${randomBytes2(4).toString("hex")}`;
var idle = /* @__PURE__ */ new Map();
var draining = [];
function commandCgroup(limits) {
  if (hierarchy === void 0) hierarchy = findHierarchy();
  if (hierarchy === null) return void 0;
  const key = `${limits.processes}/${limits.memoryBytes}`;
  const dirs = reuse(key) ?? makeCgroup(hierarchy, limits);
  if (dirs === void 0) return void 0;
  const version = hierarchy.version;
  let stopped;
  const hit = () => (stopped ??= { hit: hitIn(version, dirs) }).hit;
  return {
    procs: dirs.map((dir) => path5.join(dir, "cgroup.procs")),
    hit,
    dispose() {
      if (hit()) {
        killMembers(version, dirs);
        for (const dir of dirs) removeCgroup(dir);
        return;
      }
      if (members(dirs[0]).length === 0) return void idle.set(key, [...idle.get(key) ?? [], dirs]);
      killMembers(version, dirs, false);
      draining.push({ key, dirs });
    }
  };
}
function reuse(key) {
  for (let i = draining.length - 1; i >= 0; i--) {
    const { key: k, dirs } = draining[i];
    if (members(dirs[0]).length > 0) continue;
    draining.splice(i, 1);
    idle.set(k, [...idle.get(k) ?? [], dirs]);
  }
  return idle.get(key)?.pop();
}
function makeCgroup(hierarchy2, limits) {
  const name = `c${++made}`;
  const dirs = hierarchy2.dirs.map((dir) => path5.join(dir, name));
  try {
    for (const dir of dirs) mkdirSync4(dir);
    if (hierarchy2.version === 2) {
      writeFileSync4(path5.join(dirs[0], "pids.max"), String(limits.processes));
      writeFileSync4(path5.join(dirs[0], "memory.max"), String(limits.memoryBytes));
      tryWrite(path5.join(dirs[0], "memory.swap.max"), "0");
    } else {
      writeFileSync4(path5.join(dirs[0], "pids.max"), String(limits.processes));
      writeFileSync4(path5.join(dirs[1], "memory.limit_in_bytes"), String(limits.memoryBytes));
      tryWrite(path5.join(dirs[1], "memory.memsw.limit_in_bytes"), String(limits.memoryBytes));
    }
    return dirs;
  } catch {
    for (const dir of dirs) removeCgroup(dir);
    return void 0;
  }
}
function hitIn(version, dirs) {
  const [pids, memory] = version === 2 ? [dirs[0], dirs[0]] : [dirs[0], dirs[1]];
  if (version === 2 ? counter(path5.join(memory, "memory.events"), "oom_kill") > 0 : counter(path5.join(memory, "memory.oom_control"), "oom_kill") > 0)
    return "memory";
  if (counter(path5.join(pids, "pids.events"), "max") > 0) return "processes";
  return void 0;
}
function killMembers(version, dirs, wait = true) {
  if (version === 2) tryWrite(path5.join(dirs[0], "cgroup.kill"), "1");
  for (let round = 0; round < 100; round++) {
    const left = members(dirs[0]);
    if (left.length === 0) return;
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
      }
    }
    if (!wait) return;
    sleepSync(2);
  }
}
function removeRunCgroups() {
  if (!hierarchy) return;
  for (const { dirs } of draining.splice(0)) killMembers(hierarchy.version, dirs);
  for (const dir of hierarchy.dirs) {
    for (const child of readdirSafe2(dir)) removeCgroup(path5.join(dir, child));
    removeCgroup(dir);
  }
}
function findHierarchy() {
  if (process.platform !== "linux" || process.env.PAIRFLOW_CGROUPS === "off") return null;
  let own;
  try {
    own = readFileSync3("/proc/self/cgroup", "utf8");
  } catch {
    return null;
  }
  const lines2 = own.split("\n").map((line) => line.split(":"));
  const v2 = lines2.find((l) => l[0] === "0" && l[1] === "")?.[2];
  const pathOf = (controller) => lines2.find((l) => l[0] !== "0" && (l[1] ?? "").split(",").includes(controller))?.[2];
  const created = [];
  const make = (dir) => {
    mkdirSync4(dir);
    created.push(dir);
  };
  try {
    const pids = pathOf("pids");
    const memory = pathOf("memory");
    if (pids !== void 0 && memory !== void 0 && existsSync4("/sys/fs/cgroup/pids/cgroup.procs") && existsSync4("/sys/fs/cgroup/memory/cgroup.procs")) {
      const dirs = [path5.join("/sys/fs/cgroup/pids", pids, runTag), path5.join("/sys/fs/cgroup/memory", memory, runTag)];
      for (const dir of dirs) make(dir);
      process.on("exit", removeRunCgroups);
      return { version: 1, dirs };
    }
    if (v2 !== void 0 && existsSync4("/sys/fs/cgroup/cgroup.controllers")) {
      const base = path5.join("/sys/fs/cgroup", v2 === "/" ? "/" : path5.dirname(v2));
      const enabled = readFileSync3(path5.join(base, "cgroup.subtree_control"), "utf8").split(/\s+/);
      if (!enabled.includes("pids") || !enabled.includes("memory")) writeFileSync4(path5.join(base, "cgroup.subtree_control"), "+pids +memory");
      const dir = path5.join(base, runTag);
      make(dir);
      writeFileSync4(path5.join(dir, "cgroup.subtree_control"), "+pids +memory");
      process.on("exit", removeRunCgroups);
      return { version: 2, dirs: [dir] };
    }
  } catch {
    for (const dir of created.reverse()) removeCgroup(dir);
  }
  return null;
}
function members(dir) {
  try {
    return readFileSync3(path5.join(dir, "cgroup.procs"), "utf8").split("\n").filter((line) => /^\d+$/.test(line)).map(Number);
  } catch {
    return [];
  }
}
function counter(file, key) {
  try {
    const line = readFileSync3(file, "utf8").split("\n").find((l) => l.startsWith(`${key} `));
    return line === void 0 ? 0 : Number(line.slice(key.length + 1)) || 0;
  } catch {
    return 0;
  }
}
function tryWrite(file, data) {
  try {
    writeFileSync4(file, data);
  } catch {
  }
}
function removeCgroup(dir) {
  for (let round = 0; round < 50; round++) {
    try {
      rmdirSync(dir);
      return;
    } catch (err) {
      const code = err.code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") return;
      sleepSync(2);
    }
  }
}
function readdirSafe2(dir) {
  try {
    return readdirSync3(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}
var pause = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms) {
  Atomics.wait(pause, 0, 0, ms);
}

// src/app/run.ts
import { readdirSync as readdirSync6 } from "node:fs";
import path10 from "node:path";

// src/estimate/budget.ts
function checkBudget(estimate, maxCost, name = "--max-cost") {
  const t = estimate.totals;
  if (t.pairs === 0) return null;
  if (t.cost === null) {
    const pairs = estimate.pairs.filter((p) => p.cost === null).map((p) => p.id);
    return `the cost of ${pairs.join(", ")} is unknown (no price for ${t.unpricedModels.join(", ")}), so it cannot be checked against ${name} ${usd(maxCost)}; add the model under pricing: in the workflow file (input and output USD per million tokens)`;
  }
  if (t.cost > maxCost) return `the estimated cost ${usd(t.cost)} exceeds ${name} ${usd(maxCost)}`;
  return null;
}

// src/estimate/spend.ts
function spendOf(report, workflow) {
  const spend = {
    bought: { calls: 0, batched: 0, tokens: null, cost: 0 },
    reused: { unchanged: 0, request: 0, rejudged: 0 },
    avoided: { tokens: { input: 0, output: 0 }, cost: 0, unknown: 0 }
  };
  const avoid = (pair, tokens) => {
    if (pair === void 0 || !callsModel(pair)) return;
    const price = priceFor(pair.model, workflow.pricing);
    if (!tokens || !price) {
      spend.avoided.unknown++;
      return;
    }
    spend.avoided.tokens.input += tokens.input;
    spend.avoided.tokens.output += tokens.output;
    spend.avoided.cost += costOf(tokens, price);
  };
  for (const outcome of report.pairs) {
    const pair = workflow.pairs.get(outcome.id);
    if (outcome.status === "reused") {
      spend.reused.unchanged++;
      if (outcome.avoided !== void 0) avoid(pair, outcome.avoided);
      continue;
    }
    if (pair === void 0 || !callsModel(pair)) continue;
    const price = priceFor(pair.model, workflow.pricing);
    const free = price !== null && price.input === 0 && price.output === 0;
    for (const attempt of outcome.attempts) {
      if (attempt.reused) {
        spend.reused[attempt.reused.kind]++;
        avoid(pair, attempt.reused.tokens);
        continue;
      }
      spend.bought.calls++;
      if (attempt.tokens?.batch) spend.bought.batched++;
      if (attempt.tokens) {
        const t = spend.bought.tokens ??= { input: 0, output: 0 };
        t.input += attempt.tokens.input;
        t.output += attempt.tokens.output;
        if (attempt.tokens.cacheRead) t.cacheRead = (t.cacheRead ?? 0) + attempt.tokens.cacheRead;
        if (attempt.tokens.cacheWrite) t.cacheWrite = (t.cacheWrite ?? 0) + attempt.tokens.cacheWrite;
      }
      if (free || spend.bought.cost === null) continue;
      spend.bought.cost = price && attempt.tokens ? spend.bought.cost + costOf(attempt.tokens, price) : null;
    }
  }
  return spend;
}

// src/generators/assemble.ts
import { readFileSync as readFileSync4 } from "node:fs";
import path6 from "node:path";
var assembleGenerator = async (request) => {
  const kind = request.config.split;
  if (kind !== "markdown" && kind !== "json" && kind !== "yaml" && kind !== "regex") throw new GeneratorError("assemble: no split kind");
  const spec = { kind, ...typeof request.config.regex === "string" ? { regex: request.config.regex } : {} };
  const file = typeof request.config.file === "string" ? request.config.file : "";
  let source = "";
  if (kind === "json" || kind === "yaml") {
    try {
      source = readFileSync4(path6.resolve(request.cwd, file), "utf8");
    } catch (err) {
      throw new GeneratorError(`assemble: cannot read ${file}: ${err.message}`);
    }
  }
  try {
    return {
      content: assemble(
        spec,
        source,
        (request.dependencies ?? []).map((d) => d.content)
      )
    };
  } catch (err) {
    throw new GeneratorError(`assemble: cannot put ${file} back together: ${err.message}`);
  }
};

// src/generators/command.ts
import {
  closeSync as closeSync3,
  constants as constants4,
  fstatSync as fstatSync2,
  ftruncateSync,
  lstatSync as lstatSync2,
  mkdirSync as mkdirSync5,
  mkdtempSync as mkdtempSync5,
  openSync as openSync3,
  readdirSync as readdirSync5,
  renameSync,
  rmSync as rmSync6,
  unlinkSync,
  writeFileSync as writeFileSync5
} from "node:fs";
import { tmpdir as tmpdir5 } from "node:os";
import path8 from "node:path";

// src/processes/children.ts
import { spawn } from "node:child_process";
import { randomBytes as randomBytes3 } from "node:crypto";
import { closeSync, openSync, readdirSync as readdirSync4, readFileSync as readFileSync5, readlinkSync } from "node:fs";
var KILL_GRACE_MS = 2e3;
var DRAIN_MS = 500;
var GIVE_UP_MS = 6e4;
var MAX_TIMER_MS3 = 2 ** 31 - 1;
var GATE_CLOSED = 125;
var GATE = `IFS= read -r _ || exit ${GATE_CLOSED}; `;
var SANDBOX_GATE = `printf '\\000' >&2; ${GATE}`;
var CLOSE_TRACE_LOG = "exec 3>&-; ";
var COMMAND_ID_VARIABLE = "PAIRFLOW_COMMAND_ID";
var MARK_PREFIX = randomBytes3(8).toString("hex");
var marked = 0;
var GO = Buffer.from("go\n");
var CommandStartError = class extends Error {
  name = "CommandStartError";
};
var live = /* @__PURE__ */ new Map();
var installed = false;
function killAllGroups() {
  for (const group of live.values()) signalGroup(group.pid, "SIGKILL");
  live.clear();
}
function register(group) {
  live.set(group.pid, group);
  if (installed) return;
  installed = true;
  process.on("exit", () => {
    killAllGroups();
    sweepMarked();
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return;
      killAllGroups();
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
function runCommand(options) {
  return new Promise((resolve, reject) => {
    let pid = 0;
    let outputs = [];
    const spawned = {};
    let timer;
    const stdout = [];
    let stdoutBytes = 0;
    const tail2 = new Tail(options.tailBytes);
    let stopped;
    let exited;
    let killTimer;
    let drainTimer;
    let settled = false;
    let closed = false;
    let groupKilled = false;
    const finish = () => {
      if (settled || exited === void 0) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      options.signal.removeEventListener("abort", onAbort);
      if (!groupKilled) signalGroup(pid, "SIGKILL");
      if (!closed) killHolders(outputs);
      spawned.shell?.drop(true);
      live.delete(pid);
      const kept = tail2.bytes();
      const failed = exited.code !== 0 || stopped !== void 0;
      const limit = cgroup?.hit() ?? (failed && options.limits ? limitFromOutput(kept.toString("utf8"), options.sandboxed === true) : void 0);
      if (cgroup) cgroup.dispose();
      else if (mark2 !== void 0) leftBehind(mark2);
      resolve({ stopped, ...limit ? { limit } : {}, code: exited.code, signal: exited.signal, stdout: Buffer.concat(stdout), tail: kept });
    };
    const stop = (why) => {
      if (stopped !== void 0 || settled) return;
      stopped = why;
      signalGroup(pid, "SIGTERM");
      killTimer = setTimeout(() => {
        signalGroup(pid, "SIGKILL");
        killHolders(outputs);
        if (exited === void 0) exited = { code: null, signal: "SIGKILL" };
        finish();
      }, KILL_GRACE_MS);
    };
    const onAbort = () => stop("abort");
    const mark2 = options.sandboxed ? void 0 : `${MARK_PREFIX}${++marked}`;
    const env = mark2 === void 0 ? options.env : { ...options.env, [COMMAND_ID_VARIABLE]: mark2 };
    const awaitReady = options.sandboxed === true;
    let held;
    const script = (options.traceLog !== void 0 ? CLOSE_TRACE_LOG : "") + (options.limits ? rlimitPrefix(options.limits) : "") + (awaitReady ? SANDBOX_GATE : GATE) + options.command;
    const cgroup = options.limits ? commandCgroup(options.limits) : void 0;
    spawned.shell = startShell(shellArgv(script, options.confine, cgroup), options.cwd, env, options.traceLog, {
      started(startedPid, startTime) {
        pid = startedPid;
        const group = { pid, startTime };
        outputs = [1, 2].map((fd) => fdTarget(pid, fd)).filter((t) => t !== void 0);
        register(group);
        try {
          options.onStart?.(group);
        } catch (err) {
          signalGroup(pid, "SIGKILL");
          live.delete(pid);
          settled = true;
          reject(err);
          return null;
        }
        timer = setTimeout(() => stop("timeout"), Math.min(options.timeoutMs, MAX_TIMER_MS3));
        if (options.signal.aborted) onAbort();
        else options.signal.addEventListener("abort", onAbort, { once: true });
        const stdin = options.stdin ?? "";
        const input = Buffer.concat([GO, typeof stdin === "string" ? Buffer.from(stdin, "utf8") : stdin]);
        if (!awaitReady) return input;
        held = input;
        return void 0;
      },
      stdout(chunk) {
        if (settled) return;
        if (!options.collectStdout) return tail2.push(chunk);
        if (options.maxStdoutBytes !== void 0 && stdoutBytes + chunk.length > options.maxStdoutBytes) {
          stdout.length = 0;
          stop("overflow");
          spawned.shell?.drop(false);
          return;
        }
        stdout.push(chunk);
        stdoutBytes += chunk.length;
      },
      stderr(chunk) {
        if (settled) return;
        if (held !== void 0) {
          const ready = chunk[0] === 0;
          spawned.shell?.go(ready ? held : Buffer.alloc(0));
          held = void 0;
          if (ready) chunk = chunk.subarray(1);
        }
        if (chunk.length > 0) tail2.push(chunk);
      },
      exit(code, signal) {
        if (settled) return;
        exited = { code, signal };
        signalGroup(pid, "SIGKILL");
        groupKilled = true;
        drainTimer = setTimeout(() => {
          killHolders(outputs);
          drainTimer = setTimeout(finish, GIVE_UP_MS);
        }, DRAIN_MS);
      },
      close(code, signal) {
        closed = true;
        if (exited === void 0) exited = { code, signal };
        finish();
      },
      error(err) {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(killTimer);
        clearTimeout(drainTimer);
        options.signal.removeEventListener("abort", onAbort);
        if (pid !== 0) {
          signalGroup(pid, "SIGKILL");
          live.delete(pid);
        }
        cgroup?.dispose();
        reject(new CommandStartError(pid === 0 ? `could not start /bin/sh in ${options.cwd}: ${err.message}` : `${err.message}; the command was stopped`));
      }
    });
  });
}
function stopLauncher() {
  sweepMarked();
  return Launcher.stop();
}
function startShell(argv, cwd, env, traceLog, events) {
  const launcher = ++shellsStarted > LAUNCH_AFTER ? Launcher.get() : void 0;
  return launcher ? launcher.start(argv, cwd, env, traceLog, events) : startHere(argv, cwd, env, traceLog, events);
}
function shellArgv(script, confine, cgroup) {
  if (cgroup === void 0) return [...confine ?? [], "/bin/sh", "-c", script];
  const join = `{ ${cgroup.procs.map((procs) => `echo $$ > '${procs.replaceAll("'", `'\\''`)}'`).join(" && ")}; } 2>/dev/null; `;
  if (confine === void 0) return ["/bin/sh", "-c", join + script];
  return ["/bin/sh", "-c", `${join}exec "$@"`, "pairflow-cgroup", ...confine, "/bin/sh", "-c", script];
}
var LAUNCH_AFTER = 32;
var shellsStarted = 0;
function prepareLauncher(commands) {
  if (commands <= LAUNCH_AFTER || Launcher.get() === void 0) return;
  shellsStarted = Math.max(shellsStarted, LAUNCH_AFTER);
}
function startHere(argv, cwd, env, traceLog, events) {
  let log;
  let child;
  try {
    if (traceLog !== void 0) log = openSync(traceLog, "wx", 384);
    child = spawn(argv[0], argv.slice(1), { cwd, env, detached: true, stdio: log === void 0 ? "pipe" : ["pipe", "pipe", "pipe", log] });
  } catch (err) {
    queueMicrotask(() => events.error(err));
    return { drop() {
    }, go() {
    } };
  } finally {
    if (log !== void 0) closeSync(log);
  }
  if (child.pid === void 0) {
    child.once("error", (err) => events.error(err));
    return { drop() {
    }, go() {
    } };
  }
  const drop = (all) => {
    child.stdout.destroy();
    if (all) child.stderr.destroy();
  };
  const input = events.started(child.pid, startTimeOf(child.pid) ?? "");
  if (input === null) {
    child.stdin.destroy();
    drop(true);
    return { drop() {
    }, go() {
    } };
  }
  child.stdout.on("data", (chunk) => events.stdout(chunk));
  child.stderr.on("data", (chunk) => events.stderr(chunk));
  child.stdin.on("error", () => {
  });
  const go = (stdin) => child.stdin.end(stdin);
  if (input !== void 0) go(input);
  child.on("exit", (code, signal) => events.exit(code, signal));
  child.on("close", () => events.close(child.exitCode, child.signalCode));
  child.on("error", (err) => events.error(err));
  return { drop, go };
}
var LAUNCHER = String.raw`"use strict";
const { spawn } = require("node:child_process");
const { closeSync, openSync, readFileSync } = require("node:fs");
const shells = new Map();
let base = {};
const envOf = (e) => {
  if (e.whole) return (base = e.whole);
  const env = { ...base, ...e.set };
  for (const k of e.unset) delete env[k];
  return env;
};
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, () => {});
process.on("disconnect", () => process.exit(0));
const send = (m) => { if (process.connected) process.send(m); };
const startTime = (pid) => {
  try {
    const t = readFileSync("/proc/" + pid + "/stat", "utf8");
    return t.slice(t.lastIndexOf(")") + 2).split(" ")[19] || "";
  } catch { return ""; }
};
process.on("message", (m) => {
  const id = m.id;
  if (m.t === "spawn") {
    let child, log;
    try {
      if (m.log !== undefined) log = openSync(m.log, "wx", 0o600);
      child = spawn(m.argv[0], m.argv.slice(1), { cwd: m.cwd, env: envOf(m.env), detached: true, stdio: log === undefined ? "pipe" : ["pipe", "pipe", "pipe", log] });
    } catch (err) { return send({ t: "error", id, message: String(err && err.message) }); }
    finally { if (log !== undefined) closeSync(log); }
    if (child.pid === undefined) return child.once("error", (err) => send({ t: "error", id, message: err.message }));
    shells.set(id, child);
    child.stdin.on("error", () => {});
    child.stdout.on("data", (d) => send({ t: "out", id, d }));
    child.stderr.on("data", (d) => send({ t: "err", id, d }));
    child.on("error", (err) => send({ t: "error", id, message: err.message }));
    child.on("exit", (code, signal) => send({ t: "exit", id, code, signal }));
    child.on("close", () => { shells.delete(id); send({ t: "close", id, code: child.exitCode, signal: child.signalCode }); });
    send({ t: "started", id, pid: child.pid, startTime: startTime(child.pid) });
  } else if (m.t === "go") {
    shells.get(id)?.stdin.end(m.stdin);
  } else if (m.t === "drop") {
    const child = shells.get(id);
    if (!child) return;
    child.stdout.destroy();
    if (m.all) { child.stdin.destroy(); child.stderr.destroy(); }
  }
});
`;
var Launcher = class _Launcher {
  constructor(process2) {
    this.process = process2;
  }
  process;
  static current;
  /** The launcher could not be started once: shells are started here from then on. */
  static unavailable = false;
  static hooked = false;
  shells = /* @__PURE__ */ new Map();
  next = 1;
  /** The first environment it was sent, whole: the next ones are sent as what differs from it. */
  base;
  /**
   * Ends the launcher, if no shell of its is out, and waits until it is gone, so that pairflow
   * reaps it rather than leaving it to whatever adopts orphans. The next command starts a new one.
   */
  static async stop() {
    const launcher = _Launcher.current;
    if (!launcher || launcher.shells.size > 0) return;
    _Launcher.current = void 0;
    const child = launcher.process;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once("exit", () => resolve()));
    child.ref();
    child.disconnect();
    const timer = setTimeout(() => child.kill("SIGKILL"), 2e3);
    await gone;
    clearTimeout(timer);
  }
  static get() {
    if (_Launcher.current || _Launcher.unavailable) return _Launcher.current;
    let child;
    try {
      child = spawn(process.execPath, ["-e", LAUNCHER], { env: {}, stdio: ["ignore", "ignore", "inherit", "ipc"], serialization: "advanced" });
    } catch {
      child = void 0;
    }
    if (child?.pid === void 0) {
      child?.once("error", () => {
      });
      _Launcher.unavailable = true;
      return void 0;
    }
    const launcher = new _Launcher(child);
    _Launcher.current = launcher;
    if (!_Launcher.hooked) {
      _Launcher.hooked = true;
      process.on("exit", () => _Launcher.current?.process.kill("SIGKILL"));
    }
    child.on("message", (m) => launcher.receive(m));
    child.on("error", () => launcher.lost());
    child.on("exit", () => launcher.lost());
    launcher.idle();
    return launcher;
  }
  start(argv, cwd, env, log, events) {
    const id = this.next++;
    if (this.shells.size === 0) this.busy();
    this.shells.set(id, events);
    this.send({ t: "spawn", id, argv, cwd, env: this.envMessage(env), log });
    return {
      drop: (all) => this.shells.has(id) && this.send({ t: "drop", id, all }),
      go: (stdin) => this.shells.has(id) && this.send({ t: "go", id, stdin })
    };
  }
  /**
   * A command's environment, told as what differs from the first one sent: the commands of a run
   * share all but a few variables, and the whole of a CI job's environment was most of every
   * message. Null-prototype, so that a variable named `__proto__` is a key like any other.
   */
  envMessage(env) {
    const base = this.base;
    if (base === void 0) {
      this.base = env;
      return { whole: env };
    }
    const set = /* @__PURE__ */ Object.create(null);
    for (const key of Object.keys(env)) if (env[key] !== base[key]) set[key] = env[key];
    const unset = Object.keys(base).filter((key) => !Object.hasOwn(env, key));
    return { set, unset };
  }
  receive(m) {
    const events = this.shells.get(m.id);
    if (!events) return;
    switch (m.t) {
      case "started": {
        const input = events.started(m.pid, m.startTime);
        if (input !== void 0) this.send(input === null ? { t: "drop", id: m.id, all: true } : { t: "go", id: m.id, stdin: input });
        return;
      }
      case "out":
        return events.stdout(Buffer.from(m.d.buffer, m.d.byteOffset, m.d.byteLength));
      case "err":
        return events.stderr(Buffer.from(m.d.buffer, m.d.byteOffset, m.d.byteLength));
      case "exit":
        return events.exit(m.code, m.signal);
      case "close":
        this.forget(m.id);
        return events.close(m.code, m.signal);
      case "error":
        this.forget(m.id);
        return events.error(new Error(m.message));
    }
  }
  send(message) {
    try {
      this.process.send(message);
    } catch {
    }
  }
  forget(id) {
    this.shells.delete(id);
    if (this.shells.size === 0) this.idle();
  }
  /** Gone (it crashed, or was killed): every shell it had is lost, the next is started by a new one. */
  lost() {
    if (_Launcher.current === this) _Launcher.current = void 0;
    const shells = [...this.shells.values()];
    this.shells.clear();
    for (const events of shells) events.error(new Error("the process that starts pairflow's commands ended"));
  }
  /** Keeps pairflow running while a shell is out: its messages are all there is to wait for. */
  busy() {
    this.process.ref();
    this.process.channel?.ref();
  }
  /** Lets pairflow end with no shell out; the launcher then ends with it. */
  idle() {
    this.process.unref();
    this.process.channel?.unref();
  }
};
var Tail = class {
  constructor(keep) {
    this.keep = keep;
  }
  keep;
  chunks = [];
  size = 0;
  push(chunk) {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0].length >= this.keep) this.size -= this.chunks.shift().length;
  }
  bytes() {
    const all = Buffer.concat(this.chunks);
    return all.length > this.keep ? all.subarray(all.length - this.keep) : all;
  }
};
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
  }
}
function statOf(pid) {
  let text;
  try {
    text = readFileSync5(`/proc/${pid}/stat`, "utf8");
  } catch {
    return void 0;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], pgrp: Number(fields[2]), session: Number(fields[3]), startTime: fields[19] };
}
function startTimeOf(pid) {
  return statOf(pid)?.startTime;
}
function fdTarget(pid, fd) {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return void 0;
  }
}
function processIds() {
  try {
    return readdirSync4("/proc").filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return [];
  }
}
var marks = /* @__PURE__ */ new Set();
var sweep;
var SWEEP_MS = 50;
function leftBehind(mark2) {
  marks.add(mark2);
  if (sweep === void 0) {
    sweep = setTimeout(sweepMarked, SWEEP_MS);
    sweep.unref();
  }
}
function sweepMarked() {
  clearTimeout(sweep);
  sweep = void 0;
  if (marks.size === 0) return;
  const needles = [...marks].map((mark2) => Buffer.from(`${COMMAND_ID_VARIABLE}=${mark2}\0`));
  marks.clear();
  for (const pid of processIds()) {
    if (pid === process.pid) continue;
    let environ;
    try {
      environ = readFileSync5(`/proc/${pid}/environ`);
    } catch {
      continue;
    }
    if (needles.some((needle) => environ.includes(needle))) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
      }
    }
  }
}
function killHolders(targets) {
  if (targets.length === 0) return;
  for (const pid of processIds()) {
    if (pid === process.pid) continue;
    let fds;
    try {
      fds = readdirSync4(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    if (fds.some((fd) => targets.includes(fdTarget(pid, Number(fd)) ?? ""))) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
      }
    }
  }
}
async function killRecordedGroups(groups) {
  const known = groups.filter((g) => g.startTime !== "" && /^\d+$/.test(g.startTime) && Number.isInteger(g.pid) && g.pid > 1);
  if (known.length === 0) return [];
  const members2 = () => {
    const found = /* @__PURE__ */ new Map();
    const leaderless = [];
    for (const group of known) {
      const leader = statOf(group.pid);
      if (leader && leader.state !== "Z" && leader.startTime === group.startTime) found.set(group, [group.pid]);
      else if (!leader || leader.startTime === group.startTime) leaderless.push(group);
    }
    if (leaderless.length > 0) {
      for (const pid of processIds()) {
        const s = statOf(pid);
        if (s === void 0 || s.state === "Z") continue;
        const group = leaderless.find((g) => s.pgrp === g.pid && s.session === g.pid && BigInt(s.startTime) >= BigInt(g.startTime));
        if (group) found.set(group, [...found.get(group) ?? [], pid]);
      }
    }
    return found;
  };
  let left = members2();
  const killed = [...left.keys()];
  for (let round = 0; left.size > 0 && round < 100; round++) {
    for (const [group, pids] of left) {
      if (pids.includes(group.pid)) signalGroup(group.pid, "SIGKILL");
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
    left = members2();
  }
  return killed;
}

// src/processes/trace.ts
import { spawnSync as spawnSync2 } from "node:child_process";
import { closeSync as closeSync2, constants as constants3, fstatSync, mkdtempSync as mkdtempSync4, openSync as openSync2, readSync, rmSync as rmSync5 } from "node:fs";
import { tmpdir as tmpdir4 } from "node:os";
import path7 from "node:path";
var TRACE_FD = "/dev/fd/3";
var MAX_TRACE_BYTES = 64 * 1024 * 1024;
function straceArguments(seccomp = true) {
  return ["-f", "-qq", "-y", ...seccomp ? ["--seccomp-bpf"] : [], "-e", "signal=none", "-e", "trace=?open,openat,?openat2,execve", "-o", TRACE_FD];
}
var probes2 = /* @__PURE__ */ new Map();
var STRACE_VARIABLE = "PAIRFLOW_STRACE";
function probeTracer(env, sandbox) {
  const given = env[STRACE_VARIABLE];
  const key = `${given ?? ""}\0${sandbox?.name ?? ""}`;
  let probe = probes2.get(key);
  if (!probe) {
    probe = probeNow2(given, sandbox);
    probes2.set(key, probe);
  }
  return probe;
}
function probeNow2(given, sandbox) {
  const strace = systemProgram("strace", given);
  if (strace === void 0) {
    return {
      available: false,
      reason: given ? `strace is not installed at ${given} (${STRACE_VARIABLE})` : "strace is not installed (on Ubuntu: apt-get install strace)"
    };
  }
  const dir = mkdtempSync4(path7.join(tmpdir4(), "pairflow-trace-"));
  try {
    const confine = sandbox?.confine({ cwd: "/", readable: [], network: false }) ?? [];
    let said = "";
    for (const seccomp of [true, false]) {
      const log = openSync2(path7.join(dir, `probe-${seccomp}.log`), "wx", 384);
      try {
        const argv = [...confine, strace, ...straceArguments(seccomp), "/bin/sh", "-c", "exec 3>&-; exit 0"];
        const r = spawnSync2(argv[0], argv.slice(1), { cwd: "/", encoding: "utf8", timeout: 1e4, env: {}, stdio: ["ignore", "pipe", "pipe", log] });
        if (r.error) return { available: false, reason: `strace could not be started: ${r.error.message}` };
        if (r.status === 0 && r.stderr.trim() === "") return { available: true, tracer: { argv: () => [strace, ...straceArguments(seccomp)] } };
        said ||= (r.stderr || r.stdout).trim().split("\n")[0] ?? "";
      } finally {
        closeSync2(log);
      }
    }
    return { available: false, reason: `strace cannot trace commands here${said ? ` (${said})` : ""}` };
  } finally {
    rmSync5(dir, { recursive: true, force: true });
  }
}
async function startCommand(setup, command, run) {
  const { sandbox, trace, limits } = setup;
  const confine = sandbox?.confine(limits ? { ...command, tmpBytes: limits.tmpBytes } : command);
  const base = { sandboxed: sandbox !== void 0, ...limits ? { limits } : {} };
  if (trace === void 0) return run({ ...base, ...confine ? { confine } : {} });
  const dir = mkdtempSync4(path7.join(tmpdir4(), "pairflow-trace-"));
  try {
    const log = path7.join(dir, "trace.log");
    const result = await run({ ...base, confine: [...confine ?? [], ...trace.argv()], traceLog: log });
    trace.read(readsOf(log, command.cwd).filter((file) => !command.readable.some((mine) => file === mine || isInside(mine, file))));
    return result;
  } finally {
    rmSync5(dir, { recursive: true, force: true });
  }
}
function readsOf(log, cwd) {
  return parseTrace(readBounded(log), cwd);
}
function readBounded(file) {
  let fd;
  try {
    fd = openSync2(file, constants3.O_RDONLY | constants3.O_NOFOLLOW | constants3.O_NONBLOCK);
  } catch {
    return "";
  }
  try {
    if (!fstatSync(fd).isFile()) return "";
    const chunks2 = [];
    let total = 0;
    const buffer = Buffer.alloc(1024 * 1024);
    for (let n; total < MAX_TRACE_BYTES && (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; total += n) chunks2.push(Buffer.from(buffer.subarray(0, n)));
    return Buffer.concat(chunks2).toString("latin1");
  } finally {
    closeSync2(fd);
  }
}
var CALL = /^(\d+)\s+(open|openat|openat2|execve)\((.*)$/;
var RESUMED = /^(\d+)\s+<\.\.\. (?:open|openat|openat2|execve) resumed>(.*)$/;
function parseTrace(text, cwd) {
  const read2 = /* @__PURE__ */ new Set();
  const written = /* @__PURE__ */ new Set();
  const cwds = /* @__PURE__ */ new Map();
  const executed = [];
  const pending2 = /* @__PURE__ */ new Map();
  for (const raw of text.split("\n")) {
    let line = raw;
    const resumed = RESUMED.exec(line);
    if (resumed) {
      const start = pending2.get(resumed[1]);
      if (start === void 0) continue;
      pending2.delete(resumed[1]);
      line = start + resumed[2];
    }
    const call = CALL.exec(line);
    if (!call) continue;
    const [, pid, name, rest] = call;
    const unfinished = rest.lastIndexOf(" <unfinished ...>");
    if (unfinished !== -1 && !resumed) {
      pending2.set(pid, line.slice(0, line.lastIndexOf(" <unfinished ...>")));
      continue;
    }
    const scan = new Scanner(rest);
    if (name === "execve") {
      const program = scan.string();
      if (program !== void 0 && scan.result() === "0") executed.push([pid, program]);
      continue;
    }
    if (name !== "open") {
      const dirfd = scan.descriptor();
      if (dirfd?.at === "AT_FDCWD" && dirfd.path !== void 0) cwds.set(pid, dirfd.path);
      scan.comma();
    }
    if (scan.string() === void 0) continue;
    scan.comma();
    const flags = scan.until(",)");
    const opened = scan.openedPath();
    if (opened === void 0) continue;
    if (opened === "" || flags.includes("O_DIRECTORY")) continue;
    const writes = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC/.test(flags) || flags.includes("O_ACCMODE");
    (writes ? written : read2).add(opened);
  }
  for (const [pid, program] of executed) read2.add(path7.resolve(cwds.get(pid) ?? cwd, program));
  return [...read2].filter((file) => !written.has(file) && !file.endsWith(" (deleted)"));
}
var Scanner = class {
  constructor(text) {
    this.text = text;
  }
  text;
  i = 0;
  /** A quoted C string, decoded; undefined when none is here. */
  string() {
    this.space();
    if (this.text[this.i] !== '"') return void 0;
    const bytes = [];
    for (this.i++; this.i < this.text.length; ) {
      const c = this.text[this.i];
      if (c === '"') {
        this.i++;
        if (this.text.startsWith("...", this.i)) return void 0;
        return nameText(Buffer.from(bytes));
      }
      this.i = c === "\\" ? unescape(this.text, this.i, bytes) : (bytes.push(c.charCodeAt(0)), this.i + 1);
    }
    return void 0;
  }
  /** A descriptor as -y prints it: `AT_FDCWD</dir>` or `3</path>`. */
  descriptor() {
    this.space();
    const open = this.text.indexOf("<", this.i);
    const comma = this.text.indexOf(",", this.i);
    if (open === -1 || comma !== -1 && comma < open) {
      const at2 = this.until(",");
      return at2 === "" ? void 0 : { at: at2 };
    }
    const at = this.text.slice(this.i, open);
    this.i = open;
    return { at, path: this.bracketed() };
  }
  /** `<...>` from here: a path with `<`, `>` and other special bytes escaped. */
  bracketed() {
    if (this.text[this.i] !== "<") return void 0;
    const bytes = [];
    for (this.i++; this.i < this.text.length; ) {
      const c = this.text[this.i];
      if (c === ">") {
        this.i++;
        return nameText(Buffer.from(bytes));
      }
      this.i = c === "\\" ? unescape(this.text, this.i, bytes) : (bytes.push(c.charCodeAt(0)), this.i + 1);
    }
    return void 0;
  }
  comma() {
    this.space();
    if (this.text[this.i] === ",") this.i++;
  }
  until(stops) {
    const start = this.i;
    while (this.i < this.text.length && !stops.includes(this.text[this.i])) this.i++;
    return this.text.slice(start, this.i).trim();
  }
  /**
   * The value after `) = ` (strace pads short calls, resumed ones above all, with spaces before the
   * `=` to align it): for execve, its number; undefined when the call failed.
   */
  result() {
    const at = [...this.text.matchAll(/\) +=(?= )/g)].pop();
    if (at === void 0) return void 0;
    const value = this.text.slice(at.index + at[0].length).trim();
    return value.startsWith("-1") || value.startsWith("?") ? void 0 : value.split(" ")[0];
  }
  /** The path of the descriptor an open returned (`) = 3</abs/path>`, the `=` maybe padded), undefined when it failed. */
  openedPath() {
    const match = /\) += \d+</.exec(this.text.slice(this.i));
    if (!match) return void 0;
    this.i += match.index + match[0].length - 1;
    return this.bracketed();
  }
  space() {
    while (this.text[this.i] === " ") this.i++;
  }
};
var C_ESCAPES = { n: 10, t: 9, r: 13, v: 11, f: 12, a: 7, b: 8, "\\": 92, '"': 34, "'": 39 };
function unescape(text, i, bytes) {
  const next = text[i + 1] ?? "";
  const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))?.[0];
  if (octal !== void 0) {
    bytes.push(parseInt(octal, 8) & 255);
    return i + 1 + octal.length;
  }
  if (next === "x" && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 2, i + 4))) {
    bytes.push(parseInt(text.slice(i + 2, i + 4), 16));
    return i + 4;
  }
  bytes.push(C_ESCAPES[next] ?? next.charCodeAt(0));
  return i + 2;
}

// src/generators/command.ts
var DEFAULT_TIMEOUT_SECONDS = 600;
var STDERR_KEEP_BYTES = 64 * 1024;
var TAIL_LINES = 20;
var TAIL_CHARS = 2e3;
var commandGenerator = async (request) => {
  const run = request.config.run;
  if (typeof run !== "string" || run.trim() === "") {
    throw new GeneratorError("command: set generator_config.run to the shell command that prints the artifact");
  }
  const timeout = request.config.timeout ?? DEFAULT_TIMEOUT_SECONDS;
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) {
    throw new GeneratorError("command: generator_config.timeout must be a number of seconds > 0");
  }
  const env = request.config.env ?? {};
  if (typeof env !== "object" || env === null || Array.isArray(env) || !Object.values(env).every((v) => typeof v === "string")) {
    throw new GeneratorError("command: generator_config.env must map variable names to strings");
  }
  if (request.config.network !== void 0 && typeof request.config.network !== "boolean") {
    throw new GeneratorError("command: generator_config.network must be true or false");
  }
  if (request.signal.aborted) throw new GeneratorError("command: cancelled");
  const own = takePromptDir();
  const placed = [];
  try {
    placed.push(place(own.promptFile, request.prompt));
    for (const dep of request.dependencies ?? []) placed.push(place(path8.join(own.dependencies, dependencyFileName(dep.id)), dep.content));
    return await generate(run, timeout, own.promptFile, { ...env, PAIRFLOW_DEPENDENCIES_DIR: own.dependencies }, request);
  } finally {
    givePromptDirBack(own, placed);
  }
};
var idle2 = [];
var MAX_IDLE_DIRS = 64;
var exitHook2 = false;
var spareDir;
var spares = [];
var MAX_SPARES = 256;
var spareNames = 0;
function onExit() {
  if (exitHook2) return;
  exitHook2 = true;
  process.on("exit", () => {
    for (const left of idle2.splice(0)) rmSync6(left.dir, { recursive: true, force: true });
    if (spareDir !== void 0) rmSync6(spareDir, { recursive: true, force: true });
  });
}
function takePromptDir() {
  const kept = idle2.pop();
  if (kept) return kept;
  const dir = mkdtempSync5(path8.join(tmpdir5(), "pairflow-prompt-"));
  const dependencies = path8.join(dir, "dependencies");
  try {
    mkdirSync5(dependencies, { mode: 448 });
  } catch (err) {
    removeInBackground(dir);
    throw err;
  }
  onExit();
  return { dir, promptFile: path8.join(dir, "prompt.txt"), dependencies };
}
function place(target, content) {
  for (; ; ) {
    const kept = spares.pop();
    let spare;
    let fd;
    if (kept) {
      try {
        fd = openSync3(kept.file, constants4.O_WRONLY | constants4.O_NOFOLLOW);
      } catch {
        rmSync6(kept.file, { recursive: true, force: true });
        continue;
      }
      spare = kept;
    } else {
      if (spareDir === void 0) {
        spareDir = mkdtempSync5(path8.join(tmpdir5(), "pairflow-spare-"));
        onExit();
      }
      const file = path8.join(spareDir, String(++spareNames));
      fd = openSync3(file, constants4.O_WRONLY | constants4.O_CREAT | constants4.O_EXCL | constants4.O_NOFOLLOW, 384);
      spare = { file, ino: 0 };
    }
    try {
      const stat = fstatSync2(fd);
      if (kept && (!stat.isFile() || stat.ino !== kept.ino || stat.nlink !== 1)) {
        rmSync6(kept.file, { force: true });
        continue;
      }
      spare.ino = stat.ino;
      const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
      writeFileSync5(fd, bytes);
      ftruncateSync(fd, bytes.length);
    } finally {
      closeSync3(fd);
    }
    renameSync(spare.file, target);
    return { target, spare };
  }
}
function givePromptDirBack(own, placed) {
  try {
    for (const { target, spare } of placed) {
      const stat = lstatSync2(target, { throwIfNoEntry: false });
      if (stat === void 0 || stat.ino !== spare.ino) continue;
      if (stat.isFile() && stat.nlink === 1 && spares.length < MAX_SPARES) {
        renameSync(target, spare.file);
        spares.push(spare);
      } else unlinkSync(target);
    }
    const top = readdirSync5(own.dir, { withFileTypes: true });
    const clean = top.length === 1 && top[0].name === "dependencies" && top[0].isDirectory() && readdirSync5(own.dependencies).length === 0 && idle2.length < MAX_IDLE_DIRS;
    if (clean) {
      idle2.push(own);
      return;
    }
  } catch {
  }
  removeInBackground(own.dir);
}
function dependencyFileName(id) {
  const name = [...id].map((c) => /^[A-Za-z0-9_.-]$/.test(c) ? c : [...Buffer.from(c, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("")).join("");
  return name === "." || name === ".." ? name.replaceAll(".", "%2E") : boundedKey(name, id);
}
async function generate(run, timeoutSeconds, promptFile, env, request) {
  const seconds2 = Math.min(timeoutSeconds, request.limits?.timeSeconds ?? Infinity);
  let outcome;
  try {
    const own = { cwd: request.cwd, readable: [path8.dirname(promptFile)], network: request.config.network !== false };
    outcome = await startCommand(
      request,
      own,
      (start) => runCommand({
        command: run,
        cwd: request.cwd,
        // generator_config.env is part of the pair's reference; pairflow's own variables come last.
        env: {
          ...request.env,
          ...env,
          PAIRFLOW_PAIR: request.pairId,
          PAIRFLOW_ATTEMPT: String(request.attempt),
          PAIRFLOW_MODEL: request.model ?? "",
          PAIRFLOW_PROMPT_FILE: promptFile
        },
        stdin: request.prompt,
        timeoutMs: seconds2 * 1e3,
        signal: request.signal,
        collectStdout: true,
        maxStdoutBytes: request.maxOutputBytes,
        tailBytes: STDERR_KEEP_BYTES,
        onStart: request.onProcess,
        ...start
      })
    );
  } catch (err) {
    if (err instanceof CommandStartError) throw new GeneratorError(`command: ${err.message}`);
    throw err;
  }
  const tail2 = stderrTail(outcome.tail.toString("utf8"));
  const withTail = (reason) => new GeneratorError(`command: ${reason}${tail2 ? `; stderr:
${tail2}` : ""}`);
  if (outcome.limit && request.limits) throw withTail(limitMessage(outcome.limit, request.limits));
  if (outcome.stopped === "overflow")
    throw withTail(`${request.pairId} printed more than the output limit of ${formatBytes(request.maxOutputBytes)} (max_output_bytes) and was stopped`);
  if (outcome.stopped === "timeout") throw withTail(`timed out after ${seconds2}s`);
  if (outcome.stopped === "abort") throw withTail("cancelled");
  if (outcome.code === 0) return { content: outcome.stdout, ...tail2 ? { stderr: tail2 } : {} };
  if (outcome.code !== null) throw withTail(`exited with code ${outcome.code}`);
  throw withTail(`killed by ${outcome.signal}`);
}
function stderrTail(stderr) {
  const tail2 = stderr.trimEnd().split("\n").slice(-TAIL_LINES).join("\n");
  return tail2.length > TAIL_CHARS ? `\u2026${tail2.slice(-TAIL_CHARS)}` : tail2;
}

// src/generators/index.ts
var GENERATORS = {
  anthropic: anthropicGenerator,
  command: commandGenerator,
  openai: openaiGenerator
};
function getGenerator(name) {
  if (name !== null && Object.hasOwn(GENERATORS, name)) return GENERATORS[name];
  if (name === ASSEMBLE) return assembleGenerator;
  const known = Object.keys(GENERATORS).sort();
  const have = `pairflow has: ${known.join(", ")}`;
  if (name === null) {
    throw new GeneratorError(`no generator set; set "generator" on the pair or the workflow (${have})`);
  }
  const guess = didYouMean(name, known);
  throw new GeneratorError(`unknown generator "${name}"${guess ? ` (did you mean "${guess}"?)` : ""}; ${have}`);
}

// src/generators/batch.ts
import { randomBytes as randomBytes4 } from "node:crypto";
import { setTimeout as sleep3 } from "node:timers/promises";

// src/generators/batchApi.ts
var BATCH_LIMITS = {
  openai: { requests: 5e4, bytes: 190 * 2 ** 20 },
  anthropic: { requests: 1e5, bytes: 240 * 2 ** 20 }
};
function batchApi(call) {
  return call.provider === "openai" ? openaiBatches(call) : anthropicBatches(call);
}
function sender(call) {
  const { settings } = call;
  return (method, url, options) => httpCall({
    provider: call.provider,
    method,
    url,
    headers: call.headers,
    timeoutSeconds: settings.timeoutSeconds,
    retries: settings.retries,
    secrets: call.secrets,
    baseDelayMs: settings.baseDelayMs,
    authHint: call.authHint,
    ...options
  });
}
function openaiBatches(call) {
  if (call.apiVersion !== void 0) {
    throw new GeneratorError("openai: batch is not supported for Azure OpenAI (generator_config.api_version) yet; remove batch: true for this pair");
  }
  const base = call.settings.baseUrl;
  const send = sender(call);
  const text = (value) => typeof value === "string" ? value : "";
  return {
    async submit(requests, key, onFile, signal) {
      const jsonl = requests.map((r) => JSON.stringify({ custom_id: r.customId, method: "POST", url: "/v1/chat/completions", body: r.body }) + "\n").join("");
      const form = { fields: { purpose: "batch" }, file: { field: "file", name: `pairflow-${key}.jsonl`, type: "application/jsonl", content: jsonl } };
      const file = text(field(await send("POST", `${base}/files`, { form, signal }), "id"));
      if (file === "") throw new GeneratorError("openai: the file upload's answer has no id");
      onFile(file);
      const batch = await send("POST", `${base}/batches`, {
        body: { input_file_id: file, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { pairflow: key } },
        retryUnanswered: false,
        signal
      });
      const id = text(field(batch, "id"));
      if (id === "") throw new GeneratorError("openai: the batch's answer has no id");
      return id;
    },
    async status(id, signal) {
      const batch = await send("GET", `${base}/batches/${encodeURIComponent(id)}`, { signal });
      const status = text(field(batch, "status"));
      const total = num(field(batch, "request_counts", "total"));
      const completed = num(field(batch, "request_counts", "completed"));
      const failed = num(field(batch, "request_counts", "failed"));
      const ended = ["completed", "failed", "expired", "cancelled"].includes(status);
      const errors = field(batch, "errors", "data");
      const problem = Array.isArray(errors) ? errors.map((e) => text(field(e, "message"))).filter(Boolean).join("; ") : "";
      const rest = Math.max(0, total - completed - failed);
      return {
        ended,
        status,
        counts: {
          processing: ended ? 0 : rest,
          succeeded: completed,
          errored: failed,
          expired: status === "expired" ? rest : 0,
          canceled: status === "cancelled" ? rest : 0
        },
        ...problem ? { problem } : {},
        outputs: [text(field(batch, "output_file_id")), text(field(batch, "error_file_id"))].filter(Boolean)
      };
    },
    async results(_id, status, signal) {
      const outcomes = /* @__PURE__ */ new Map();
      for (const file of status.outputs) {
        const jsonl = await send("GET", `${base}/files/${encodeURIComponent(file)}/content`, { as: "text", signal });
        for (const line of lines(jsonl)) {
          const customId = field(line, "custom_id");
          if (typeof customId !== "string") continue;
          const code = field(line, "response", "status_code");
          const body = field(line, "response", "body");
          const errorCode = text(field(line, "error", "code"));
          const message = text(field(line, "error", "message")) || text(field(body, "error", "message")) || `HTTP ${String(code)}`;
          if (code === 200 && body !== void 0) outcomes.set(customId, { kind: "succeeded", body });
          else if (errorCode === "batch_expired") outcomes.set(customId, { kind: "expired", message });
          else if (errorCode === "batch_cancelled") outcomes.set(customId, { kind: "canceled", message });
          else outcomes.set(customId, { kind: "errored", message });
        }
      }
      return outcomes;
    },
    async cancel(id, signal) {
      await send("POST", `${base}/batches/${encodeURIComponent(id)}/cancel`, { signal });
    },
    async find(key, since, _count, signal) {
      const after = Date.parse(since) / 1e3 - 300;
      let cursor;
      for (let page = 0; page < 10; page++) {
        const list = await send("GET", `${base}/batches?limit=100${cursor ? `&after=${encodeURIComponent(cursor)}` : ""}`, { signal });
        const data = field(list, "data");
        if (!Array.isArray(data) || data.length === 0) return void 0;
        for (const b of data) if (field(b, "metadata", "pairflow") === key) return text(field(b, "id")) || void 0;
        if (data.every((b) => num(field(b, "created_at")) < after) || field(list, "has_more") !== true) return void 0;
        cursor = text(field(data[data.length - 1], "id"));
      }
      return void 0;
    }
  };
}
function anthropicBatches(call) {
  const base = call.settings.baseUrl;
  const send = sender(call);
  const text = (value) => typeof value === "string" ? value : "";
  return {
    async submit(requests, _key, _onFile, signal) {
      const batch = await send("POST", `${base}/v1/messages/batches`, {
        body: { requests: requests.map((r) => ({ custom_id: r.customId, params: r.body })) },
        retryUnanswered: false,
        signal
      });
      const id = text(field(batch, "id"));
      if (id === "") throw new GeneratorError("anthropic: the batch's answer has no id");
      return id;
    },
    async status(id, signal) {
      const batch = await send("GET", `${base}/v1/messages/batches/${encodeURIComponent(id)}`, { signal });
      const c = (name) => num(field(batch, "request_counts", name));
      const status = text(field(batch, "processing_status"));
      const url = text(field(batch, "results_url"));
      const own = url !== "" && sameOrigin(url, base) ? url : `${base}/v1/messages/batches/${encodeURIComponent(id)}/results`;
      return {
        ended: status === "ended",
        status,
        counts: { processing: c("processing"), succeeded: c("succeeded"), errored: c("errored"), expired: c("expired"), canceled: c("canceled") },
        outputs: [own]
      };
    },
    async results(_id, status, signal) {
      const outcomes = /* @__PURE__ */ new Map();
      const jsonl = await send("GET", status.outputs[0], { as: "text", signal });
      for (const line of lines(jsonl)) {
        const customId = field(line, "custom_id");
        if (typeof customId !== "string") continue;
        const type = field(line, "result", "type");
        if (type === "succeeded") outcomes.set(customId, { kind: "succeeded", body: field(line, "result", "message") });
        else if (type === "expired" || type === "canceled") outcomes.set(customId, { kind: type, message: type });
        else {
          const message = text(field(line, "result", "error", "error", "message")) || text(field(line, "result", "error", "message")) || "errored";
          outcomes.set(customId, { kind: "errored", message });
        }
      }
      return outcomes;
    },
    async cancel(id, signal) {
      await send("POST", `${base}/v1/messages/batches/${encodeURIComponent(id)}/cancel`, { signal });
    },
    // Anthropic keeps no metadata on a batch: one created since the submission began with as many
    // requests is taken, and its results' custom_ids (which start with the key) confirm it.
    async find(_key, since, count3, signal) {
      const after = Date.parse(since) - 3e5;
      let cursor;
      for (let page = 0; page < 10; page++) {
        const list = await send("GET", `${base}/v1/messages/batches?limit=100${cursor ? `&after_id=${encodeURIComponent(cursor)}` : ""}`, { signal });
        const data = field(list, "data");
        if (!Array.isArray(data) || data.length === 0) return void 0;
        const total = (b) => ["processing", "succeeded", "errored", "canceled", "expired"].reduce((sum, k) => sum + num(field(b, "request_counts", k)), 0);
        const found = data.find((b) => Date.parse(text(field(b, "created_at"))) >= after && total(b) === count3);
        if (found) return text(field(found, "id")) || void 0;
        if (data.every((b) => Date.parse(text(field(b, "created_at"))) < after) || field(list, "has_more") !== true) return void 0;
        cursor = text(field(list, "last_id")) || text(field(data[data.length - 1], "id"));
      }
      return void 0;
    }
  };
}
function num(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
function sameOrigin(url, base) {
  try {
    return new URL(url).origin === new URL(base).origin;
  } catch {
    return false;
  }
}
function lines(jsonl) {
  const out = [];
  for (const line of jsonl.split("\n")) {
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line));
    } catch {
    }
  }
  return out;
}

// src/generators/batch.ts
var DEFAULT_POLL_MS = 6e4;
var Batcher = class {
  constructor(options) {
    this.options = options;
    this.signal = AbortSignal.any([options.signal, this.closing.signal]);
    for (const record of options.ledger.batches()) this.track(record);
    this.collecting = this.tracked.size > 0;
    this.syncTurns = limiter(options.concurrency);
    this.cancelled = new Promise((_, reject) => {
      const cancel = () => {
        this.cancelAll();
        reject(new GeneratorError("cancelled"));
      };
      if (options.signal.aborted) cancel();
      else options.signal.addEventListener("abort", cancel, { once: true });
    });
    this.cancelled.catch(() => void 0);
  }
  options;
  /** Batched pairs in flight: true while waiting on a batch. */
  members = /* @__PURE__ */ new Map();
  /** Calls gathered for the next batch, per provider and endpoint, each asked once. */
  queue = /* @__PURE__ */ new Map();
  tracked = /* @__PURE__ */ new Map();
  /** Where each thing asked was asked: batch key and custom_id, newest last. */
  byAsked = /* @__PURE__ */ new Map();
  flushSoon = false;
  /** Submissions, collections and cancellations in flight. */
  work = /* @__PURE__ */ new Set();
  /** Stops collections when the run is over. */
  closing = new AbortController();
  signal;
  /** Whether batches sent before are on record: then every provider pair may be answered from one. */
  collecting;
  /** Rejects as the run is cancelled: every waiting call races it (one listener on the run's signal, not one a call). */
  cancelled;
  /** Calls to the synchronous endpoint in place of a batch's answer, at most the run's concurrency at once. */
  syncTurns;
  // -------------------------------------------------------------------------------------------
  // The wave
  batched(pair) {
    if (pair.generator !== "openai" && pair.generator !== "anthropic") return false;
    return this.options.all || this.collecting || plain(pair.generatorConfig.batch) === true;
  }
  join(pair) {
    this.members.set(pair, false);
  }
  leave(pair) {
    this.members.delete(pair);
    this.checkWave();
  }
  /** Waits for `answer` as a waiting member: the wave may be sent meanwhile. */
  async waiting(pair, answer) {
    const member = this.members.has(pair);
    if (member) this.members.set(pair, true);
    this.checkWave();
    try {
      return await Promise.race([answer(), this.cancelled]);
    } finally {
      if (member && this.members.has(pair)) this.members.set(pair, false);
    }
  }
  /**
   * Sends what is gathered once every batched pair in flight waits: checked after the event loop
   * has run everything ready (setImmediate), so that pairs an answer or an end made ready have
   * started and joined first.
   */
  checkWave() {
    if (this.flushSoon) return;
    this.flushSoon = true;
    setImmediate(() => {
      this.flushSoon = false;
      if (this.queue.size === 0 || [...this.members.values()].some((waiting) => !waiting)) return;
      const groups = [...this.queue.values()];
      this.queue.clear();
      const order = this.options.order;
      const byPlan = order ? (a, b) => order(a.pair) - order(b.pair) : void 0;
      for (const group of groups) for (const chunk of chunks([...group.values()].sort(byPlan))) this.spawn(this.submit(chunk));
    });
  }
  // -------------------------------------------------------------------------------------------
  // Calls
  /** The generator `name` (openai or anthropic), answering from batches where it should; `sync` otherwise. */
  generator(name, sync) {
    return (request) => this.generate(name, sync, request);
  }
  async generate(name, sync, request) {
    const call = name === "openai" ? openaiCall(request) : anthropicCall(request);
    const asked = askedDigest(call);
    const batched = this.members.has(request.pairId) && (this.options.all || request.config.batch === true);
    let answer = { kind: "again" };
    const before = this.lookup(asked);
    if (before) answer = await this.waiting(request.pairId, () => this.answerFrom(before.key, before.customId, call));
    for (let sent = 0; answer.kind === "again" && batched && sent < 2; sent++) {
      answer = await this.waiting(request.pairId, () => this.enqueue(call, asked, request.pairId));
    }
    switch (answer.kind) {
      case "result":
        return answer.result;
      case "pending":
        throw new BatchPendingError(`waiting for ${call.provider} batch ${answer.batch}: pairflow run or pairflow resume collects it`);
      case "failed": {
        const why = `${call.provider} batch ${answer.batch} did not answer ${request.pairId}'s request (${answer.failed}: ${answer.message})`;
        if (answer.failed === "invalid") throw new GeneratorError(answer.message);
        if (plain(request.config.batch_fallback) === "fail") throw new GeneratorError(`${why}; batch_fallback is fail`);
        this.options.onWarning(`${why}; asking the synchronous endpoint instead`);
        return this.syncTurns(() => sync(request));
      }
      case "again":
        return batched ? this.syncTurns(() => sync(request)) : sync(request);
    }
  }
  /** The newest batch on record that asked this, unless it was cancelled before answering it. */
  lookup(asked) {
    const places = this.byAsked.get(asked) ?? [];
    for (let i = places.length - 1; i >= 0; i--) {
      const place2 = places[i];
      const result = this.tracked.get(place2.key)?.record.results?.[place2.customId];
      if (result && "failed" in result && result.failed === "canceled") continue;
      if (this.tracked.has(place2.key)) return place2;
    }
    return void 0;
  }
  enqueue(call, asked, pair) {
    const group = JSON.stringify([
      call.provider,
      call.url,
      Object.entries(call.headers).sort(),
      call.provider === "openai" ? field2(call.asked, "model") : null
    ]);
    const requests = this.queue.get(group) ?? this.queue.set(group, /* @__PURE__ */ new Map()).get(group);
    return new Promise((resolve) => {
      const queued = requests.get(asked) ?? requests.set(asked, { call, asked, pair, waiters: [] }).get(asked);
      queued.waiters.push(resolve);
      this.checkWave();
    });
  }
  /** A request's answer from a batch on record: its stored result, or its result once collected. */
  answerFrom(key, customId, call) {
    const t = this.tracked.get(key);
    t.call ??= call;
    const stored = this.storedAnswer(t, customId);
    if (stored) return Promise.resolve(stored);
    return new Promise((resolve) => {
      (t.waiters.get(customId) ?? t.waiters.set(customId, []).get(customId)).push(resolve);
      this.collect(t);
    });
  }
  storedAnswer(t, customId) {
    const result = t.record.results?.[customId];
    if (t.record.state !== "ended" || result === void 0) return void 0;
    const batch = t.record.id ?? t.record.key;
    if ("failed" in result) return result.failed === "canceled" ? { kind: "again" } : { kind: "failed", failed: result.failed, message: result.message, batch };
    const content = this.options.ledger.content(result.contentHash);
    if (content === void 0) return void 0;
    const before = t.record.used?.includes(customId) || t.used.has(customId);
    t.used.add(customId);
    const tokens = result.tokens ? { tokens: { ...result.tokens, batch: true } } : {};
    return { kind: "result", result: { content, ...tokens, ...before ? { replayed: { at: t.record.collected ?? t.record.at } } : {} } };
  }
  // -------------------------------------------------------------------------------------------
  // Batches
  track(record) {
    const t = { record, waiters: /* @__PURE__ */ new Map(), used: /* @__PURE__ */ new Set() };
    this.tracked.set(record.key, t);
    for (const r of record.requests) (this.byAsked.get(r.asked) ?? this.byAsked.set(r.asked, []).get(r.asked)).push({ key: record.key, customId: r.customId });
    return t;
  }
  put(t, change) {
    t.record = { ...t.record, ...change };
    this.options.ledger.put(t.record);
  }
  /** Records the batch, creates it, records its id; then collects it (or, not waiting, leaves it to a later run). */
  async submit(queued) {
    const key = randomBytes4(8).toString("hex");
    const call = queued[0].call;
    const requests = queued.map((q, i) => ({ customId: `${key}-${i}`, asked: q.asked, pair: q.pair }));
    const t = this.track({ key, provider: call.provider, endpoint: call.url, at: (/* @__PURE__ */ new Date()).toISOString(), requests, state: "submitting" });
    t.call = call;
    queued.forEach((q, i) => t.waiters.set(requests[i].customId, q.waiters));
    this.options.ledger.put(t.record);
    let api;
    try {
      api = batchApi(call);
      const id = await api.submit(
        queued.map((q, i) => ({ customId: requests[i].customId, body: q.call.body })),
        key,
        (file) => this.put(t, { file }),
        this.signal
      );
      this.put(t, { id, state: "submitted" });
    } catch (err) {
      if (this.signal.aborted) return this.deliverAll(t, { kind: "again" });
      if (err instanceof UnansweredError) return this.collect(t);
      this.options.ledger.drop([key]);
      this.tracked.delete(key);
      return this.deliverAll(t, { kind: "failed", failed: "errored", message: err.message, batch: "(not created)" });
    }
    this.emit(t, "submitted", { ...NONE, processing: requests.length });
    if (!this.options.wait) {
      this.emit(t, "waiting", { ...NONE, processing: requests.length });
      return this.deliverAll(t, { kind: "pending", batch: t.record.id });
    }
    return this.collect(t);
  }
  /** Collects a batch once, however many callers wait for it. */
  collect(t) {
    if (!t.collecting) {
      t.collecting = this.collecting_(t).catch((err) => {
        t.collecting = void 0;
        if (this.signal.aborted) return;
        t.unreached = true;
        const message = err.message;
        for (const waiters of t.waiters.values())
          for (const w of waiters) w({ kind: "failed", failed: "invalid", message, batch: t.record.id ?? t.record.key });
        t.waiters.clear();
      });
      this.spawn(t.collecting);
    }
    return t.collecting;
  }
  async collecting_(t) {
    const api = batchApi(t.call);
    let { id } = t.record;
    let found = false;
    if (id === void 0) {
      id = await api.find(t.record.key, t.record.at, t.record.requests.length, this.signal);
      if (id === void 0) {
        this.options.ledger.drop([t.record.key]);
        this.tracked.delete(t.record.key);
        return this.deliverAll(t, { kind: "again" });
      }
      found = true;
      this.put(t, { id, state: "submitted" });
      this.emit(t, "submitted", { ...NONE, processing: t.record.requests.length });
    }
    let shown = "";
    for (; ; ) {
      const status = await api.status(id, this.signal);
      if (status.ended) return this.ended(t, api, status, found);
      const counts = JSON.stringify(status.counts);
      if (counts !== shown) this.emit(t, "progress", status.counts);
      shown = counts;
      if (!this.options.wait) {
        this.emit(t, "waiting", status.counts);
        return this.deliverAll(t, { kind: "pending", batch: id });
      }
      await sleep3(this.options.pollMs, void 0, { signal: this.signal });
    }
  }
  /** Reads an ended batch's results, keeps them (contents in the local store), and answers its callers. */
  async ended(t, api, status, found) {
    const outcomes = await api.results(t.record.id, status, this.signal);
    if (found && ![...outcomes.keys()].some((c) => c.startsWith(`${t.record.key}-`))) {
      this.options.ledger.drop([t.record.key]);
      this.tracked.delete(t.record.key);
      return this.deliverAll(t, { kind: "again" });
    }
    const missing = status.status === "expired" ? { kind: "expired", message: "the batch expired" } : status.status === "cancelled" || status.status === "canceling" ? { kind: "canceled", message: "the batch was cancelled" } : { kind: "errored", message: status.problem ?? `the batch ended ${status.status} without an answer to it` };
    const results = {};
    for (const { customId } of t.record.requests) results[customId] = this.keep(t.record.provider, outcomes.get(customId) ?? missing);
    this.put(t, { state: "ended", results, collected: (/* @__PURE__ */ new Date()).toISOString() });
    this.emit(t, "ended", status.counts);
    for (const [customId, waiters] of t.waiters) {
      const answer = this.storedAnswer(t, customId) ?? { kind: "again" };
      for (const w of waiters) w(answer);
    }
    t.waiters.clear();
  }
  /** One outcome as kept: a succeeded answer's content in the local store, its usage, at the batch price. */
  keep(provider, outcome) {
    if (outcome.kind !== "succeeded") return { failed: outcome.kind, message: outcome.message };
    try {
      const result = provider === "openai" ? openaiResult(outcome.body, []) : anthropicResult(outcome.body, []);
      const content = typeof result.content === "string" ? result.content : result.content.toString("utf8");
      return { contentHash: this.options.ledger.putContent(content), tokens: result.tokens ? { ...result.tokens, batch: true } : null };
    } catch (err) {
      return { failed: "invalid", message: err.message };
    }
  }
  deliverAll(t, answer) {
    for (const waiters of t.waiters.values()) for (const w of waiters) w(answer);
    t.waiters.clear();
  }
  emit(t, state, counts) {
    this.options.onEvent({ type: "batch", provider: t.record.provider, id: t.record.id ?? t.record.key, state, requests: t.record.requests.length, counts });
  }
  spawn(task) {
    const p = task.catch(() => void 0).finally(() => this.work.delete(p));
    this.work.add(p);
  }
  /** The run is cancelled: every batch it waits for is cancelled at the provider (what it finished is still collected later). */
  cancelAll() {
    for (const t of this.tracked.values()) {
      const { id } = t.record;
      if (id === void 0 || t.record.state !== "submitted" || t.waiters.size === 0 || !t.call) continue;
      this.put(t, { state: "cancelling" });
      this.emit(t, "cancelled", { ...NONE, processing: t.record.requests.length });
      const call = t.call;
      this.spawn(
        batchApi(call).cancel(id, AbortSignal.timeout(Math.min(call.settings.timeoutSeconds, 30) * 1e3)).catch((err) => {
          this.options.onWarning(`could not cancel ${t.record.provider} batch ${id}: ${err.message}`);
        })
      );
    }
  }
  /**
   * The run is over: waits for cancellations to be sent. A run that ended (`final`: it succeeded or
   * failed, nothing waiting) has had every answer it needs: the batches are forgotten (but one whose
   * provider could not be reached), and what a later run asks again is asked anew. Until then,
   * whatever asks what a batch asked gets its answer, so a pair that starts its attempts over (a
   * later `run`, a fresh runner) replays them at no cost up to where it was.
   */
  async close(final) {
    this.closing.abort();
    await Promise.allSettled([...this.work]);
    const forget = Date.now() - FORGET_AFTER_MS;
    const done = [...this.tracked.values()].filter((t) => final && !t.unreached || Date.parse(t.record.at) < forget);
    this.options.ledger.drop(done.map((t) => t.record.key));
    for (const t of this.tracked.values()) {
      if (done.includes(t) || t.used.size === 0) continue;
      const used = /* @__PURE__ */ new Set([...t.record.used ?? [], ...t.used]);
      if (used.size > (t.record.used?.length ?? 0)) this.put(t, { used: [...used] });
    }
  }
};
var NONE = { processing: 0, succeeded: 0, errored: 0, expired: 0, canceled: 0 };
var FORGET_AFTER_MS = 28 * 24 * 36e5;
function askedDigest(call) {
  return sha256Hex(JSON.stringify([call.provider, call.url, call.asked]));
}
function chunks(queued) {
  if (queued.length === 0) return [];
  const limits = BATCH_LIMITS[queued[0].call.provider];
  const out = [[]];
  let bytes = 0;
  for (const q of queued) {
    const size = JSON.stringify(q.call.body).length + 200;
    const current = out[out.length - 1];
    if (current.length > 0 && (current.length >= limits.requests || bytes + size > limits.bytes)) {
      out.push([q]);
      bytes = size;
    } else {
      current.push(q);
      bytes += size;
    }
  }
  return out;
}
function field2(value, key) {
  return typeof value === "object" && value !== null ? value[key] : void 0;
}

// src/guards/config.ts
function requiredString(guard, config, key, example) {
  const value = config[key];
  if (value === void 0 || value === null || value === "") {
    throw new GuardConfigError(`the ${guard} guard needs guard_config.${key}: set it to ${example}`);
  }
  if (typeof value !== "string") throw wrongType(guard, key, "a string", value);
  return value;
}
function optionalString(guard, config, key) {
  const value = config[key];
  if (value === void 0 || value === null) return void 0;
  if (typeof value !== "string") throw wrongType(guard, key, "a string", value);
  return value;
}
function optionalBoolean(guard, config, key, fallback) {
  const value = config[key];
  if (value === void 0 || value === null) return fallback;
  if (typeof value !== "boolean") throw wrongType(guard, key, "true or false", value);
  return value;
}
function optionalPositiveNumber(guard, config, key, fallback) {
  const value = config[key];
  if (value === void 0 || value === null) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw wrongType(guard, key, "a number greater than 0", value);
  }
  return value;
}
function optionalCount(guard, config, key, fallback) {
  const value = config[key];
  if (value === void 0 || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw wrongType(guard, key, "a whole number of at least 0", value);
  return value;
}
function optionalStringMap(guard, config, key) {
  const value = config[key];
  if (value === void 0 || value === null) return {};
  if (typeof value === "object" && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string")) {
    return value;
  }
  throw wrongType(guard, key, "a mapping of names to strings", value);
}
function optionalStringList(guard, config, key) {
  const value = config[key];
  if (value === void 0 || value === null) return void 0;
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
  throw wrongType(guard, key, "a string or a list of strings", value);
}
function wrongType(guard, key, expected, found) {
  return new GuardConfigError(`guard_config.${key} of the ${guard} guard must be ${expected}; found ${describe(found)}`);
}
function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${JSON.stringify(value)}`;
}

// src/guards/feedback.ts
var MAX_LINES = 40;
var MAX_CHARS = 4e3;
var MAX_BLOCK_LINES = 20;
var MAX_LINE_CHARS = 300;
var MAX_FRAMES = 2;
var EARLIER_OMITTED = "[earlier output omitted]";
function feedbackOf(output) {
  const lines2 = cleanLines(output);
  const found = READERS.map((read2) => read2(lines2));
  let blocks = chooseBlocks(found.map((f) => f.blocks));
  if (blocks.length === 0) blocks = readMarks(lines2).blocks;
  if (blocks.length === 0) return tail(output);
  const summaries = found.flatMap((f) => f.summary === void 0 ? [] : [f.summary]);
  summaries.sort((a, b) => a.at - b.at);
  return assemble2(blocks, summaries);
}
function tail(output) {
  const trimmed = output.trimEnd();
  if (trimmed.trim() === "") return "";
  const lines2 = trimmed.split("\n");
  let text = lines2.slice(-MAX_LINES).join("\n");
  let cut = lines2.length > MAX_LINES;
  if (text.length > MAX_CHARS) {
    text = text.slice(-MAX_CHARS);
    cut = true;
  }
  return cut ? `${EARLIER_OMITTED}
${text}` : text;
}
function countLine(lines2, pattern) {
  const at = lines2.findIndex((l) => pattern.test(l));
  return at < 0 ? void 0 : { at, text: lines2[at].trim().replace(/\s+/g, " ") };
}
function testsAndFails(lines2, prefix) {
  const tests = countLine(lines2, new RegExp(`^${prefix} tests \\d+$`));
  const fail = countLine(lines2, new RegExp(`^${prefix} fail \\d+$`));
  return tests && fail ? { at: fail.at, text: `${tests.text.slice(2)}, ${fail.text.slice(2)}` } : void 0;
}
var ESC = "\x1B";
var BEL = "\x07";
var ANSI = new RegExp(`${ESC}\\[[0-?]*[ -/]*[@-~]|${ESC}\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)|${ESC}[@-Z\\\\-_]`, "g");
function cleanLines(output) {
  return output.replace(ANSI, "").replace(/\r\n/g, "\n").split("\n").map((line) => {
    const parts = line.split("\r").filter((p) => p !== "");
    return (parts[parts.length - 1] ?? "").trimEnd();
  });
}
var indent = (line) => /^\s*/.exec(line)[0].length;
var blank = (line) => line.trim() === "";
var PASSING = /^\s*(ok \d+\b|[✓✔√]\s|PASS\s|# Subtest:|↓\s)/;
var FRAME = /^\s*(?:at\s|❯\s)/;
function internalFrame(line) {
  const where = (/\(([^()]*)\)\s*\{?$/.exec(line)?.[1] ?? line.replace(/^\s*(?:at|❯)\s+(?:async\s+)?/, "")).trim();
  return !/:\d+(:\d+)?$/.test(where) || /^(node:|internal[/\\])/.test(where) || /(^|[/\\])node_modules[/\\]/.test(where);
}
var CODE_FRAME = /^\s*(?:>\s*)?\d+\s?\|/;
var CARET = /^\s*\|\s*[\^~]+\s*$/;
function keepLines(lines2) {
  const kept = [];
  let frames = 0;
  for (const [i, line] of lines2.entries()) {
    if (blank(line)) continue;
    if (FRAME.test(line)) {
      if (!internalFrame(line) && frames < MAX_FRAMES) {
        kept.push(line.replace(/\s*\{$/, ""));
        frames++;
      }
      continue;
    }
    if (CARET.test(line)) {
      if (kept.length > 0 && CODE_FRAME.test(lines2[i - 1] ?? "")) kept.push(line);
      continue;
    }
    if (CODE_FRAME.test(line)) {
      if (/^\s*>/.test(line) || CARET.test(lines2[i + 1] ?? "")) kept.push(line);
      continue;
    }
    kept.push(line);
  }
  return kept;
}
var NOT_OK = /^\s*not ok \d+\b(?!.*#\s*(?:skip|todo)\b)/i;
var readTap = (lines2) => {
  const blocks = [];
  for (let i = 0; i < lines2.length; i++) {
    const line = lines2[i];
    if (/^\s*Bail out!/.test(line)) {
      blocks.push({ from: i, to: i, lines: [line] });
      continue;
    }
    if (!NOT_OK.test(line)) continue;
    const body = [];
    let j = i + 1;
    if (/^\s*---\s*$/.test(lines2[j] ?? "")) {
      j++;
      while (j < lines2.length && !/^\s*\.\.\.\s*$/.test(lines2[j])) body.push(lines2[j++]);
    }
    if (body.some((l) => /failureType:\s*'?subtestsFailed/.test(l))) continue;
    blocks.push({ from: i, to: Math.min(j, lines2.length - 1), lines: [line, ...tapBody(body)] });
    i = j;
  }
  return { blocks, summary: testsAndFails(lines2, "#") };
};
var TAP_ORDER = ["message", "error", "wanted", "expected", "found", "actual", "diff", "", "at", "location", "stack"];
var TAP_DROPPED = /^(duration_ms|failureType|code|type|name|operator)$/;
function tapBody(body) {
  const lines2 = body.filter((l) => !blank(l));
  if (lines2.length === 0) return [];
  const top = Math.min(...lines2.map(indent));
  const groups = [];
  for (const line of lines2) {
    const key = indent(line) === top ? /^\s*([\w-]+):/.exec(line)?.[1] : void 0;
    if (key !== void 0 || groups.length === 0) groups.push({ key: key ?? "", lines: [line] });
    else groups[groups.length - 1].lines.push(line);
  }
  const rank = (key) => TAP_ORDER.includes(key) ? TAP_ORDER.indexOf(key) : TAP_ORDER.indexOf("");
  const kept = [];
  for (const group of groups.filter((g) => !TAP_DROPPED.test(g.key)).sort((a, b) => rank(a.key) - rank(b.key))) {
    if (group.key !== "stack") {
      kept.push(...group.lines);
      continue;
    }
    const frames = group.lines.slice(1).filter((l) => !internalFrame(l)).slice(0, MAX_FRAMES);
    if (frames.length > 0) kept.push(group.lines[0], ...frames);
  }
  return kept;
}
var SPEC_FAIL = /^(\s*)✖ (.*) \(\d+(?:\.\d+)?m?s\)$/;
var readNodeSpec = (lines2) => {
  const listed = lines2.findIndex((l) => /^✖ failing tests:$/.test(l));
  const blocks = [];
  for (let i = listed >= 0 ? listed + 1 : 0; i < lines2.length; i++) {
    const m = SPEC_FAIL.exec(lines2[i]);
    if (!m) continue;
    const depth = m[1].length;
    let j = i + 1;
    const body = [];
    while (j < lines2.length) {
      const next = lines2[j];
      if (!blank(next) && indent(next) <= depth) break;
      body.push(next);
      j++;
    }
    if (body.every(blank)) continue;
    blocks.push({ from: i, to: j - 1, lines: [lines2[i], ...withoutBookkeeping(keepLines(body))] });
    i = j - 1;
  }
  return { blocks, summary: testsAndFails(lines2, "\u2139") };
};
function withoutBookkeeping(lines2) {
  let lastFrame = -1;
  for (const [i, line] of lines2.entries()) if (FRAME.test(line)) lastFrame = i;
  return lines2.filter((l, i) => i <= lastFrame || !(/^\s*(generatedMessage|code|operator):/.test(l) || /^\s*[{}]\s*$/.test(l)));
}
var vitestFail = (line) => /^\s*FAIL\s+\S/.test(line) && (/\s>\s/.test(line) || line.includes("[ ") && / \]$/.test(line));
var VITEST_END = /^\s*⎯|^\s*(Test Files|Tests)\s+\d|^\s*FAIL\s/;
var readVitest = (lines2) => {
  const blocks = [];
  for (let i = 0; i < lines2.length; i++) {
    if (!vitestFail(lines2[i])) continue;
    let j = i + 1;
    while (j < lines2.length && !VITEST_END.test(lines2[j]) && !PASSING.test(lines2[j])) j++;
    blocks.push({ from: i, to: j - 1, lines: [lines2[i].trim(), ...keepLines(lines2.slice(i + 1, j))] });
    i = j - 1;
  }
  return { blocks, summary: countLine(lines2, /^\s*Tests\s+\d+ failed/) ?? countLine(lines2, /^\s*Test Files\s+\d+ failed/) };
};
var JEST_FAIL = /^(\s*)● (?!Console$)(.*)$/;
var readJest = (lines2) => {
  const blocks = [];
  for (let i = 0; i < lines2.length; i++) {
    const m = JEST_FAIL.exec(lines2[i]);
    if (!m) continue;
    const depth = m[1].length;
    let j = i + 1;
    while (j < lines2.length) {
      const next = lines2[j];
      if (!blank(next) && (indent(next) <= depth || PASSING.test(next))) break;
      j++;
    }
    blocks.push({ from: i, to: j - 1, lines: [lines2[i].trim(), ...keepLines(lines2.slice(i + 1, j))] });
    i = j - 1;
  }
  return { blocks, summary: countLine(lines2, /^Tests:\s+\d+ failed/) };
};
var readMarks = (lines2) => {
  const blocks = [];
  for (const [i, line] of lines2.entries()) {
    if (/^\s*[×✕✗]\s+\S/.test(line)) blocks.push({ from: i, to: i, lines: [line.trim()] });
  }
  return { blocks };
};
var PYTEST_RULE = /^=+ (.+?) =+$/;
var PYTEST_HEADER = /^_{3,} (.+?) _{3,}$/;
var readPytest = (lines2) => {
  const blocks = [];
  let section = "";
  let summary;
  for (let i = 0; i < lines2.length; i++) {
    const line = lines2[i];
    const rule = PYTEST_RULE.exec(line);
    if (rule) {
      section = rule[1];
      if (section.length < 200 && /\b\d+ (failed|errors?)\b.* in [\d.]+s/.test(section)) summary = { at: i, text: section };
      continue;
    }
    if (section === "short test summary info" && /^(FAILED|ERROR) \S/.test(line)) {
      blocks.push({ from: i, to: i, lines: [line], lead: true });
      continue;
    }
    if (!/^(FAILURES|ERRORS)$/.test(section) || !PYTEST_HEADER.test(line)) continue;
    let j = i + 1;
    while (j < lines2.length && !PYTEST_HEADER.test(lines2[j]) && !PYTEST_RULE.test(lines2[j])) j++;
    blocks.push({ from: i, to: j - 1, lines: [line, ...pytestLines(lines2.slice(i + 1, j))] });
    i = j - 1;
  }
  return { blocks, summary };
};
var PYTEST_WHERE = /^[^\s:][^:]*:\d+:(\s|$)/;
var PYTHON_INTERNAL = /(^|[/\\])(lib[/\\]python[\d.]*|site-packages|dist-packages)[/\\]/;
function pytestLines(body) {
  const kept = [];
  let frame = [];
  for (const line of body) {
    if (/^>\s/.test(line) || /^E\s/.test(line) && !/^E\s*$/.test(line)) frame.push(line);
    else if (PYTEST_WHERE.test(line)) {
      kept.push(...PYTHON_INTERNAL.test(line) ? frame.filter((l) => l.startsWith("E")) : [...frame, line]);
      frame = [];
    }
  }
  return [...kept, ...frame];
}
var readJunit = (lines2) => {
  const blocks = [];
  const text = lines2.join("\n");
  if (!/<testcase\b/.test(text)) return { blocks };
  const failure = /<(failure|error)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/g;
  for (let m = failure.exec(text); m !== null; m = failure.exec(text)) {
    const from = lineAt(text, m.index);
    const to = lineAt(text, m.index + m[0].length);
    const testcase = text.lastIndexOf("<testcase", m.index);
    const attrs = testcase >= 0 ? text.slice(testcase, text.indexOf(">", testcase)) : "";
    const name = [attribute(attrs, "classname"), attribute(attrs, "name")].filter((s) => s !== void 0).join(" > ");
    const message = attribute(m[2], "message") ?? "";
    const type = attribute(m[2], "type");
    const head = `${m[1] === "error" ? "ERROR" : "FAIL"} ${name || "(unnamed test)"}`;
    const body = unescapeXml(m[3] ?? "").split("\n");
    if (body.some((l) => /^E\s/.test(l))) {
      blocks.push({ from, to, lines: [head, ...pytestLines(body)] });
      continue;
    }
    const messageLines = message.split("\n").filter((l) => !blank(l));
    const bodyLines = keepLines(body).filter((l) => !messageLines.some((ml) => l.trim() === ml.trim() || l.trim() === `${type}: ${ml.trim()}`));
    const lead = messageLines.map((l, k) => k === 0 && type && !l.startsWith(type) ? `${type}: ${l}` : l);
    blocks.push({ from, to, lines: [head, ...lead, ...bodyLines] });
  }
  return { blocks };
};
function attribute(tag, name) {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag) ?? new RegExp(`\\s${name}='([^']*)'`).exec(tag);
  return m ? unescapeXml(m[1]) : void 0;
}
function unescapeXml(text) {
  return text.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1").replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16))).replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d))).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
}
function lineAt(text, index) {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
var TSC_ERROR = /^(?:\S.*\(\d+,\d+\): |\S.*:\d+:\d+ - )?error TS\d+:(\s|$)/;
var readTsc = (lines2) => {
  const blocks = [];
  for (let i = 0; i < lines2.length; i++) {
    if (!TSC_ERROR.test(lines2[i])) continue;
    let j = i + 1;
    const more = [];
    while (j < lines2.length && !TSC_ERROR.test(lines2[j]) && (blank(lines2[j]) || /^\s/.test(lines2[j]) || /^\d+\s/.test(lines2[j]))) {
      if (!blank(lines2[j])) more.push(lines2[j]);
      j++;
    }
    blocks.push({ from: i, to: j - 1, lines: [lines2[i], ...more] });
    i = j - 1;
  }
  return { blocks, summary: countLine(lines2, /^Found \d+ errors?\b/) };
};
var ESLINT_PROBLEM = /^\s+\d+:\d+\s+(error|warning)\s+\S/;
var readEslint = (lines2) => {
  const blocks = [];
  for (let i = 0; i < lines2.length; i++) {
    const file = lines2[i];
    if (blank(file) || /^\s/.test(file) || !ESLINT_PROBLEM.test(lines2[i + 1] ?? "")) continue;
    let j = i + 1;
    while (j < lines2.length && ESLINT_PROBLEM.test(lines2[j])) j++;
    const problems = lines2.slice(i + 1, j);
    const ordered = [...problems.filter((l) => /^\s+\S+\s+error\s/.test(l)), ...problems.filter((l) => /^\s+\S+\s+warning\s/.test(l))];
    blocks.push({ from: i, to: j - 1, lines: [file, ...ordered] });
    i = j - 1;
  }
  return { blocks, summary: countLine(lines2, /^✖ \d+ problems? \(/) };
};
var READERS = [readJunit, readPytest, readVitest, readJest, readNodeSpec, readTap, readTsc, readEslint];
function chooseBlocks(byReader) {
  const chosen = [];
  for (const blocks of byReader) {
    const earlier = [...chosen];
    for (const block of blocks) {
      if (earlier.some((c) => block.from <= c.to && c.from <= block.to)) continue;
      chosen.push(block);
    }
  }
  return chosen.sort((a, b) => Number(b.lead ?? false) - Number(a.lead ?? false) || a.from - b.from);
}
function dedent(lines2) {
  const depth = indent(lines2[0] ?? "");
  return lines2.map((l) => indent(l) >= depth ? l.slice(depth) : l.trimStart());
}
function assemble2(blocks, counts) {
  const tailLines = counts.slice(0, 2).map((c) => clip(c.text));
  const MARK = 80;
  const maxLines = MAX_LINES - tailLines.length - (tailLines.length > 0 ? 1 : 0) - 1;
  const maxChars = MAX_CHARS - tailLines.reduce((n, l) => n + l.length + 1, 1) - MARK;
  const out = [];
  let chars = 0;
  const fits = (line) => out.length < maxLines && chars + line.length + 1 <= maxChars;
  const push = (line) => {
    out.push(line);
    chars += line.length + 1;
  };
  let shown = 0;
  for (const block of blocks) {
    const lines2 = dedent(block.lines).map(clip);
    const separate = out.length > 0 && (lines2.length > 1 || blocks[shown - 1].lines.length > 1);
    if (separate && !fits("")) break;
    const before = out.length;
    if (separate) push("");
    const limit = Math.min(lines2.length, MAX_BLOCK_LINES);
    let n = 0;
    while (n < limit && fits(lines2[n])) push(lines2[n++]);
    if (n < Math.min(2, lines2.length)) {
      chars -= out.splice(before).reduce((k, l) => k + l.length + 1, 0);
      break;
    }
    if (n < lines2.length) {
      if (out.length >= maxLines) chars -= out.pop().length + 1;
      const cut = lines2.length - out.length + before + (separate ? 1 : 0);
      push(`[${cut} more ${cut === 1 ? "line" : "lines"} of this failure omitted]`);
    }
    shown++;
  }
  const left = blocks.length - shown;
  if (left > 0) out.push(`[${left} more ${left === 1 ? "failure" : "failures"} omitted]`);
  if (tailLines.length > 0) out.push("", ...tailLines);
  return out.join("\n");
}
function clip(line) {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS - 1)}\u2026`;
}

// src/guards/command.ts
var DEFAULT_TIMEOUT_SECONDS2 = 300;
var KEEP_BYTES = 64 * 1024;
var commandGuard = async (request) => {
  const run = requiredString("command", request.config, "run", 'a shell command, e.g. "npm test"');
  const timeout = optionalPositiveNumber("command", request.config, "timeout", DEFAULT_TIMEOUT_SECONDS2);
  const env = optionalStringMap("command", request.config, "env");
  const network = optionalBoolean("command", request.config, "network", false);
  const rejectCodes = exitCodes(request.config.reject_exit_codes);
  const retries = optionalCount("command", request.config, "guard_retries", 0);
  request.signal.throwIfAborted();
  const seconds2 = Math.min(timeout, request.limits?.timeSeconds ?? Infinity);
  for (let tries = 0; ; tries++) {
    let outcome;
    try {
      const place2 = request.place !== void 0 && !request.staged ? { candidate: request.artifactPath, at: request.place } : void 0;
      const own = { cwd: request.cwd, readable: [request.artifactPath], network, layer: place2 ? { place: place2 } : {} };
      outcome = await startCommand(
        request,
        own,
        (start) => runCommand({
          command: run,
          cwd: request.cwd,
          // guard_config.env is part of the pair's reference; pairflow's own variables come last.
          env: { ...request.env, ...env, PAIRFLOW_ARTIFACT: request.artifactPath, PAIRFLOW_PAIR: request.pairId },
          timeoutMs: seconds2 * 1e3,
          signal: request.signal,
          collectStdout: false,
          tailBytes: KEEP_BYTES,
          onStart: request.onProcess,
          ...start
        })
      );
    } catch (err) {
      if (err instanceof CommandStartError) throw new GuardConfigError(`the command guard ${err.message}`);
      throw err;
    }
    if (outcome.stopped === "abort") throw request.signal.reason ?? new Error("cancelled");
    const text = outcome.tail.toString("utf8");
    if (outcome.code === LAYER_FAILED && request.sandbox?.layered) {
      throw new GuardError("guard error: the writable layer over the repository could not be made for the command guard", tail(text));
    }
    if (outcome.code === 0 && outcome.limit === void 0) return { accepted: true, feedback: "" };
    if (outcome.code !== null && rejectCodes.includes(outcome.code) && outcome.limit === void 0 && outcome.stopped === void 0) {
      return { accepted: false, feedback: feedbackOf(text) || `exited with status ${outcome.code}` };
    }
    if (tries < retries) continue;
    throw new GuardError(`guard error: the command guard ${guardErrorCause(outcome, rejectCodes, seconds2, request.limits)}`, tail(text));
  }
};
function exitCodes(value) {
  if (value === void 0 || value === null) return [1];
  const codes = Array.isArray(value) ? value : [value];
  if (codes.length === 0 || !codes.every((c) => typeof c === "number" && Number.isInteger(c) && c >= 1 && c <= 255)) {
    throw new GuardConfigError("the command guard's guard_config.reject_exit_codes must be an exit status from 1 to 255, or a list of them (default: 1)");
  }
  return codes;
}
function guardErrorCause(outcome, rejectCodes, seconds2, limits) {
  if (outcome.limit && limits) return `was ${limitMessage(outcome.limit, limits)}`;
  if (outcome.stopped === "timeout") return `timed out after ${seconds2}s`;
  if (outcome.code === 127) return "could not find a program it runs (exit status 127: command not found)";
  if (outcome.code === 126) return "could not run a program (exit status 126: not executable)";
  if (outcome.code !== null) {
    const rejects = rejectCodes.length === 1 ? `only ${rejectCodes[0]} rejects` : `only ${rejectCodes.join(", ")} reject`;
    return `exited with status ${outcome.code}, which is neither an acceptance (0) nor a rejection (${rejects}; reject_exit_codes)`;
  }
  return `was killed by ${outcome.signal}`;
}

// src/guards/composite.ts
var POLICIES = ["all_pass", "any_pass", "majority_pass"];
function compositeGuard(lookup) {
  return async (request) => {
    const policy = readPolicy(request.config);
    const refs = request.guards ?? readGuardList(request.config.guards);
    if (refs.length === 0) {
      throw new GuardConfigError('the composite guard lists no guards: list them under "guards" on the pair (or guard_config.guards)');
    }
    const subGuards = refs.map((ref) => {
      try {
        return { ref, guard: lookup(ref.guard) };
      } catch (err) {
        throw err instanceof GuardConfigError ? new GuardConfigError(`in the composite guard: ${err.message}`) : err;
      }
    });
    let passed = 0;
    const feedback = [];
    for (const { ref, guard } of subGuards) {
      const result = await runSubGuard(guard, ref, request);
      if (result.accepted) passed++;
      else feedback.push(`[${ref.guard}] ${result.feedback || "rejected"}`);
    }
    const accepted = decide(policy, passed, subGuards.length);
    return { accepted, feedback: accepted ? "" : feedback.join("\n") };
  };
}
function decide(policy, passed, total) {
  switch (policy) {
    case "all_pass":
      return passed === total;
    case "any_pass":
      return passed > 0;
    case "majority_pass":
      return passed * 2 > total;
  }
}
async function runSubGuard(guard, ref, request) {
  const subRequest = {
    ...request,
    // Sub-guard configs come straight from the workflow; guards see plain numbers (see GuardRequest).
    config: plain(ref.guard_config),
    guards: void 0
  };
  try {
    return await guard(subRequest);
  } catch (err) {
    if (err instanceof GuardError) err.message = `[${ref.guard}] ${err.message}`;
    throw err instanceof GuardConfigError ? new GuardConfigError(`[${ref.guard}] ${err.message}`) : err;
  }
}
function readPolicy(config) {
  const policy = optionalString("composite", config, "policy") ?? "all_pass";
  if (!POLICIES.includes(policy)) {
    throw new GuardConfigError(`guard_config.policy of the composite guard must be one of ${POLICIES.join(", ")}; found ${JSON.stringify(policy)}`);
  }
  return policy;
}
function readGuardList(value) {
  if (value === void 0 || value === null) return [];
  if (!Array.isArray(value)) throw listError();
  return value.map((item) => {
    if (typeof item === "string") return { guard: item, guard_config: {} };
    if (item !== null && typeof item === "object" && !Array.isArray(item) && typeof item.guard === "string") {
      const config = item.guard_config ?? {};
      if (config === null || typeof config !== "object" || Array.isArray(config)) throw listError();
      return { guard: item.guard, guard_config: config };
    }
    throw listError();
  });
}
function listError() {
  return new GuardConfigError("guard_config.guards of the composite guard must be a list of guard names or {guard, guard_config} mappings");
}

// src/guards/contains.ts
var containsGuard = async (request) => {
  const required = optionalStringList("contains", request.config, "text") ?? [];
  const forbidden = optionalStringList("contains", request.config, "absent") ?? [];
  const all = optionalBoolean("contains", request.config, "all", true);
  if (required.length === 0 && forbidden.length === 0) {
    throw new GuardConfigError(
      "the contains guard needs guard_config.text (a string or a list of strings that must appear) or guard_config.absent (a list that must not)"
    );
  }
  const problems = [];
  const missing = required.filter((text) => !request.content.includes(text));
  if (all && missing.length > 0) problems.push(`missing: ${quoteAll(missing)}`);
  if (!all && required.length > 0 && missing.length === required.length) {
    problems.push(`contains none of: ${quoteAll(required)} (at least one is required)`);
  }
  const present = forbidden.filter((text) => request.content.includes(text));
  if (present.length > 0) problems.push(`must not contain: ${quoteAll(present)}`);
  return { accepted: problems.length === 0, feedback: problems.join("\n") };
};
function quoteAll(texts) {
  return texts.map((text) => JSON.stringify(text)).join(", ");
}

// src/guards/json.ts
function parseJson2(content) {
  const text = content.trim();
  if (text === "") return { ok: false, feedback: "not valid JSON: the artifact is empty" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const offset = content.length - content.trimStart().length;
    return { ok: false, feedback: `not valid JSON: ${describeParseError(message, content, offset, text.length)}` };
  }
}
function describeParseError(message, content, offset, length) {
  const position = /at position (\d+)/.exec(message);
  const reason = message.replace(/ in JSON at position \d+.*$/, "").replace(/ at position \d+.*$/, "");
  if (position) return `${reason} at ${lineColumn(content, offset + Number(position[1]))}`;
  if (/Unexpected end of JSON input/.test(message)) return `${reason} at ${lineColumn(content, offset + length)}`;
  return message;
}
function lineColumn(text, index) {
  const before = text.slice(0, index);
  const line = before.split("\n").length;
  const column = index - (before.lastIndexOf("\n") + 1) + 1;
  return `line ${line}, column ${column}`;
}
var jsonGuard = async (request) => {
  const parsed = parseJson2(request.content);
  return parsed.ok ? { accepted: true, feedback: "" } : { accepted: false, feedback: parsed.feedback };
};

// src/guards/jsonSchema.ts
var import_yaml = __toESM(require_dist(), 1);
import { readFileSync as readFileSync6 } from "node:fs";
import path9 from "node:path";
var jsonSchemaGuard = async (request) => {
  const validate = await compile(loadSchema(request));
  const parsed = parseJson2(request.content);
  if (!parsed.ok) return { accepted: false, feedback: parsed.feedback };
  if (validate(parsed.value)) return { accepted: true, feedback: "" };
  const lines2 = [...new Set((validate.errors ?? []).map(describeError))];
  return { accepted: false, feedback: ["JSON does not match the schema:", ...lines2].join("\n") };
};
function loadSchema(request) {
  const inline = request.config.schema;
  const file = optionalString("json_schema", request.config, "schema_file");
  if (inline !== void 0 && file !== void 0) {
    throw new GuardConfigError("the json_schema guard takes guard_config.schema or guard_config.schema_file, not both");
  }
  if (file !== void 0) return readSchemaFile(path9.resolve(request.cwd, file), file);
  if (inline === void 0 || inline === null) {
    throw new GuardConfigError(
      "the json_schema guard needs a schema: set guard_config.schema to a JSON Schema, or guard_config.schema_file to a JSON or YAML file holding one"
    );
  }
  return inline;
}
function readSchemaFile(absolute, shown) {
  let text;
  try {
    text = readFileSync6(absolute, "utf8");
  } catch (err) {
    throw new GuardConfigError(`cannot read guard_config.schema_file ${shown}: ${err.message}`);
  }
  try {
    return absolute.endsWith(".json") ? JSON.parse(text) : (0, import_yaml.parse)(text);
  } catch (err) {
    throw new GuardConfigError(`guard_config.schema_file ${shown} is not valid ${absolute.endsWith(".json") ? "JSON" : "YAML"}: ${err.message}`);
  }
}
async function compile(schema) {
  if (typeof schema !== "boolean" && (schema === null || typeof schema !== "object" || Array.isArray(schema))) {
    throw new GuardConfigError("the json_schema guard's schema must be a mapping (a JSON Schema object)");
  }
  const { compileJsonSchema } = await import("./cli-jsonSchema-JIFBOQ6K.js");
  try {
    return compileJsonSchema(schema);
  } catch (err) {
    throw new GuardConfigError(`the json_schema guard's schema is not a valid JSON Schema (2020-12): ${err.message}`);
  }
}
function describeError(error) {
  const where = error.instancePath === "" ? "(root)" : error.instancePath;
  let message = error.message ?? error.keyword;
  const params = error.params;
  if (typeof params.additionalProperty === "string") message += ` (${JSON.stringify(params.additionalProperty)})`;
  if (Array.isArray(params.allowedValues)) message += `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  return `${where}: ${message}`;
}

// src/guards/regex.ts
var regexGuard = async (request) => {
  const pattern = requiredString("regex", request.config, "pattern", 'a regular expression, e.g. "^# "');
  const flags = optionalString("regex", request.config, "flags") ?? "";
  const mustMatch = optionalBoolean("regex", request.config, "must_match", true);
  let regex;
  try {
    regex = new RegExp(pattern, flags);
  } catch (err) {
    throw new GuardConfigError(`guard_config.pattern of the regex guard is not a valid regular expression: ${err.message}`);
  }
  const match = regex.exec(request.content);
  if (mustMatch) {
    return match ? { accepted: true, feedback: "" } : { accepted: false, feedback: `the artifact must match ${regex}, but it does not` };
  }
  if (!match) return { accepted: true, feedback: "" };
  const line = request.content.slice(0, match.index).split("\n").length;
  const found = match[0].length > 80 ? `${match[0].slice(0, 77)}...` : match[0];
  return { accepted: false, feedback: `the artifact must not match ${regex}, but it does at line ${line}: ${JSON.stringify(found)}` };
};

// src/guards/index.ts
var GUARDS = {
  command: commandGuard,
  composite: compositeGuard((name) => getGuard(name)),
  contains: containsGuard,
  json: jsonGuard,
  json_schema: jsonSchemaGuard,
  regex: regexGuard
};
function knownGuard(name) {
  return Object.hasOwn(GUARDS, name);
}
function getGuard(name) {
  const names2 = Object.keys(GUARDS).sort().join(", ");
  if (name === null || name === "") {
    throw new GuardConfigError(`the pair names no guard; set guard to one of: ${names2}`);
  }
  if (!knownGuard(name)) {
    const suggestion = didYouMean(name, Object.keys(GUARDS));
    throw new GuardConfigError(`unknown guard "${name}"; pairflow has: ${names2}${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`);
  }
  return GUARDS[name];
}

// src/app/run.ts
var BudgetExceededError = class extends Error {
  constructor(message, estimate, maxCost) {
    super(message);
    this.estimate = estimate;
    this.maxCost = maxCost;
  }
  estimate;
  maxCost;
  name = "BudgetExceededError";
};
function runTarget(target, request) {
  return runWith(target, request, void 0);
}
var STORAGE_ERRORS = /* @__PURE__ */ new Set(["ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EIO"]);
async function runWith(target, request, resuming) {
  try {
    return await runLocked(target, request, resuming);
  } catch (err) {
    const code = err.code;
    if (code === void 0 || !(STORAGE_ERRORS.has(code) || err instanceof WriteError && Object.hasOwn(WRITE_FAILURES, code))) throw err;
    const file = err.path;
    const at = err instanceof WriteError && err.at ? ` at ${displayPath(err.at, request.cwd)}` : "";
    const todo = STORAGE_ERRORS.has(code) ? "Free some space and run again" : `Make sure ${file ? displayPath(path10.dirname(file), request.cwd) : "its directory"} is a directory pairflow can write (a command of the run may have removed or replaced it), then run again`;
    throw new StorageError(
      `could not write${file ? ` ${displayPath(file, request.cwd)}` : ""}: ${WRITE_FAILURES[code]} (${code}${at}). The run stopped; every file it wrote is whole. ${todo}: what was accepted is kept.`
    );
  }
}
async function runLocked(target, request, resuming) {
  const workflowPath = resolveWorkflowPath(target, request.cwd);
  const stateDir = checkedStateDir(findRepoRoot(path10.dirname(workflowPath)), request);
  const runId = request.runId ?? newRunId();
  const release = await ownWriteAsync(
    lockPath(workflowPath),
    () => acquireRunLock(workflowPath, {
      runId,
      wait: request.wait ?? true,
      onWait: request.onWait,
      onWarn: (message) => request.onEvent?.({ type: "warning", message }),
      signal: request.stop
    })
  );
  try {
    foldJournal(lockPathFor(workflowPath), displayPath(lockPathFor(workflowPath), request.cwd));
    if (!resuming) await stopLeftovers(stateDir, workflowPath);
    recoverStaged(stateDir);
    const opened = openState(workflowPath, { ...request, stateDir, warn: (message) => request.onEvent?.({ type: "warning", message }) });
    const outputDirs = [...opened.workflow.pairs.values()].flatMap(
      (pair) => pair.output === void 0 ? [] : [path10.dirname(outputPath(opened.workflow, pair))]
    );
    removeStaleTemporaries([path10.dirname(opened.lockPath), ...outputDirs, ...resuming ? directoriesUnder(stateDir, 3) : []]);
    const planned = await planOpened(opened, { selection: request.selection, finished: resuming?.resume.finished, batch: request.batch });
    await refuseWhatWouldFail(planned, request);
    await gate(planned, request);
    const children = childSetup(request, opened.workflow, planned.plan);
    const selection = request.selection ?? {};
    const warn = (message) => request.onEvent?.({ type: "warning", message });
    const recorder = new RunRecorder(stateDir, selection, warn, resuming?.earlier, resuming?.startedAt, request.batch);
    const pacer = runPacer(request);
    request.onPacing?.(() => pacer.waiting());
    const onEvent = (event) => {
      recorder.record(event);
      request.onEvent?.(
        event.type === "run_end" ? { ...event, report: finishedReport(recorder.merged(event.report), children, opened.workflow, pacer) } : event
      );
    };
    const unconfined = unconfinedWarning(children.state);
    if (unconfined) warn(unconfined);
    if (children.state?.layer)
      warn(`guards see the repository read-only here (${children.state.layer}): a tool that writes its cache there fails; see docs/security.md`);
    const trace = readTracer(request, children, planned.plan, warn);
    const ledger = new BatchFile(stateDir, opened.workflow.path, opened.store, opened.remote);
    const poll = Number(request.env?.PAIRFLOW_BATCH_POLL_MS);
    const planOrder = new Map(planned.plan.pairs.map((p, i) => [p.id, i]));
    const batcher = new Batcher({
      ledger,
      all: request.batch ?? false,
      wait: request.batchWait ?? true,
      concurrency: runConcurrency(request.concurrency).pairs,
      pollMs: request.env?.PAIRFLOW_BATCH_POLL_MS && poll >= 0 ? poll : DEFAULT_POLL_MS,
      signal: request.signal ?? new AbortController().signal,
      onEvent,
      onWarning: warn,
      order: (pair) => planOrder.get(pair) ?? planOrder.size
    });
    const deps = {
      ...drivers(request, (pair, group) => recorder.process(pair, group), batcher, pacer),
      store: opened.store,
      outputs: opened.outputs,
      remote: opened.remote,
      lockFile: new LockWriter(opened.lockPath, opened.workflow.name),
      scratch: scratchDir(),
      decide: decider(planned.plan, opened.view, resuming?.resume.finished),
      observe: (_pair, own, reads) => opened.files.observedHashes(opened.files.workflowPaths(reads), [own.files?.generator ?? {}, own.files?.guard ?? {}, own.inputs ?? {}]),
      batches: batchWave(request, batcher)
    };
    let final = false;
    try {
      prepareLauncher(commandsToStart(planned.plan));
      const report = await executePlan(planned.plan, deps, {
        runId,
        lock: opened.lock,
        ...engineConcurrency(request),
        env: children.env,
        sandbox: children.sandbox,
        limits: request.limits ?? DEFAULT_LIMITS,
        trace,
        redact: children.redact,
        resume: resuming?.resume,
        stop: request.stop,
        signal: request.signal,
        onEvent
      });
      final = report.status === "success" || report.status === "failed";
      return finishedReport(recorder.merged(report), children, opened.workflow, pacer);
    } finally {
      await batcher.close(final);
      ledger.close();
      recorder.close();
      await stopLauncher();
    }
  } finally {
    release();
  }
}
function readTracer(request, children, plan, warn) {
  if (!request.traceReads || !runsCommands(plan)) return void 0;
  const probe = probeTracer(request.env ?? {}, children.sandbox);
  if (probe.available) return probe.tracer;
  warn(`reads are not traced: ${probe.reason}; commands run untraced, and nothing is recorded of what they read`);
  return void 0;
}
function finishedReport(report, children, workflow, pacer) {
  const pacing = pacer?.summary();
  return {
    ...report,
    ...children.state ? { sandbox: children.state } : {},
    spend: spendOf(report, workflow),
    ...pacing && pacing.calls > 0 ? { pacing } : {}
  };
}
var AUTO_CONCURRENCY = 32;
function runConcurrency(concurrency) {
  if (concurrency === void 0 || concurrency === "auto") {
    return { pairs: DEFAULT_CONCURRENCY, models: AUTO_CONCURRENCY, calls: { cap: AUTO_CONCURRENCY, start: DEFAULT_CONCURRENCY } };
  }
  const n = Math.max(1, concurrency);
  return { pairs: n, calls: { cap: n, start: n } };
}
function engineConcurrency(request) {
  const { pairs, models } = runConcurrency(request.concurrency);
  if (models === void 0) return { concurrency: pairs };
  const own = request.generators ?? {};
  const is = (pair) => (pair.generator === "openai" || pair.generator === "anthropic") && !Object.hasOwn(own, pair.generator);
  return { concurrency: pairs, modelPairs: { concurrency: models, is } };
}
function runPacer(request, share = 1) {
  const minute = Number(request.env?.PAIRFLOW_RATE_MINUTE_MS);
  return new Pacer({
    clock: systemClock,
    concurrency: runConcurrency(request.concurrency).calls,
    share,
    ...request.maxWaitSeconds === void 0 ? {} : { maxWaitMs: request.maxWaitSeconds * 1e3 },
    ...request.rateLimits === void 0 ? {} : { limits: request.rateLimits },
    ...minute > 0 ? { minuteMs: minute } : {}
  });
}
function directoriesUnder(dir, depth) {
  const found = [dir];
  if (depth === 0) return found;
  let entries;
  try {
    entries = readdirSync6(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) if (entry.isDirectory()) found.push(...directoriesUnder(path10.join(dir, entry.name), depth - 1));
  return found;
}
function drivers(request, onProcess, batcher, pacing) {
  const generators = request.generators ?? {};
  const guards = request.guards ?? {};
  return {
    generator: (name) => {
      let generate2 = name !== null && Object.hasOwn(generators, name) ? generators[name] : getGenerator(name);
      if (batcher && (name === "openai" || name === "anthropic") && !Object.hasOwn(generators, name)) generate2 = batcher.generator(name, generate2);
      if (pacing) {
        const paced = generate2;
        generate2 = (req) => paced(withField(req, "pacing", pacing));
      }
      return onProcess ? (req) => generate2(withOnProcess(req, (group) => onProcess(req.pairId, group))) : generate2;
    },
    guard: (name) => {
      const check = name !== null && Object.hasOwn(guards, name) ? guards[name] : getGuard(name);
      return onProcess ? (req) => check(withOnProcess(req, (group) => onProcess(req.pairId, group))) : check;
    }
  };
}
function batchWave(request, batcher) {
  const own = (name) => name === null || !Object.hasOwn(request.generators ?? {}, name);
  return {
    batched: (pair) => own(pair.generator) && batcher.batched(pair),
    join: (pair) => batcher.join(pair),
    leave: (pair) => batcher.leave(pair)
  };
}
function withOnProcess(request, onProcess) {
  return withField(request, "onProcess", onProcess);
}
function withField(request, key, value) {
  const copy = {};
  for (const name of Reflect.ownKeys(request)) {
    if (name === key) continue;
    const property = Object.getOwnPropertyDescriptor(request, name);
    if (name !== "__proto__" && property.writable && property.enumerable && property.configurable) copy[name] = property.value;
    else Object.defineProperty(copy, name, property);
  }
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}
async function refuseWhatWouldFail(planned, request) {
  if (request.generators !== void 0 || request.guards !== void 0) return;
  const running = planned.plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
  if (running.length === 0) return;
  const under = (key, id) => key === `action_pairs.${id}` || key.startsWith(`action_pairs.${id}.`);
  const errors = (await checkWorkflow(planned.loaded, diskFiles)).filter(
    (issue) => (issue.severity ?? "error") === "error" && // Problems of a pair that will not execute wait for the run that executes it.
    (!issue.key.startsWith("action_pairs.") || running.some((id) => under(issue.key, id)))
  );
  if (errors.length > 0) throw new ConfigError(errors);
}
async function gate(planned, request) {
  const { estimate } = planned;
  const over = request.maxCost !== void 0 ? checkBudget(estimate, request.maxCost, request.maxCostName) : null;
  request.onPlanned?.(planned, over);
  if (estimate.pairs.length === 0) return;
  if (over !== null) throw new BudgetExceededError(`${over}; nothing was executed`, estimate, request.maxCost);
  if (request.confirm && asksBeforeRunning(estimate) && !await request.confirm(planned)) throw new RunDeclinedError("not confirmed; nothing was executed");
}
async function resumeTarget(runId, request, target) {
  const { cwd } = request;
  const named = target === void 0 ? void 0 : resolveWorkflowPath(target, cwd);
  const stateDir = checkedStateDir(findRepoRoot(named === void 0 ? cwd : path10.dirname(named)), request);
  const id = runId ?? latestUnfinished(stateDir, named);
  let run;
  try {
    run = readRun(stateDir, id);
  } catch (err) {
    throw new UsageError(err.message);
  }
  for (const problem of run.problems) request.onEvent?.({ type: "warning", message: problem });
  const state = runState(run);
  if (state === "success" || state === "failed") throw new UsageError(`run ${id} already finished (${state}); start a new one with pairflow run`);
  const workflowPath = run.plan?.workflow.path ?? run.events.find((e) => e.event === "run_start")?.workflow;
  if (!workflowPath) throw new UsageError(`run ${id} has no readable plan.json or trace, so there is nothing to resume; start a new run with pairflow run`);
  if (named !== void 0 && workflowPath !== named) throw new UsageError(`run ${id} is a run of ${workflowPath}, not of ${named}`);
  const holder = currentHolder(workflowPath);
  if (holder?.runId === id) throw new UsageError(`run ${id} is still going (pid ${holder.pid} on ${holder.host})`);
  await killRecordedGroups(inFlightGroups(run.events));
  const selection = run.plan?.selection ?? {};
  if (run.plan?.batch === true) request = { ...request, batch: true };
  const recordedRef = run.plan?.workflow.workflowRef ?? run.events.find((e) => e.event === "run_start")?.workflowRef;
  const currentRef = workflowRef(loadWorkflow(workflowPath, cwd).workflow);
  if (recordedRef !== currentRef) {
    request.onEvent?.({
      type: "warning",
      message: `the workflow's structure changed since run ${id} (workflowRef ${recordedRef?.slice(0, 12)} -> ${currentRef.slice(0, 12)}); planning anew, reusing everything still valid`
    });
    const report2 = await runWith(workflowPath, { ...request, stateDir, selection, runId: void 0 }, void 0);
    return { report: report2, from: id, replanned: true };
  }
  const report = await runWith(
    workflowPath,
    { ...request, stateDir, selection, runId: id },
    {
      resume: resumeState(run.events),
      earlier: outcomesFromTrace(run.events),
      startedAt: run.events[0]?.t
    }
  );
  return { report, from: id, replanned: false };
}
async function stopLeftovers(stateDir, workflowPath) {
  const last = latestRunOf(stateDir, workflowPath);
  if (last === void 0 || last.finished) return;
  await killRecordedGroups(inFlightGroups(readRun(stateDir, last.runId).events));
}
function latestUnfinished(stateDir, only) {
  const seen = /* @__PURE__ */ new Set();
  for (const id of listRunIds(stateDir)) {
    const run = readRun(stateDir, id);
    const workflow = run.plan?.workflow.path ?? run.events.find((e) => e.event === "run_start")?.workflow ?? id;
    if (seen.has(workflow) || only !== void 0 && workflow !== only) continue;
    seen.add(workflow);
    const state = runState(run);
    if ((state === "unfinished" || state === "interrupted" || state === "waiting") && currentHolder(workflow)?.runId !== id) return id;
  }
  if (only !== void 0) throw new UsageError(`no interrupted run of ${only} to resume in ${stateDir}: its latest run finished`);
  throw new UsageError(`no interrupted run to resume in ${stateDir}: the latest run of each workflow finished`);
}
async function ownWriteAsync(file, write) {
  try {
    return await write();
  } catch (err) {
    return ownWrite(file, () => {
      throw err;
    });
  }
}

// src/app/shard.ts
function sharedDirFor(stateDir) {
  return path11.join(stateDir, "shared");
}
var DEFAULT_SHARD_WAIT_MS = 30 * 60 * 1e3;
function weigher(opened) {
  const known = Object.values(opened.lock?.pairs ?? {}).map((e) => e?.durationMs).filter((d) => typeof d === "number" && d > 0).sort((a, b) => a - b);
  const typical = known.length > 0 ? known[Math.floor(known.length / 2)] : 1;
  return (id) => {
    const d = lockEntry(opened.lock, id)?.durationMs;
    return typeof d === "number" && d > 0 ? d : typical;
  };
}
function shardsOf(planned, count3) {
  return shardPlan(planned.plan, count3, weigher(planned));
}
async function planShards(target, request) {
  const planned = await planOpened(openState(target, request), request);
  return { ...planned, shards: shardsOf(planned, request.shards) };
}
async function splitOf(shared, planned, count3, request, split, pin = false) {
  await request.split?.pull(shared);
  const pinned = shared.readSplit();
  const made2 = () => {
    const shards = split();
    if (pin) shared.writeSplit({ version: 1, fanout: shared.fanout, workflowRef: planned.plan.workflowRef, count: count3, shards });
    return shards;
  };
  if (pinned === void 0) return made2();
  const owned = new Set(pinned.shards.flatMap((s) => s.pairs));
  const unowned = planned.plan.pairs.filter((p) => p.action === "run" && !owned.has(p.id)).length;
  if (pinned.workflowRef === planned.plan.workflowRef && pinned.count === count3 && unowned === 0) return pinned.shards;
  const why = pinned.count !== count3 ? `${pinned.count} shards, not ${count3}` : pinned.workflowRef !== planned.plan.workflowRef ? "another structure of the workflow" : `another plan (${unowned} pair${unowned === 1 ? "" : "s"} to run that no shard of it runs)`;
  if (shared.fanout !== "local")
    request.onEvent?.({ type: "warning", message: `the split pinned for fan-out ${shared.fanout} was made for ${why}: splitting the plan again` });
  return made2();
}
function sharedView(opened, store) {
  return { ...opened.view, record: (p, r) => store.record(p, r), hasContent: (h) => store.hasContent(h), generatedHashes: (p) => store.generatedHashes(p) };
}
function closure(plan, ids) {
  const scope = withDependencies(plan.graph, ids);
  return plan.pairs.filter((p) => scope.has(p.id));
}
function readOnly(outputs) {
  return {
    read: (pair) => outputs.read(pair),
    write: () => {
    },
    problem: (pair) => outputs.problem(pair),
    path: (pair) => outputs.path(pair),
    stage: (pair, content) => outputs.stage(pair, content)
  };
}
async function runShard(target, request) {
  const { shard } = request;
  const runId = request.runId ?? newRunId();
  const startedAt = (/* @__PURE__ */ new Date()).toISOString();
  const opened = openState(target, { ...request, warn: (message) => request.onEvent?.({ type: "warning", message }) });
  recoverStaged(opened.stateDir);
  const fanout = request.fanout ?? "local";
  const shared = new SharedStore(request.sharedDir ?? sharedDirFor(opened.stateDir), fanout, fanout === "local" ? Date.parse(startedAt) : 0, request.attempt);
  const sync = request.sync?.(shared, shard);
  let earlier = [];
  if (sync) {
    await sync.pull(shard);
    earlier = shared.readOutbox(shard);
  }
  shared.started(shard);
  request.onPhase?.("opened");
  const planned = await planOpened(opened, request);
  await refuseWhatWouldFail(planned, request);
  const shards = await splitOf(shared, planned, shard.count, request, () => shardPlan(planned.plan, shard.count, weigher(opened)), true);
  const owner = owners(shards);
  const mine = new Set(shards.find((s) => s.index === shard.index)?.pairs ?? []);
  await gate({ ...planned, estimate: await estimateOf(opened, planned.plan, (id) => mine.has(id)) }, request);
  const store = new ShardStore(opened.store, shared.store);
  const view = sharedView(opened, store);
  const plan = await planWorkflow(opened.workflow, opened.graph, view, { selection: request.selection });
  const scoped = {
    ...plan,
    pairs: closure(
      plan,
      [...mine].filter((id) => plan.byId.has(id))
    )
  };
  const waitMs = request.waitMs ?? DEFAULT_SHARD_WAIT_MS;
  const published = () => [...earlier, ...store.written];
  const publisher = sync && new Publisher(() => shared.writeOutbox(shard, published()), sync, request.pushEveryMs ?? PUSH_EVERY_MS);
  const pull = sync && { pull: (owner2) => sync.pull(owner2), everyMs: request.pullEveryMs ?? PULL_EVERY_MS };
  const pacer = runPacer(request, 1 / shard.count);
  request.onPacing?.(() => pacer.waiting());
  const deps = {
    // One of the fan-out's shards, spending one account: a share of every budget (and still what the provider says is left).
    ...drivers(request, void 0, void 0, pacer),
    store,
    outputs: readOnly(opened.outputs),
    // Where the base state's artifacts may be; a shard's own acceptances travel only through the shared store.
    remote: opened.remote && { name: opened.remote.name, fetch: (p, r) => opened.remote.fetch(p, r), save: async () => {
    } },
    // A shard leaves the lock file to the merge.
    lockFile: { record: () => {
    }, close: () => {
    } },
    scratch: scratchDir(),
    decide: decider(plan, view),
    shard: {
      owns: (id) => mine.has(id),
      await: (id, configRef, signal) => {
        const by = owner.get(id);
        if (by === void 0) return Promise.resolve({ missing: "no shard runs it: plan the fan-out again" });
        return shared.await(id, configRef, by, waitMs, signal, pull);
      }
    }
  };
  request.onPhase?.("planned");
  const children = childSetup(request, opened.workflow, scoped);
  request.onPhase?.("sandbox");
  const unconfined = unconfinedWarning(children.state);
  if (unconfined) request.onEvent?.({ type: "warning", message: unconfined });
  if (request.traceReads) request.onEvent?.({ type: "warning", message: "reads are not traced in a shard of a fanned-out run: its commands run untraced" });
  const report = await executePlan(scoped, deps, {
    runId,
    lock: opened.lock,
    ...engineConcurrency(request),
    env: children.env,
    sandbox: children.sandbox,
    limits: request.limits ?? DEFAULT_LIMITS,
    redact: children.redact,
    stop: request.stop,
    signal: request.signal,
    onEvent: (event) => {
      if (event.type === "pair_end" && event.outcome.status === "executed") publisher?.soon();
      request.onEvent?.(event);
    }
  });
  request.onPhase?.("executed");
  const result = {
    version: 1,
    ...shard,
    runId,
    ...request.attempt !== void 0 ? { attempt: request.attempt } : {},
    // A shard's run sends no provider batches, so it never ends waiting for one.
    status: report.status === "waiting" ? "interrupted" : report.status,
    startedAt,
    endedAt: (/* @__PURE__ */ new Date()).toISOString(),
    outcomes: report.pairs.filter((p) => mine.has(p.id))
  };
  shared.finished(result);
  if (publisher) {
    shared.writeOutbox(shard, published(), result);
    await publisher.now();
  }
  request.onPhase?.("reported");
  return finishedReport(report, children, opened.workflow, pacer);
}
var PUSH_EVERY_MS = 3e4;
var Publisher = class {
  constructor(write, sync, everyMs) {
    this.write = write;
    this.sync = sync;
    this.everyMs = everyMs;
  }
  write;
  sync;
  everyMs;
  last = 0;
  pending;
  timer;
  /** Something was accepted since the outbox was last written. */
  unpublished = false;
  ended = false;
  /** After an acceptance: publish now if the last time was long enough ago, else when it is. */
  soon() {
    this.unpublished = true;
    if (this.timer || this.pending || this.ended) return;
    const wait = Math.max(0, this.last + this.everyMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = void 0;
      void this.publish();
    }, wait);
  }
  /** At the end: whatever is scheduled is superseded by one last publication. */
  async now() {
    this.ended = true;
    clearTimeout(this.timer);
    this.timer = void 0;
    await this.pending;
    await this.publish(false);
  }
  publish(write = true) {
    this.last = Date.now();
    if (write) {
      this.unpublished = false;
      this.write();
    }
    this.pending = this.sync.push().finally(() => {
      this.pending = void 0;
      if (this.unpublished && !this.ended) this.soon();
    });
    return this.pending;
  }
};
async function mergeShards(target, request) {
  const workflowPath = resolveWorkflowPath(target, request.cwd);
  const lockPath2 = lockPathFor(workflowPath);
  const runId = request.runId ?? newRunId();
  const release = await acquireRunLock(workflowPath, {
    runId,
    wait: request.wait ?? true,
    onWait: request.onWait,
    onWarn: (message) => request.onEvent?.({ type: "warning", message }),
    signal: request.stop
  });
  try {
    foldJournal(lockPath2, displayPath(lockPath2, request.cwd));
    request.onPhase?.("locked");
    return await merge({ ...request, runId }, target);
  } finally {
    release();
  }
}
async function merge(request, target) {
  const runId = request.runId ?? newRunId();
  const opened = openState(target, request);
  const before = await planOpened(opened, {});
  const shared = new SharedStore(request.sharedDir ?? sharedDirFor(opened.stateDir), request.fanout ?? "local");
  if (request.sync && request.shards !== void 0) {
    for (let index = 1; index <= request.shards; index++) {
      const shard = { index, count: request.shards };
      await request.sync(shared, shard).pull(shard);
      shared.readOutbox(shard);
    }
  }
  const results = shared.results();
  const count3 = request.shards ?? results[0]?.count;
  const expected = count3 === void 0 ? [] : await splitOf(shared, before, count3, request, () => shardPlan(before.plan, count3, weigher(opened)));
  const missing = expected.filter((s) => !results.some((r) => r.index === s.index && r.count === s.count));
  request.onPhase?.("planned");
  const layered = new ShardStore(opened.store, shared.store);
  const seen = await planWorkflow(opened.workflow, opened.graph, sharedView(opened, layered), {});
  for (const p of seen.pairs) {
    if (p.action !== "skip" || p.configRef === null) continue;
    const record = shared.store.record(p.id, p.configRef);
    if (record?.status !== "accepted" || !record.contentHash || opened.store.record(p.id, p.configRef)?.status === "accepted") continue;
    const content = shared.store.content(record.contentHash);
    if (content === void 0) continue;
    opened.store.putContent(content);
    opened.store.putRecord(record);
  }
  request.onPhase?.("copied");
  const after = await planOpened(opened, {});
  const reusable = after.plan.pairs.filter((p) => p.action === "skip").map((p) => p.id);
  const scoped = { ...after.plan, pairs: closure(after.plan, reusable) };
  const writes = overlappedWrites(after.outputs);
  let folded;
  try {
    folded = await executePlan(scoped, mergeDeps(after, writes.outputs), {
      runId,
      lock: after.lock,
      env: childEnvironments(request.env ?? {}, after.workflow),
      signal: request.signal
    });
  } finally {
    await writes.settle().catch(() => {
    });
  }
  await writes.settle();
  request.onPhase?.("folded");
  const byShard = /* @__PURE__ */ new Map();
  for (const r of results) for (const o of r.outcomes) byShard.set(o.id, o);
  const fold = new Map(folded.pairs.map((p) => [p.id, p]));
  const ownerOf = owners(expected);
  const pairs = after.plan.pairs.map((p) => {
    const own = byShard.get(p.id);
    const done = fold.get(p.id);
    if (done && own?.status === "executed" && own.contentHash === done.contentHash) return own;
    if (done) return done;
    if (own && own.status !== "executed" && own.status !== "reused") return own;
    const by = ownerOf.get(p.id);
    const note = by ? `shard ${by.index}/${by.count} did not accept it` : "no shard accepted it";
    return { id: p.id, configRef: p.configRef, status: "blocked", attempts: [], contentHash: null, reasons: p.reasons, durationMs: 0, note };
  });
  const countOf = (s) => pairs.filter((p) => p.status === s).length;
  const tokens = { input: 0, output: 0 };
  for (const p of pairs)
    for (const a of p.attempts) {
      tokens.input += a.tokens?.input ?? 0;
      tokens.output += a.tokens?.output ?? 0;
    }
  const failed = missing.length > 0 || pairs.some((p) => p.status !== "executed" && p.status !== "reused");
  const report = {
    version: 1,
    runId,
    workflowRef: after.plan.workflowRef,
    status: failed ? "failed" : "success",
    pairs,
    totals: {
      pairs: pairs.length,
      executed: countOf("executed"),
      reused: countOf("reused"),
      failed: countOf("failed"),
      blocked: countOf("blocked"),
      interrupted: countOf("interrupted"),
      tokens,
      durationMs: Math.max(0, ...results.map((r) => Date.parse(r.endedAt) - Date.parse(r.startedAt)))
    }
  };
  const recorder = new RunRecorder(opened.stateDir, {}, (message) => request.onEvent?.({ type: "warning", message }));
  const events = [
    { type: "run_start", runId, plan: before.plan, resumed: false },
    ...pairs.map((outcome) => ({ type: "pair_end", outcome })),
    { type: "run_end", report }
  ];
  for (const event of events) {
    recorder.record(event);
    request.onEvent?.(event);
  }
  request.onPhase?.("recorded");
  return { report, missing };
}
var WRITES_IN_FLIGHT = 8;
function overlappedWrites(files, inFlight = WRITES_IN_FLIGHT) {
  const turns = limiter(inFlight);
  const all = [];
  const byPath = /* @__PURE__ */ new Map();
  const write = (pair, content) => {
    const at = files.path(pair) ?? pair.id;
    const written = (byPath.get(at) ?? Promise.resolve()).catch(() => {
    }).then(() => turns(() => files.writeAsync(pair, content)));
    written.catch(() => {
    });
    byPath.set(at, written);
    all.push(written);
  };
  return {
    outputs: {
      read: (pair) => files.read(pair),
      write,
      problem: (pair) => files.problem(pair),
      path: (pair) => files.path(pair),
      stage: (pair, content) => files.stage(pair, content)
    },
    settle: async () => {
      const failed = (await Promise.allSettled(all)).find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    }
  };
}
function mergeDeps(planned, outputs) {
  const refuse = () => {
    throw new Error("pairflow merge executes nothing");
  };
  const store = planned.store;
  return {
    generator: refuse,
    guard: refuse,
    store,
    outputs,
    remote: planned.remote,
    lockFile: new LockWriter(planned.lockPath, planned.workflow.name),
    scratch: scratchDir(),
    decide: decider(planned.plan, planned.view)
  };
}

// src/cli/commands/shard.ts
var shardOption = () => new Option("--shard <i/n>", "execute only shard I of N of the plan (see plan --shards); other shards' artifacts are awaited from the shared store").argParser(
  parseShard
);
function fanOutOptions(command) {
  return command.addOption(new Option("--shared-store <dir>", "the store shards share (default: <state dir>/shared)").env("PAIRFLOW_SHARED_STORE")).addOption(
    new Option("--fanout <id>", "names this fan-out, so shard reports of an earlier one in the same shared store are not read as this one's").env("PAIRFLOW_FANOUT").default("local")
  );
}
var shardWaitOption = () => new Option("--shard-wait <seconds>", "how long a shard waits for another shard's artifact before the pair that needs it is blocked").default(1800).argParser(positiveInt);
function shardsJson(shards) {
  return { shards, matrix: matrixOf(shards) };
}
function shardsText(shards) {
  if (shards.length === 0) return "\nShards: none (nothing to run)\n";
  const lines2 = shards.map((s) => {
    const awaits = Object.keys(s.awaits).length;
    return `  ${s.index}/${s.count}: ${s.pairs.length} pair${s.pairs.length === 1 ? "" : "s"}${awaits > 0 ? `, awaits ${awaits} from other shards` : ""}: ${s.pairs.map((id) => nameFor(id, "terminal")).join(", ")}`;
  });
  return `
Shards:
${lines2.join("\n")}
`;
}
function registerMerge(program, { io, setStatus }) {
  fanOutOptions(program.command("merge")).description(
    "Fold the shards of a fanned-out run into the workspace: the store, output files, the lock file and one run record. Executes nothing; fails if a shard failed or never reported."
  ).argument("[path]", PATH_HELP).option("--json", "write the merged run report as JSON to stdout").addOption(stateDirOption()).addHelpText("after", examples(["pairflow plan --shards 3 --json | jq -c .matrix", "pairflow run --shard 2/3", "pairflow merge"])).action(async (target, opts) => {
    const style = styleFor(opts.json ? io.stderr : io.stdout, io.env);
    const progress = opts.json ? io.stderr : io.stdout;
    const { report, missing } = await mergeShards(target, {
      cwd: io.cwd,
      env: io.env,
      stateDir: opts.stateDir,
      sharedDir: opts.sharedStore,
      fanout: opts.fanout,
      onPhase: mark,
      onEvent: (event) => {
        if (event.type === "warning") progress.write(eventLine(event, style) + "\n");
      }
    });
    for (const s of missing) progress.write(style.red(`shard ${s.index}/${s.count} never reported: its pairs are not merged`) + "\n");
    if (opts.json) io.stdout.write(JSON.stringify(report, null, 2) + "\n");
    else io.stdout.write(runSummary(report, style, { columns: terminalColumns(io.stdout) }));
    setStatus(report.status === "success" ? EXIT.ok : EXIT.failed);
  });
}

export {
  SANDBOX_MODES,
  SANDBOX_VARIABLE,
  DEFAULT_LIMITS,
  parseLimits,
  describeLimits,
  BudgetExceededError,
  runTarget,
  AUTO_CONCURRENCY,
  resumeTarget,
  planShards,
  runShard,
  shardOption,
  fanOutOptions,
  shardWaitOption,
  shardsJson,
  shardsText,
  registerMerge
};
