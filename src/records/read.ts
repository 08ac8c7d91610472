/**
 * Reading run records back: listing runs, one run's plan, trace and result, and what a resume
 * needs. Records damaged by a crash (a truncated last trace line, a half-written file) or edited
 * into another shape (well-formed JSON that is not what pairflow wrote) are reported as problems,
 * by path, and read around, never a crash.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import path from "node:path";
import type { AttemptRecord, PairOutcome, ResumeState, Reused } from "../model/run.js";
import type { TokenUsage } from "../model/records.js";
import { UsageError } from "../model/errors.js";
import { runDir, runsDir, type PlanRecord, type ResultRecord } from "./write.js";

export interface TraceEvent {
  t: string;
  event: string;
  [key: string]: unknown;
}

export interface RunRecord {
  runId: string;
  dir: string;
  plan: PlanRecord | null;
  events: TraceEvent[];
  result: ResultRecord | null;
  /** What could not be read, in words a person can act on. */
  problems: string[];
}

/** waiting: it ended with pairs waiting for provider batches (`--no-wait`), to be collected by a later run or resume. */
export type RunState = "success" | "failed" | "interrupted" | "waiting" | "unfinished";

export interface RunListing {
  runId: string;
  workflow: string | null;
  startedAt: string | null;
  status: RunState;
  executed: number;
  reused: number;
  failed: number;
  tokens: TokenUsage;
  durationMs: number | null;
}

export function listRunIds(stateDir: string): string[] {
  const dir = runsDir(stateDir);
  if (!existsSync(dir)) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new UsageError(
      `${dir} cannot be listed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); it should be the folder of run records: remove it if it is not`,
    );
  }
  // Run ids start with their UTC start time, so name order is time order.
  return names
    .filter((name) => /^\d{8}T\d{9}Z-[0-9a-f]+$/.test(name))
    .sort()
    .reverse();
}

/**
 * The latest run of this workflow that left a trace, and whether it finished (wrote its result):
 * found from each trace's first line, newest run first, without reading any run whole.
 */
export function latestRunOf(stateDir: string, workflowPath: string): { runId: string; finished: boolean } | undefined {
  for (const runId of listRunIds(stateDir)) {
    const dir = runDir(stateDir, runId);
    let start: unknown;
    try {
      const fd = openSync(path.join(dir, "trace.jsonl"), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      try {
        const head = Buffer.alloc(64 * 1024);
        const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString("utf8");
        start = JSON.parse(text.slice(0, text.indexOf("\n")));
      } finally {
        closeSync(fd);
      }
    } catch {
      continue; // no trace, or not one pairflow wrote: nothing of it is running
    }
    if (isObject(start) && start.event === "run_start" && start.workflow === workflowPath)
      return { runId, finished: existsSync(path.join(dir, "result.json")) };
  }
  return undefined;
}

export function readRun(stateDir: string, runId: string): RunRecord {
  const dir = runDir(stateDir, runId);
  const problems: string[] = [];
  if (!existsSync(dir)) throw new Error(`no run ${runId} in ${runsDir(stateDir)}`);
  const plan = readJson(path.join(dir, "plan.json"), runId, problems, isPlanRecord);
  const result = readJson(path.join(dir, "result.json"), runId, problems, isResultRecord);
  const events = readEvents(dir, runId, problems);
  return { runId, dir, plan, events, result, problems };
}

/**
 * One run's trace alone, read as readRun reads it: what needs neither its plan nor its result reads
 * only this. With `ids`, only the events of those pairs are read (events of no pair are left out).
 */
export function readTrace(stateDir: string, runId: string, ids?: ReadonlySet<string>): Pick<RunRecord, "runId" | "events" | "problems"> {
  const dir = runDir(stateDir, runId);
  if (!existsSync(dir)) throw new Error(`no run ${runId} in ${runsDir(stateDir)}`);
  const problems: string[] = [];
  return { runId, events: readEvents(dir, runId, problems, ids), problems };
}

/**
 * Whether a trace line may be an event of one of these pairs, without parsing it: the first
 * `"id":"` outside a string is the event's own id (the writer puts it after t and event), and an id
 * written with escapes is parsed to be sure.
 */
function mayBeOf(line: string, ids: ReadonlySet<string>): boolean {
  const at = line.indexOf('"id":"');
  if (at < 0) return false;
  const end = line.indexOf('"', at + 6);
  const id = line.slice(at + 6, end);
  return id.includes("\\") || ids.has(id);
}

function readEvents(dir: string, runId: string, problems: string[], ids?: ReadonlySet<string>): TraceEvent[] {
  const events: TraceEvent[] = [];
  const tracePath = path.join(dir, "trace.jsonl");
  if (existsSync(tracePath)) {
    const text = readRecordFile(tracePath, `runs/${runId}/trace.jsonl`, problems);
    if (text === undefined) return events;
    const lines = text.split("\n");
    const last = lines.length - 1; // the text after the final newline: empty when the trace is whole
    lines.forEach((line, i) => {
      if (line === "" || (ids && !mayBeOf(line, ids))) return;
      try {
        const event: unknown = JSON.parse(line);
        if (!isEvent(event)) problems.push(`runs/${runId}/trace.jsonl: line ${i + 1} is not an event pairflow wrote; it is ignored`);
        else if (!ids || ids.has(event.id as string)) events.push(event);
      } catch {
        problems.push(
          i === last
            ? `runs/${runId}/trace.jsonl: line ${i + 1} is incomplete (the run was stopped while writing it); it is ignored`
            : `runs/${runId}/trace.jsonl: line ${i + 1} is not valid JSON; it is ignored`,
        );
      }
    });
  }
  return events;
}

function readJson<T>(file: string, runId: string, problems: string[], shape: (value: unknown) => value is T): T | null {
  if (!existsSync(file)) return null;
  const shown = `runs/${runId}/${path.basename(file)}`;
  const text = readRecordFile(file, shown, problems);
  if (text === undefined) return null;
  let value: unknown;
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

/**
 * A record file's text, when it is a regular file: a pipe or a directory in its place is a
 * problem, never a wait, and a symbolic link is not followed (ELOOP, a problem too).
 */
function readRecordFile(file: string, shown: string, problems: string[]): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      problems.push(`${shown} is not a regular file; it is ignored`);
      return undefined;
    }
    const buffer = Buffer.alloc(stat.size);
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0;) length += n;
    return buffer.subarray(0, length).toString("utf8");
  } catch (err) {
    problems.push(`${shown} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); it is ignored`);
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------
// The shapes pairflow writes (src/records/write.ts), checked as far as readers rely on them.

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const isString = (v: unknown): v is string => typeof v === "string";
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const optional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || v === null || check(v);
const isTokens = (v: unknown): v is TokenUsage => isObject(v) && isNumber(v.input) && isNumber(v.output);
const isReused = (v: unknown): v is Reused => isObject(v) && (v.kind === "request" || v.kind === "rejudged") && isString(v.pair) && isString(v.at);
const STATUSES = new Set(["executed", "reused", "failed", "blocked", "interrupted"]);

function isPlanRecord(v: unknown): v is PlanRecord {
  return (
    isObject(v) &&
    optional(v.createdAt, isString) &&
    isObject(v.workflow) &&
    isString(v.workflow.path) &&
    Array.isArray(v.pairs) &&
    v.pairs.every(
      (p: unknown) =>
        isObject(p) &&
        isString(p.id) &&
        (p.action === "run" || p.action === "skip") &&
        optional(p.configRef, isString) &&
        Array.isArray(p.reasons) &&
        p.reasons.every((r: unknown) => isObject(r) && isString(r.detail)),
    )
  );
}

function isResultRecord(v: unknown): v is ResultRecord {
  return (
    isObject(v) &&
    (v.status === "success" || v.status === "failed" || v.status === "interrupted" || v.status === "waiting") &&
    optional(v.startedAt, isString) &&
    isObject(v.totals) &&
    isNumber(v.totals.executed) &&
    isNumber(v.totals.reused) &&
    isNumber(v.totals.failed) &&
    isTokens(v.totals.tokens) &&
    Array.isArray(v.pairs) &&
    v.pairs.every((p: unknown) => isObject(p) && isString(p.id) && isString(p.status) && optional(p.contentHash, isString))
  );
}

/** An event with the fields its readers use, of the types they expect; events of kinds not known here need only a name and a time. */
function isEvent(e: unknown): e is TraceEvent {
  if (!isObject(e) || !isString(e.event) || !isString(e.t)) return false;
  switch (e.event) {
    case "run_start":
      return optional(e.workflow, isString);
    case "run_end":
      return e.status === "success" || e.status === "failed" || e.status === "interrupted" || e.status === "waiting";
    case "pair_start":
      return isString(e.id) && optional(e.configRef, isString);
    case "attempt_end":
      return (
        isString(e.id) &&
        isNumber(e.attempt) &&
        typeof e.accepted === "boolean" &&
        optional(e.feedback, isString) &&
        optional(e.tokens, isTokens) &&
        isNumber(e.durationMs) &&
        optional(e.reused, isReused)
      );
    case "pair_end":
      return (
        isString(e.id) &&
        isString(e.status) &&
        STATUSES.has(e.status) &&
        optional(e.configRef, isString) &&
        optional(e.contentHash, isString) &&
        optional(e.durationMs, isNumber) &&
        optional(e.note, isString)
      );
    case "pair_reused":
      return (
        isString(e.id) && optional(e.configRef, isString) && optional(e.contentHash, isString) && optional(e.durationMs, isNumber) && optional(e.note, isString)
      );
    default:
      return true;
  }
}

export function runState(run: RunRecord): RunState {
  if (run.result) return run.result.status;
  const end = [...run.events].reverse().find((e) => e.event === "run_end");
  return end ? (end.status as RunState) : "unfinished";
}

export function listing(run: RunRecord): RunListing {
  const outcomes = outcomesFromTrace(run.events);
  const count = (s: string) => [...outcomes.values()].filter((o) => o.status === s).length;
  const tokens = { input: 0, output: 0 };
  for (const e of run.events) {
    const t = e.event === "attempt_end" ? (e.tokens as TokenUsage | null) : null;
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
    durationMs: started && ended ? Date.parse(ended) - Date.parse(started) : null,
  };
}

/** Each pair's last outcome in the trace, with the attempts it made. */
export function outcomesFromTrace(events: TraceEvent[]): Map<string, PairOutcome> {
  const outcomes = new Map<string, PairOutcome>();
  const attempts = new Map<string, AttemptRecord[]>();
  const refs = new Map<string, string>();
  for (const e of events) {
    const id = e.id as string;
    if (e.event === "pair_start") {
      attempts.set(id, []);
      refs.set(id, e.configRef as string);
    }
    if (e.event === "attempt_end") {
      (attempts.get(id) ?? attempts.set(id, []).get(id)!).push({
        attempt: e.attempt as number,
        accepted: e.accepted as boolean,
        feedback: (e.feedback as string | undefined) ?? "",
        tokens: (e.tokens as TokenUsage | null) ?? null,
        durationMs: e.durationMs as number,
        ...(e.reused ? { reused: e.reused as Reused } : {}),
      });
    }
    if (e.event === "pair_end" || e.event === "pair_reused") {
      outcomes.set(id, {
        id,
        configRef: (e.configRef as string | undefined) ?? refs.get(id) ?? null,
        status: e.event === "pair_reused" ? "reused" : (e.status as PairOutcome["status"]),
        attempts: attempts.get(id) ?? [],
        contentHash: (e.contentHash as string | null) ?? null,
        reasons: [],
        durationMs: (e.durationMs as number | undefined) ?? 0,
        note: (e.note as string | null) ?? null,
      });
    }
  }
  return outcomes;
}

/**
 * What resuming this run must not repeat: pairs that finished, and the attempts made by pairs
 * that had started but not succeeded. An attempt whose generator call never ended is not among
 * them, so it is made again.
 */
export function resumeState(events: TraceEvent[]): ResumeState {
  const finished = new Set<string>();
  const started = new Map<string, { configRef: string; attempts: AttemptRecord[] }>();
  for (const e of events) {
    const id = e.id as string;
    // A pair started again by an earlier resume keeps the attempts it made before that.
    if (e.event === "pair_start" && started.get(id)?.configRef !== e.configRef) started.set(id, { configRef: e.configRef as string, attempts: [] });
    // An accepted attempt whose pair did not end was not recorded as accepted: it is made again,
    // as it would have been, rather than counted as one used up.
    if (e.event === "attempt_end" && started.has(id) && e.accepted !== true) {
      started.get(id)!.attempts.push({
        attempt: e.attempt as number,
        accepted: e.accepted as boolean,
        feedback: (e.feedback as string | undefined) ?? "",
        tokens: (e.tokens as TokenUsage | null) ?? null,
        durationMs: e.durationMs as number,
      });
    }
    // A failed pair keeps its attempts: with none left, resuming ends it the same way, at no cost.
    if ((e.event === "pair_end" && e.status === "executed") || e.event === "pair_reused") {
      finished.add(id);
      started.delete(id);
    }
  }
  return { finished, attempts: started };
}
