/**
 * Where a process's time goes, for whoever looks for it: with PAIRFLOW_TIMING=<file>, each process
 * appends one JSON line to that file as it exits, {"pid", "argv", "marks": [[phase, ms], ...]},
 * where ms counts from the process's start. The fan-out benchmark (bench/shards.ts) reads it.
 * Without the variable nothing is kept.
 */
import { appendFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

const marks: [string, number][] = [];
let file: string | undefined;

/** Starts keeping marks when PAIRFLOW_TIMING names a file; the first is "main", the last "exit". */
export function startTiming(env: NodeJS.ProcessEnv, argv: readonly string[]): void {
  file = env.PAIRFLOW_TIMING || undefined;
  if (file === undefined) return;
  mark("main");
  process.on("exit", () => {
    mark("exit");
    try {
      appendFileSync(file!, JSON.stringify({ pid: process.pid, argv, marks }) + "\n");
    } catch {
      // Timing is never a reason to fail.
    }
  });
}

/** Notes that the process reached `phase` now. */
export function mark(phase: string): void {
  if (file !== undefined) marks.push([phase, Math.round(performance.now() * 10) / 10]);
}
