/**
 * Past accepted runs of each pair, from the run records under the state directory, read the way
 * `pairflow show` reads them (readTrace, the part of readRun that reads the trace, and outcomesFromTrace): each executed pair's attempts and their
 * tokens are in the trace's attempt_end events. Defensive: a record, or a part of one, that cannot
 * be read or is not of the expected shape is skipped, never an error.
 */
import type { RunSample } from "../estimate/history.js";
import type { AttemptRecord } from "../model/run.js";
import { listRunIds, outcomesFromTrace, readTrace } from "./read.js";

/** Only the newest run records are read: enough to learn from, and bounded in time. */
export const RUN_RECORDS_READ = 20;

/** Accepted runs of each pair in the newest run records, newest first; with `pairs`, of those pairs only. */
export function readRunSamples(stateDir: string, limit = RUN_RECORDS_READ, pairs?: ReadonlySet<string>): Map<string, RunSample[]> {
  const samples = new Map<string, RunSample[]>();
  let ids: string[];
  try {
    ids = listRunIds(stateDir).slice(0, limit); // newest first
  } catch {
    return samples; // no readable runs folder: nothing to learn from
  }
  for (const id of ids) {
    let outcomes;
    try {
      outcomes = outcomesFromTrace(readTrace(stateDir, id, pairs).events);
    } catch {
      continue; // gone since it was listed, or events of another shape
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

/**
 * How many attempts the accepted run made. A resumed pair's trace holds only the attempts made
 * after the resume, but their numbers go on from before it.
 */
function attemptsMade(attempts: readonly AttemptRecord[]): number {
  const numbers = attempts.map((a) => a?.attempt).filter((n): n is number => Number.isInteger(n) && n >= 1);
  return Math.max(attempts.length, ...numbers);
}

/** Output tokens of each attempt whose provider reported usage. */
function outputTokens(attempts: readonly AttemptRecord[]): number[] {
  const outputs: number[] = [];
  for (const a of attempts) {
    const output: unknown = a?.tokens?.output;
    if (typeof output === "number" && Number.isFinite(output) && output >= 0) outputs.push(output);
  }
  return outputs;
}
