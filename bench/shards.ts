/**
 * Wall time of one run against the same run fanned out over 3 shard processes (plus the merge), on
 * a workflow whose command generators each sleep a fixed time: what fanning out buys when the work
 * is waiting (guards running test suites, model calls). Uses the built CLI (dist/cli.js).
 *
 *   node --import tsx bench/shards.ts          (also called from bench/run.ts)
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
const CHAINS = 6;
const LENGTH = 5;
const SLEEP_MS = 150;
const CONCURRENCY = 2;
const REPS = 3;

function workspace(root: string): string {
  const dir = mkdtempSync(path.join(root, "ws-"));
  mkdirSync(path.join(dir, ".git"));
  const lines = ["name: sleepy", "generator: command", "generator_config: {run: node gen.mjs}", "action_pairs:"];
  for (let c = 0; c < CHAINS; c++)
    for (let i = 0; i < LENGTH; i++) lines.push(`  c${c}s${i}: {output: out/c${c}s${i}.txt${i > 0 ? `, requires: [c${c}s${i - 1}]` : ""}}`);
  writeFileSync(path.join(dir, "workflow.yml"), lines.join("\n") + "\n");
  writeFileSync(
    path.join(dir, "gen.mjs"),
    `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${SLEEP_MS});\nprocess.stdout.write(process.env.PAIRFLOW_PAIR + "\\n");\n`,
  );
  return dir;
}

function cli(dir: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, stdio: "ignore" });
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`pairflow ${args.join(" ")} exited ${code}`))));
  });
}

async function timed(task: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await task();
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Lines to print: the medians and their ratio. */
export async function benchShards(): Promise<string[]> {
  const root = mkdtempSync(path.join(os.tmpdir(), "pairflow-bench-shards-"));
  try {
    const one: number[] = [];
    const three: number[] = [];
    const slowest: number[] = [];
    const fastest: number[] = [];
    const merge: number[] = [];
    const idle: number[] = [];
    for (let r = 0; r < REPS; r++) {
      const a = workspace(root);
      one.push(await timed(() => cli(a, ["run", "--concurrency", String(CONCURRENCY)])));
      // What a process costs with nothing to run: start, load, plan, restore, save.
      idle.push(await timed(() => cli(a, ["run", "--concurrency", String(CONCURRENCY)])));
      const b = workspace(root);
      const t0 = performance.now();
      const shards = await Promise.all(["1/3", "2/3", "3/3"].map((s) => timed(() => cli(b, ["run", "--shard", s, "--concurrency", String(CONCURRENCY)]))));
      merge.push(await timed(() => cli(b, ["merge"])));
      three.push(performance.now() - t0);
      slowest.push(Math.max(...shards));
      fastest.push(Math.min(...shards));
    }
    const pairs = CHAINS * LENGTH;
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    return [
      `fan-out: ${pairs} pairs in ${CHAINS} chains, each generator sleeps ${SLEEP_MS} ms, --concurrency ${CONCURRENCY} per process, ${os.availableParallelism()} cores (median of ${REPS})`,
      `  1 process            ${s(median(one))}`,
      `  3 shards + merge     ${s(median(three))}   ratio ${(median(one) / median(three)).toFixed(2)}x faster (ideal 3x)`,
      `  where the time goes: shards ${s(median(fastest))} to ${s(median(slowest))} side by side, then the merge ${s(median(merge))};`,
      `    a process with nothing to run takes ${s(median(idle))}, and ${LENGTH} steps of ${SLEEP_MS} ms are ${s(LENGTH * SLEEP_MS)} of each shard`,
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) for (const line of await benchShards()) console.log(line);
