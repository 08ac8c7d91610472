#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  acceptedBytes,
  makeRealDirs,
  openState
} from "./cli-chunk-TPNKQGFG.js";
import {
  callsModel,
  estimatePlan,
  onlyPairs,
  pairHistory,
  planWorkflow
} from "./cli-chunk-YKULHKX5.js";
import {
  lockEntry
} from "./cli-chunk-7NHSQKXA.js";
import {
  UsageError,
  displayPath,
  writeFileAtomic
} from "./cli-chunk-BXCSBTXN.js";

// src/records/read.ts
import { closeSync as closeSync2, constants, existsSync, fstatSync, openSync as openSync2, readdirSync, readSync } from "node:fs";
import path2 from "node:path";

// src/records/write.ts
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
var RECORD_VERSION = 1;
function runsDir(stateDir) {
  return path.join(stateDir, "runs");
}
function runDir(stateDir, runId) {
  if (!/^[0-9A-Za-z-]+$/.test(runId)) throw new Error(`not a run id: ${runId}`);
  return path.join(runsDir(stateDir), runId);
}
var RunRecorder = class {
  constructor(stateDir, selection, warn, earlier = /* @__PURE__ */ new Map(), startedAt, batch = false) {
    this.stateDir = stateDir;
    this.selection = selection;
    this.warn = warn;
    this.earlier = earlier;
    this.batch = batch;
    if (startedAt) this.startedAt = startedAt;
  }
  stateDir;
  selection;
  warn;
  earlier;
  batch;
  dir;
  /** The open trace.jsonl. */
  trace;
  failed = false;
  startedAt = (/* @__PURE__ */ new Date()).toISOString();
  /** Feed every run event here. */
  record = (event) => {
    switch (event.type) {
      case "run_start":
        this.dir = runDir(this.stateDir, event.runId);
        if (!event.resumed) this.write("plan.json", planRecord(event.runId, event.plan, this.selection, this.batch));
        this.append({
          event: "run_start",
          runId: event.runId,
          workflowRef: event.plan.workflowRef,
          workflow: event.plan.workflow.path,
          pid: process.pid,
          resumed: event.resumed
        });
        break;
      case "pair_start":
        this.append({ event: "pair_start", id: event.id, configRef: event.configRef });
        break;
      case "attempt_start":
        this.append({ event: "attempt_start", id: event.id, attempt: event.attempt });
        break;
      case "attempt_end":
        this.append({
          event: "attempt_end",
          id: event.id,
          attempt: event.attempt,
          accepted: event.accepted,
          // No feedback (an accepted attempt) and no tokens (a command) are left out: a fifth of a
          // trace of command pairs was these two fields empty.
          feedback: event.feedback === "" ? void 0 : event.feedback,
          tokens: event.tokens ?? void 0,
          durationMs: event.durationMs,
          reused: event.reused
        });
        break;
      case "pair_end": {
        const o = event.outcome;
        const note = o.note ?? void 0;
        if (o.status === "reused") this.append({ event: "pair_reused", id: o.id, configRef: o.configRef, contentHash: o.contentHash, note });
        else this.append({ event: "pair_end", id: o.id, status: o.status, contentHash: o.contentHash, durationMs: o.durationMs, note });
        break;
      }
      case "restored":
        this.append({ event: "restored", id: event.id, from: event.from });
        break;
      case "warning":
        this.append({ event: "warning", message: event.message });
        break;
      case "batch":
        this.append({ event: "batch", provider: event.provider, batch: event.id, state: event.state, requests: event.requests, counts: event.counts });
        break;
      case "run_end": {
        const report = this.merged(event.report);
        this.append({ event: "run_end", status: report.status, totals: report.totals });
        const result = {
          version: report.version,
          runId: report.runId,
          workflowRef: report.workflowRef,
          status: report.status,
          totals: report.totals,
          startedAt: this.startedAt,
          endedAt: (/* @__PURE__ */ new Date()).toISOString(),
          pairs: report.pairs.map((p) => ({ id: p.id, status: p.status, contentHash: p.contentHash }))
        };
        this.write("result.json", result);
        this.close();
        break;
      }
    }
  };
  /**
   * Records a child process group before it runs anything (see src/processes): if pairflow is
   * killed, `resume` finds the groups whose attempt has no end recorded and kills what is left of
   * them before their attempts are made again. A group is killed whole before its command's
   * outcome returns, so the end of the pair's attempt records the end of its groups too.
   */
  process = (pair, group) => {
    this.append({ event: "process", id: pair, pid: group.pid, startTime: group.startTime });
  };
  /**
   * The whole run's report: a pair executed before an interruption shows as executed, not as
   * reused by the resumed part.
   */
  merged(report) {
    if (this.earlier.size === 0) return report;
    const pairs = report.pairs.map((p) => {
      const before = this.earlier.get(p.id);
      return p.status === "reused" && before?.status === "executed" && before.contentHash === p.contentHash ? before : p;
    });
    const count = (s) => pairs.filter((p) => p.status === s).length;
    return { ...report, pairs, totals: { ...report.totals, executed: count("executed"), reused: count("reused") } };
  }
  /**
   * One line, written through to the operating system before this returns (a killed pairflow loses
   * none), on a descriptor opened once: opening the file and making its directory for each of
   * the half-dozen events of every pair cost more than the write.
   */
  append(event) {
    this.guard(() => {
      if (this.trace === void 0) {
        mkdirSync(this.stateDir, { recursive: true });
        makeRealDirs(this.stateDir, this.dir);
        this.trace = openSync(path.join(this.dir, "trace.jsonl"), "a");
      }
      const bytes = Buffer.from(JSON.stringify({ t: (/* @__PURE__ */ new Date()).toISOString(), ...event }) + "\n", "utf8");
      for (let done = 0; done < bytes.length; ) done += writeSync(this.trace, bytes, done, bytes.length - done);
    });
  }
  /** Closes the trace; a later event opens it again. The run's end closes it too. */
  close() {
    if (this.trace === void 0) return;
    try {
      closeSync(this.trace);
    } catch {
    }
    this.trace = void 0;
  }
  write(name, value) {
    this.guard(() => writeFileAtomic(path.join(this.dir, name), JSON.stringify(value) + "\n"));
  }
  guard(write) {
    if (this.failed || !this.dir) return;
    try {
      write();
    } catch (err) {
      this.failed = true;
      this.warn(`could not write the run record in ${displayPath(this.dir, process.cwd())} (${err.message}); the run goes on without it`);
    }
  }
};
function inFlightGroups(events) {
  const open = /* @__PURE__ */ new Map();
  for (const e of events) {
    if (e.event === "attempt_end" || e.event === "pair_end") {
      for (const [key2, { pair }] of open) if (pair === e.id) open.delete(key2);
    }
    if (typeof e.pid !== "number" || typeof e.startTime !== "string") continue;
    const key = `${e.pid}@${e.startTime}`;
    if (e.event === "process") open.set(key, { pair: e.id, group: { pid: e.pid, startTime: e.startTime } });
    else if (e.event === "process_end") open.delete(key);
  }
  return [...open.values()].map((o) => o.group);
}
function planRecord(runId, plan, selection, batch) {
  return {
    version: RECORD_VERSION,
    runId,
    createdAt: (/* @__PURE__ */ new Date()).toISOString(),
    workflow: { name: plan.workflow.name, path: plan.workflow.path, workflowRef: plan.workflowRef },
    selection,
    ...batch ? { batch: true } : {},
    // Reasons as people read them: their typed component is the plan's, and would add a tenth to the records.
    pairs: plan.pairs.map((p) => ({
      id: p.id,
      wave: p.wave,
      requires: p.requires,
      configRef: p.configRef,
      action: p.action,
      reasons: p.reasons.map(({ kind, detail }) => ({ kind, detail }))
    }))
  };
}

// src/records/read.ts
function listRunIds(stateDir) {
  const dir = runsDir(stateDir);
  if (!existsSync(dir)) return [];
  let names;
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new UsageError(
      `${dir} cannot be listed (${err.code ?? err.message}); it should be the folder of run records: remove it if it is not`
    );
  }
  return names.filter((name) => /^\d{8}T\d{9}Z-[0-9a-f]+$/.test(name)).sort().reverse();
}
function latestRunOf(stateDir, workflowPath) {
  for (const runId of listRunIds(stateDir)) {
    const dir = runDir(stateDir, runId);
    let start;
    try {
      const fd = openSync2(path2.join(dir, "trace.jsonl"), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      try {
        const head = Buffer.alloc(64 * 1024);
        const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString("utf8");
        start = JSON.parse(text.slice(0, text.indexOf("\n")));
      } finally {
        closeSync2(fd);
      }
    } catch {
      continue;
    }
    if (isObject(start) && start.event === "run_start" && start.workflow === workflowPath)
      return { runId, finished: existsSync(path2.join(dir, "result.json")) };
  }
  return void 0;
}
function readRun(stateDir, runId) {
  const dir = runDir(stateDir, runId);
  const problems = [];
  if (!existsSync(dir)) throw new Error(`no run ${runId} in ${runsDir(stateDir)}`);
  const plan = readJson(path2.join(dir, "plan.json"), runId, problems, isPlanRecord);
  const result = readJson(path2.join(dir, "result.json"), runId, problems, isResultRecord);
  const events = readEvents(dir, runId, problems);
  return { runId, dir, plan, events, result, problems };
}
function readTrace(stateDir, runId, ids) {
  const dir = runDir(stateDir, runId);
  if (!existsSync(dir)) throw new Error(`no run ${runId} in ${runsDir(stateDir)}`);
  const problems = [];
  return { runId, events: readEvents(dir, runId, problems, ids), problems };
}
function mayBeOf(line, ids) {
  const at = line.indexOf('"id":"');
  if (at < 0) return false;
  const end = line.indexOf('"', at + 6);
  const id = line.slice(at + 6, end);
  return id.includes("\\") || ids.has(id);
}
function readEvents(dir, runId, problems, ids) {
  const events = [];
  const tracePath = path2.join(dir, "trace.jsonl");
  if (existsSync(tracePath)) {
    const text = readRecordFile(tracePath, `runs/${runId}/trace.jsonl`, problems);
    if (text === void 0) return events;
    const lines = text.split("\n");
    const last = lines.length - 1;
    lines.forEach((line, i) => {
      if (line === "" || ids && !mayBeOf(line, ids)) return;
      try {
        const event = JSON.parse(line);
        if (!isEvent(event)) problems.push(`runs/${runId}/trace.jsonl: line ${i + 1} is not an event pairflow wrote; it is ignored`);
        else if (!ids || ids.has(event.id)) events.push(event);
      } catch {
        problems.push(
          i === last ? `runs/${runId}/trace.jsonl: line ${i + 1} is incomplete (the run was stopped while writing it); it is ignored` : `runs/${runId}/trace.jsonl: line ${i + 1} is not valid JSON; it is ignored`
        );
      }
    });
  }
  return events;
}
function readJson(file, runId, problems, shape) {
  if (!existsSync(file)) return null;
  const shown = `runs/${runId}/${path2.basename(file)}`;
  const text = readRecordFile(file, shown, problems);
  if (text === void 0) return null;
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    problems.push(`${shown} is not valid JSON (written only in part?); it is ignored and the trace is used instead`);
    return null;
  }
  if (shape(value)) return value;
  problems.push(`${shown} is not a record pairflow wrote (edited, or of another version?); it is ignored and the trace is used instead`);
  return null;
}
function readRecordFile(file, shown, problems) {
  let fd;
  try {
    fd = openSync2(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      problems.push(`${shown} is not a regular file; it is ignored`);
      return void 0;
    }
    const buffer = Buffer.alloc(stat.size);
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0; ) length += n;
    return buffer.subarray(0, length).toString("utf8");
  } catch (err) {
    problems.push(`${shown} cannot be read (${err.code ?? err.message}); it is ignored`);
    return void 0;
  } finally {
    if (fd !== void 0) closeSync2(fd);
  }
}
function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
var isString = (v) => typeof v === "string";
var isNumber = (v) => typeof v === "number" && Number.isFinite(v);
var optional = (v, check) => v === void 0 || v === null || check(v);
var isTokens = (v) => isObject(v) && isNumber(v.input) && isNumber(v.output);
var isReused = (v) => isObject(v) && (v.kind === "request" || v.kind === "rejudged") && isString(v.pair) && isString(v.at);
var STATUSES = /* @__PURE__ */ new Set(["executed", "reused", "failed", "blocked", "interrupted"]);
function isPlanRecord(v) {
  return isObject(v) && optional(v.createdAt, isString) && isObject(v.workflow) && isString(v.workflow.path) && Array.isArray(v.pairs) && v.pairs.every(
    (p) => isObject(p) && isString(p.id) && (p.action === "run" || p.action === "skip") && optional(p.configRef, isString) && Array.isArray(p.reasons) && p.reasons.every((r) => isObject(r) && isString(r.detail))
  );
}
function isResultRecord(v) {
  return isObject(v) && (v.status === "success" || v.status === "failed" || v.status === "interrupted" || v.status === "waiting") && optional(v.startedAt, isString) && isObject(v.totals) && isNumber(v.totals.executed) && isNumber(v.totals.reused) && isNumber(v.totals.failed) && isTokens(v.totals.tokens) && Array.isArray(v.pairs) && v.pairs.every((p) => isObject(p) && isString(p.id) && isString(p.status) && optional(p.contentHash, isString));
}
function isEvent(e) {
  if (!isObject(e) || !isString(e.event) || !isString(e.t)) return false;
  switch (e.event) {
    case "run_start":
      return optional(e.workflow, isString);
    case "run_end":
      return e.status === "success" || e.status === "failed" || e.status === "interrupted" || e.status === "waiting";
    case "pair_start":
      return isString(e.id) && optional(e.configRef, isString);
    case "attempt_end":
      return isString(e.id) && isNumber(e.attempt) && typeof e.accepted === "boolean" && optional(e.feedback, isString) && optional(e.tokens, isTokens) && isNumber(e.durationMs) && optional(e.reused, isReused);
    case "pair_end":
      return isString(e.id) && isString(e.status) && STATUSES.has(e.status) && optional(e.configRef, isString) && optional(e.contentHash, isString) && optional(e.durationMs, isNumber) && optional(e.note, isString);
    case "pair_reused":
      return isString(e.id) && optional(e.configRef, isString) && optional(e.contentHash, isString) && optional(e.durationMs, isNumber) && optional(e.note, isString);
    default:
      return true;
  }
}
function runState(run) {
  if (run.result) return run.result.status;
  const end = [...run.events].reverse().find((e) => e.event === "run_end");
  return end ? end.status : "unfinished";
}
function listing(run) {
  const outcomes = outcomesFromTrace(run.events);
  const count = (s) => [...outcomes.values()].filter((o) => o.status === s).length;
  const tokens = { input: 0, output: 0 };
  for (const e of run.events) {
    const t = e.event === "attempt_end" ? e.tokens : null;
    if (t) {
      tokens.input += t.input;
      tokens.output += t.output;
    }
  }
  const started = run.events.find((e) => e.event === "run_start")?.t ?? run.plan?.createdAt ?? null;
  const ended = [...run.events].reverse().find((e) => e.event === "run_end")?.t ?? null;
  return {
    runId: run.runId,
    workflow: run.plan?.workflow.path ?? null,
    startedAt: started,
    status: runState(run),
    executed: run.result?.totals.executed ?? count("executed"),
    reused: run.result?.totals.reused ?? count("reused"),
    failed: run.result?.totals.failed ?? count("failed"),
    tokens: run.result?.totals.tokens ?? tokens,
    durationMs: started && ended ? Date.parse(ended) - Date.parse(started) : null
  };
}
function outcomesFromTrace(events) {
  const outcomes = /* @__PURE__ */ new Map();
  const attempts = /* @__PURE__ */ new Map();
  const refs = /* @__PURE__ */ new Map();
  for (const e of events) {
    const id = e.id;
    if (e.event === "pair_start") {
      attempts.set(id, []);
      refs.set(id, e.configRef);
    }
    if (e.event === "attempt_end") {
      (attempts.get(id) ?? attempts.set(id, []).get(id)).push({
        attempt: e.attempt,
        accepted: e.accepted,
        feedback: e.feedback ?? "",
        tokens: e.tokens ?? null,
        durationMs: e.durationMs,
        ...e.reused ? { reused: e.reused } : {}
      });
    }
    if (e.event === "pair_end" || e.event === "pair_reused") {
      outcomes.set(id, {
        id,
        configRef: e.configRef ?? refs.get(id) ?? null,
        status: e.event === "pair_reused" ? "reused" : e.status,
        attempts: attempts.get(id) ?? [],
        contentHash: e.contentHash ?? null,
        reasons: [],
        durationMs: e.durationMs ?? 0,
        note: e.note ?? null
      });
    }
  }
  return outcomes;
}
function resumeState(events) {
  const finished = /* @__PURE__ */ new Set();
  const started = /* @__PURE__ */ new Map();
  for (const e of events) {
    const id = e.id;
    if (e.event === "pair_start" && started.get(id)?.configRef !== e.configRef) started.set(id, { configRef: e.configRef, attempts: [] });
    if (e.event === "attempt_end" && started.has(id) && e.accepted !== true) {
      started.get(id).attempts.push({
        attempt: e.attempt,
        accepted: e.accepted,
        feedback: e.feedback ?? "",
        tokens: e.tokens ?? null,
        durationMs: e.durationMs
      });
    }
    if (e.event === "pair_end" && e.status === "executed" || e.event === "pair_reused") {
      finished.add(id);
      started.delete(id);
    }
  }
  return { finished, attempts: started };
}

// src/records/pastRuns.ts
var RUN_RECORDS_READ = 20;
function readRunSamples(stateDir, limit = RUN_RECORDS_READ, pairs) {
  const samples = /* @__PURE__ */ new Map();
  let ids;
  try {
    ids = listRunIds(stateDir).slice(0, limit);
  } catch {
    return samples;
  }
  for (const id of ids) {
    let outcomes;
    try {
      outcomes = outcomesFromTrace(readTrace(stateDir, id, pairs).events);
    } catch {
      continue;
    }
    for (const o of outcomes.values()) {
      if (typeof o.id !== "string" || o.status !== "executed" || !Array.isArray(o.attempts) || o.attempts.length === 0) continue;
      const list = samples.get(o.id) ?? [];
      list.push({ configRef: typeof o.configRef === "string" ? o.configRef : null, attempts: attemptsMade(o.attempts), outputs: outputTokens(o.attempts) });
      samples.set(o.id, list);
    }
  }
  return samples;
}
function attemptsMade(attempts) {
  const numbers = attempts.map((a) => a?.attempt).filter((n) => Number.isInteger(n) && n >= 1);
  return Math.max(attempts.length, ...numbers);
}
function outputTokens(attempts) {
  const outputs = [];
  for (const a of attempts) {
    const output = a?.tokens?.output;
    if (typeof output === "number" && Number.isFinite(output) && output >= 0) outputs.push(output);
  }
  return outputs;
}

// src/workspace/tokenTable.ts
import { readFileSync } from "node:fs";
function readPackagedTokenTable() {
  try {
    return readFileSync(new URL("./o200k_base.bin", import.meta.url));
  } catch {
    return void 0;
  }
}

// src/app/plan.ts
async function planTarget(target, request) {
  const opened = openState(target, request);
  return planOpened(opened, request);
}
async function planOpened(opened, request) {
  const plan = await planWorkflow(opened.workflow, opened.graph, opened.view, { selection: request.selection, finished: request.finished });
  return { ...opened, plan, estimate: await estimateOf(opened, plan, void 0, request.batch) };
}
function estimateOf(opened, plan, among, batch) {
  const only = onlyPairs(plan.workflow, plan.selection);
  const include = (id) => (only?.has(id) ?? true) && (among?.(id) ?? true) && callsModel(opened.workflow.pairs.get(id));
  const executing = new Set(plan.pairs.filter((p) => p.action === "run" && include(p.id)).map((p) => p.id));
  return estimatePlan(
    {
      workflow: opened.workflow,
      // Past runs matter only to pairs that execute: only their events are read, and with none,
      // neither records nor lock are.
      history: executing.size > 0 ? pairHistory(opened.lock, readRunSamples(opened.stateDir, RUN_RECORDS_READ, executing)) : /* @__PURE__ */ new Map(),
      contentOf: (planned) => acceptedContent(opened, planned),
      tokenTable: readPackagedTokenTable
    },
    plan,
    { include, batch }
  );
}
function acceptedContent(opened, planned) {
  const pair = opened.workflow.pairs.get(planned.id);
  const file = opened.outputs.hash(pair) === void 0 ? void 0 : opened.outputs.read(pair);
  const hash = planned.action === "skip" ? planned.artifact?.contentHash : lockEntry(opened.lock, planned.id)?.contentHash;
  if (file !== void 0) return ((hash === void 0 ? void 0 : acceptedBytes(file, hash)) ?? file).toString("utf8");
  return hash === void 0 ? void 0 : opened.store.content(hash)?.toString("utf8");
}

export {
  runDir,
  RunRecorder,
  inFlightGroups,
  listRunIds,
  latestRunOf,
  readRun,
  runState,
  listing,
  outcomesFromTrace,
  resumeState,
  planTarget,
  planOpened,
  estimateOf,
  acceptedContent
};
