/**
 * What a pair cost before: attempts and output tokens of its past accepted runs, from the lock
 * file and, when the state directory holds them, the run records (runs/<runId>/result.json).
 * Both are read defensively: anything not of the expected shape is skipped, never an error.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { LockFile } from "../model/records.js";

/** One accepted run of a pair. */
export interface RunSample {
  configRef: string | null;
  attempts: number;
  /** Output tokens of each attempt whose provider reported usage. */
  outputs: number[];
}

export interface PairHistory {
  /** Output tokens per attempt, one entry per attempt with reported usage. */
  outputs: number[];
  /** Attempts per accepted run. */
  attempts: number[];
}

/** Only the newest run records are read: enough to learn from, and bounded in time. */
export const RUN_RECORDS_READ = 20;

/**
 * Past accepted runs by pair id. The lock entry counts unless a run record already holds the run
 * that produced it (same configRef).
 */
export function pairHistory(lock: LockFile | null, stateDir: string): Map<string, PairHistory> {
  const samples = readRunSamples(stateDir);
  for (const [id, entry] of Object.entries(lock?.pairs ?? {})) {
    if (entry.source !== "generated" || !(entry.attempts >= 1)) continue;
    const list = samples.get(id) ?? [];
    if (list.some((s) => s.configRef === entry.configRef)) continue;
    // The lock keeps totals; zero tokens means the generator reported none (a command).
    const input = entry.tokens?.input ?? 0;
    const output = entry.tokens?.output ?? 0;
    const reported = input + output > 0;
    const perAttempt = output / entry.attempts;
    list.push({ configRef: entry.configRef, attempts: entry.attempts, outputs: reported ? Array(entry.attempts).fill(perAttempt) : [] });
    samples.set(id, list);
  }
  const history = new Map<string, PairHistory>();
  for (const [id, list] of samples) {
    history.set(id, { outputs: list.flatMap((s) => s.outputs), attempts: list.map((s) => s.attempts) });
  }
  return history;
}

/**
 * Accepted runs of each pair in the newest run records. A record is used for what it surely says:
 * a `pairs` list whose entries have an `id`, a `status` of "executed", and `attempts` with `tokens`.
 */
export function readRunSamples(stateDir: string, limit = RUN_RECORDS_READ): Map<string, RunSample[]> {
  const samples = new Map<string, RunSample[]>();
  const runs = path.join(stateDir, "runs");
  let names: string[];
  try {
    names = existsSync(runs) ? readdirSync(runs) : [];
  } catch {
    return samples;
  }
  // Run ids begin with their start time, so the last names are the newest runs.
  for (const name of names.sort().slice(-limit)) {
    const result = readJson(path.join(runs, name, "result.json"));
    const pairs = isRecord(result) && Array.isArray(result.pairs) ? result.pairs : [];
    for (const p of pairs) {
      if (!isRecord(p) || typeof p.id !== "string" || p.status !== "executed" || !Array.isArray(p.attempts) || p.attempts.length === 0) continue;
      const outputs: number[] = [];
      for (const a of p.attempts) {
        const output = isRecord(a) && isRecord(a.tokens) ? a.tokens.output : undefined;
        if (typeof output === "number" && Number.isFinite(output) && output >= 0) outputs.push(output);
      }
      const list = samples.get(p.id) ?? [];
      list.push({ configRef: typeof p.configRef === "string" ? p.configRef : null, attempts: p.attempts.length, outputs });
      samples.set(p.id, list);
    }
  }
  return samples;
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined; // missing, half-written or not JSON: nothing to learn from
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
