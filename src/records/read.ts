/**
 * Reading run records back: listing runs, one run's plan, trace and result, and what a resume
 * needs. Records damaged by a crash (a truncated last trace line, a half-written file) are
 * reported as problems and read around, never a crash.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { AttemptRecord, PairOutcome, ResumeState } from "../model/run.js";
import type { TokenUsage } from "../model/records.js";
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

export type RunState = "success" | "failed" | "interrupted" | "unfinished";

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
  // Run ids start with their UTC start time, so name order is time order.
  return readdirSync(dir)
    .filter((name) => /^\d{8}T\d{9}Z-[0-9a-f]+$/.test(name))
    .sort()
    .reverse();
}

export function readRun(stateDir: string, runId: string): RunRecord {
  const dir = runDir(stateDir, runId);
  const problems: string[] = [];
  if (!existsSync(dir)) throw new Error(`no run ${runId} in ${runsDir(stateDir)}`);
  const plan = readJson<PlanRecord>(path.join(dir, "plan.json"), runId, problems);
  const result = readJson<ResultRecord>(path.join(dir, "result.json"), runId, problems);
  const events = readEvents(dir, runId, problems);
  return { runId, dir, plan, events, result, problems };
}

/** One run's trace alone, read as readRun reads it: what needs neither its plan nor its result reads only this. */
export function readTrace(stateDir: string, runId: string): Pick<RunRecord, "runId" | "events" | "problems"> {
  const dir = runDir(stateDir, runId);
  if (!existsSync(dir)) throw new Error(`no run ${runId} in ${runsDir(stateDir)}`);
  const problems: string[] = [];
  return { runId, events: readEvents(dir, runId, problems), problems };
}

function readEvents(dir: string, runId: string, problems: string[]): TraceEvent[] {
  const events: TraceEvent[] = [];
  const tracePath = path.join(dir, "trace.jsonl");
  if (existsSync(tracePath)) {
    const lines = readFileSync(tracePath, "utf8").split("\n");
    const last = lines.length - 1; // the text after the final newline: empty when the trace is whole
    lines.forEach((line, i) => {
      if (line === "") return;
      try {
        events.push(JSON.parse(line) as TraceEvent);
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

function readJson<T>(file: string, runId: string, problems: string[]): T | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    problems.push(`runs/${runId}/${path.basename(file)} is not valid JSON (written only in part?); it is ignored and the trace is used instead`);
    return null;
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
        feedback: e.feedback as string,
        tokens: (e.tokens as TokenUsage | null) ?? null,
        durationMs: e.durationMs as number,
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
        feedback: e.feedback as string,
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
