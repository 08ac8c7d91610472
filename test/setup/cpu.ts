/**
 * Where the suite's processor time goes, file by file: with PAIRFLOW_TEST_CPU=<file>, each test file
 * appends a line to <file>: its path, the CPU seconds of the worker while it ran (user, system), and
 * those of the processes it started and waited for (the CLI, the action, commands: user, system),
 * then its wall time. A worker runs one file at a time, so the figures are that file's own.
 * `sort -t$'\t' -k2 -rn` on the sums finds what to make cheaper; the suite's time is bound by
 * processor time on two cores.
 */
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";

const TICKS = 100; // USER_HZ: /proc counts in hundredths of a second on Linux

/** This process's CPU ticks, and those of its children it waited for (fields 14 to 17 of /proc/self/stat). */
function ticks(): number[] {
  const text = readFileSync("/proc/self/stat", "utf8");
  return text
    .slice(text.lastIndexOf(")") + 2)
    .split(" ")
    .slice(11, 15)
    .map(Number);
}

const out = process.env.PAIRFLOW_TEST_CPU;
let before: number[] = [];
let started = 0;
beforeAll(() => {
  before = ticks();
  started = Date.now();
});
// Vitest hands the suite as the second argument; the first must be a destructuring pattern.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, suite) => {
  if (!out) return;
  const after = ticks();
  const file = path.relative(process.cwd(), suite.file.filepath);
  const seconds = after.map((t, i) => ((t - before[i]!) / TICKS).toFixed(2));
  appendFileSync(out, [file, ...seconds, ((Date.now() - started) / 1000).toFixed(1)].join("\t") + "\n");
});
