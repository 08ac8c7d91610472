/**
 * Past accepted runs of each pair, read from the run records under the state directory
 * (runs/<runId>/result.json), defensively: anything not of the expected shape is skipped.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { RunSample } from "../estimate/history.js";

/** Only the newest run records are read: enough to learn from, and bounded in time. */
export const RUN_RECORDS_READ = 20;

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
