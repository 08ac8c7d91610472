/**
 * Run records at 1,000 pairs: a real run of a generated workflow (command generators, a fifth
 * of the pairs rejected once so records carry retries and feedback), then the size of its record
 * and how long reading it back takes — what `pairflow resume`, `runs` and `show` do first; then
 * how long a plan whose every pair will run takes with the newest 20 such records to learn from.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { readRun, resumeState } from "../src/records/read.js";
import { planTarget } from "../src/app/plan.js";
import { runTarget } from "../src/app/run.js";
import { readRunSamples, RUN_RECORDS_READ } from "../src/records/pastRuns.js";
import { prng } from "./generate.js";

const PAIRS = 1_000;

function workflow(n: number): { workflow: string; prompts: string } {
  const random = prng(7);
  const lines = [
    "name: records",
    "rmax: 2",
    "generator: command",
    "generator_config: {run: \"printf 'artifact of %s, attempt %s\\n' $PAIRFLOW_PAIR $PAIRFLOW_ATTEMPT\"}",
    "action_pairs:",
  ];
  const prompts: string[] = [];
  for (let i = 0; i < n; i++) {
    const requires =
      i < 5 ? [] : [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => `p${Math.max(0, i - 1 - Math.floor(random() * 40))}`))];
    const retry = random() < 0.2;
    const guard = retry ? ', guard: regex, guard_config: {pattern: "attempt 2"}' : "";
    lines.push(`  p${i}: {requires: [${requires.join(", ")}]${guard}}`);
    prompts.push(
      `p${i}: {role: "A careful writer of part ${i}.", task: "${"Write the part described by the dependencies. ".repeat(4)}", feedback_wrapper: "Rejected: {feedback}"}`,
    );
  }
  return { workflow: lines.join("\n") + "\n", prompts: prompts.join("\n") + "\n" };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function benchRecords(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), "pairflow-bench-records-"));
  try {
    mkdirSync(path.join(root, ".git"));
    const files = workflow(PAIRS);
    writeFileSync(path.join(root, "workflow.yml"), files.workflow);
    writeFileSync(path.join(root, "prompts.yml"), files.prompts);

    const t0 = performance.now();
    const report = await runTarget(root, { cwd: root, concurrency: 8, env: { ...process.env } });
    const runMs = performance.now() - t0;
    const stateDir = path.join(root, ".pairflow");
    const dir = path.join(stateDir, "runs", report.runId);
    const sizes = Object.fromEntries(readdirSync(dir).map((f) => [f, statSync(path.join(dir, f)).size]));
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);

    const planMs: number[] = [];
    const recordMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      let t = performance.now();
      JSON.parse(readFileSync(path.join(dir, "plan.json"), "utf8"));
      planMs.push(performance.now() - t);
      t = performance.now();
      resumeState(readRun(stateDir, report.runId).events);
      recordMs.push(performance.now() - t);
    }
    const retried = report.pairs.filter((p) => p.attempts.length > 1).length;
    console.log(
      `\nRun records at ${PAIRS.toLocaleString("en-US")} pairs (${report.totals.executed} executed, ${retried} after a rejected attempt, in ${(runMs / 1000).toFixed(1)} s):`,
    );
    for (const [name, bytes] of Object.entries(sizes)) console.log(`  ${name.padEnd(12)} ${(bytes / 1024).toFixed(0).padStart(5)} KB`);
    const byEvent = new Map<string, number>();
    for (const line of readFileSync(path.join(dir, "trace.jsonl"), "utf8").split("\n").filter(Boolean)) {
      const event = (JSON.parse(line) as { event: string }).event;
      byEvent.set(event, (byEvent.get(event) ?? 0) + line.length + 1);
    }
    console.log(`  trace by event: ${[...byEvent].map(([e, b]) => `${e} ${(b / 1024).toFixed(0)} KB`).join(", ")}`);
    console.log(`  ${"total".padEnd(12)} ${(total / 1024).toFixed(0).padStart(5)} KB   (target: under 1 MB; ratio ${(total / 2 ** 20).toFixed(2)})`);
    console.log(
      `  load plan.json:                       median ${median(planMs).toFixed(1)} ms (target: under 100 ms; ratio ${(median(planMs) / 100).toFixed(2)})`,
    );
    console.log(`  read the whole record + resume state: median ${median(recordMs).toFixed(1)} ms`);

    // The estimate reads the newest RUN_RECORDS_READ records: copies of this one, under newer ids.
    for (let i = 1; i < RUN_RECORDS_READ; i++)
      cpSync(dir, path.join(stateDir, "runs", `29990101T000000${String(i).padStart(3, "0")}Z-be9c`), { recursive: true });
    const forced = { cwd: root, env: { ...process.env }, selection: { force: true } };
    const timed = async (f: () => unknown): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await f();
        times.push(performance.now() - t);
      }
      return median(times);
    };
    const samplesMs = await timed(() => readRunSamples(stateDir));
    const withRuns = await timed(() => planTarget(root, forced));
    renameSync(path.join(stateDir, "runs"), path.join(stateDir, "runs.aside"));
    const withoutRuns = await timed(() => planTarget(root, forced));
    renameSync(path.join(stateDir, "runs.aside"), path.join(stateDir, "runs"));
    console.log(`  plan, every pair to run, ${RUN_RECORDS_READ} run records: median ${withRuns.toFixed(0)} ms (${withoutRuns.toFixed(0)} ms with none)`);
    console.log(`  of which reading the ${RUN_RECORDS_READ} records for the estimate: median ${samplesMs.toFixed(0)} ms`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
