/**
 * What a pair cost before: attempts and output tokens of its past accepted runs, from the lock
 * file and the traces of the newest run records (read by src/records/pastRuns.ts).
 */
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

/**
 * Past accepted runs by pair id. The lock entry counts unless a run record already holds the run
 * that produced it (same configRef).
 */
export function pairHistory(lock: LockFile | null, samples: Map<string, RunSample[]>): Map<string, PairHistory> {
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

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
