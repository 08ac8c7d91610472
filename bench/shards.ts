/**
 * Wall time of one run against the same run fanned out over 3 shard processes (plus the merge), on
 * a workflow whose command generators each take a fixed time: what fanning out buys when the work
 * is waiting (guards running test suites, model calls). Two generators: a Node script that waits
 * (each start of it costs a Node start's CPU, which six at once share two cores for), and a plain
 * `sleep`, which costs next to nothing, so what is left is pairflow's own cost and the sandbox's.
 * Each process writes where its time went (PAIRFLOW_TIMING, src/cli/timing.ts), and the bench
 * prints the medians. Uses the built CLI (dist/cli.js, or PAIRFLOW_BENCH_CLI).
 *
 *   node --import tsx bench/shards.ts          (also called from bench/run.ts)
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

// PAIRFLOW_BENCH_CLI: another build of the CLI (scripts/build.mjs --outdir DIR), e.g. to compare two.
const CLI = process.env.PAIRFLOW_BENCH_CLI ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
const CHAINS = 6;
const LENGTH = 5;
const SLEEP_MS = 150;
const CONCURRENCY = 2;
const REPS = 3;

const GENERATORS = {
  node: { run: "node gen.mjs", label: `a Node script that waits ${SLEEP_MS} ms` },
  sleep: { run: `sleep ${SLEEP_MS / 1000}`, label: `\`sleep ${SLEEP_MS / 1000}\`` },
} as const;
type Generator = keyof typeof GENERATORS;

function workspace(root: string, generator: Generator): string {
  const dir = mkdtempSync(path.join(root, "ws-"));
  mkdirSync(path.join(dir, ".git"));
  const lines = ["name: sleepy", "generator: command", `generator_config: {run: ${GENERATORS[generator].run}}`, "action_pairs:"];
  for (let c = 0; c < CHAINS; c++)
    for (let i = 0; i < LENGTH; i++) lines.push(`  c${c}s${i}: {output: out/c${c}s${i}.txt${i > 0 ? `, requires: [c${c}s${i - 1}]` : ""}}`);
  writeFileSync(path.join(dir, "workflow.yml"), lines.join("\n") + "\n");
  writeFileSync(
    path.join(dir, "gen.mjs"),
    `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${SLEEP_MS});\nprocess.stdout.write(process.env.PAIRFLOW_PAIR + "\\n");\n`,
  );
  return dir;
}

/** A process's marks (src/cli/timing.ts): milliseconds from its start to each phase's end. */
type Marks = Map<string, number>;

let timings = 0;
function cli(root: string, dir: string, args: string[]): Promise<Marks> {
  const file = path.join(root, `timing-${timings++}.jsonl`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, stdio: "ignore", env: { ...process.env, PAIRFLOW_TIMING: file } });
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`pairflow ${args.join(" ")} exited ${code}`));
      const line = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
      resolve(new Map(line ? (JSON.parse(line) as { marks: [string, number][] }).marks : []));
    });
  });
}

/** `lanes` loops side by side, each starting the generator `steps` times one after another, as pairflow does (sh -c), without pairflow. */
function bare(dir: string, generator: Generator, lanes: number, steps: number): Promise<void> {
  const lane = async () => {
    for (let i = 0; i < steps; i++)
      await new Promise<void>((resolve, reject) => {
        const child = spawn("/bin/sh", ["-c", GENERATORS[generator].run], { cwd: dir, stdio: "ignore", env: { ...process.env, PAIRFLOW_PAIR: "bare" } });
        child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${GENERATORS[generator].run} exited ${code}`))));
      });
  };
  return Promise.all(Array.from({ length: lanes }, lane)).then(() => {});
}

async function timed<T>(task: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await task();
  return [performance.now() - t0, value];
}

const median = (xs: number[]) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const msOf = (ms: number) => `${Math.round(ms)} ms`;

/** Phase lengths of one process, named by its marks: each mark's time less the one before it. */
function phases(marks: Marks, order: string[]): Map<string, number> {
  const out = new Map<string, number>();
  let last = 0;
  for (const name of order) {
    const at = marks.get(name);
    if (at === undefined) continue;
    out.set(name, at - last);
    last = at;
  }
  return out;
}

/** A shard's pairs: how long each took, and the time from a pair's end to the start of the next of its chain. */
function pairTimes(marks: Marks): { own: number[]; gaps: number[] } {
  const own: number[] = [];
  const gaps: number[] = [];
  for (const [name, start] of marks) {
    const m = /^pair_start (c\d+)s(\d+)$/.exec(name);
    if (!m) continue;
    const end = marks.get(`pair_end ${m[1]}s${m[2]}`);
    if (end !== undefined) own.push(end - start);
    const before = marks.get(`pair_end ${m[1]}s${Number(m[2]) - 1}`);
    if (before !== undefined) gaps.push(start - before);
  }
  return { own, gaps };
}

/** The median of each phase over several processes, as "name 0.12 s, ...". */
function breakdown(all: Marks[], order: [mark: string, label: string][]): string {
  const each = all.map((m) =>
    phases(
      m,
      order.map(([mark]) => mark),
    ),
  );
  return order
    .map(([mark, label]) => [label, median(each.flatMap((p) => (p.has(mark) ? [p.get(mark)!] : [])))] as const)
    .filter(([, ms]) => !Number.isNaN(ms))
    .map(([label, ms]) => `${label} ${s(ms)}`)
    .join(", ");
}

async function row(root: string, generator: Generator): Promise<string[]> {
  const one: number[] = [];
  const three: number[] = [];
  // Each repetition's ratio: its two runs are next to each other, so a machine that slows down moves both.
  const ratios: number[] = [];
  // The same fan-out of the generator alone: what fanning out can give on this machine at best.
  const floors: number[] = [];
  const slowest: number[] = [];
  const fastest: number[] = [];
  const merge: number[] = [];
  const idle: number[] = [];
  const shardMarks: Marks[] = [];
  const mergeMarks: Marks[] = [];
  const run = ["run", "--concurrency", String(CONCURRENCY)];
  for (let r = 0; r < REPS; r++) {
    const a = workspace(root, generator);
    one.push((await timed(() => cli(root, a, run)))[0]);
    // What a process costs with nothing to run: start, load, plan, restore, save.
    idle.push((await timed(() => cli(root, a, run)))[0]);
    const b = workspace(root, generator);
    const t0 = performance.now();
    const shards = await Promise.all(["1/3", "2/3", "3/3"].map((i) => timed(() => cli(root, b, [...run, "--shard", i]))));
    const [merged, marks] = await timed(() => cli(root, b, ["merge"]));
    three.push(performance.now() - t0);
    ratios.push(one.at(-1)! / three.at(-1)!);
    merge.push(merged);
    slowest.push(Math.max(...shards.map(([ms]) => ms)));
    fastest.push(Math.min(...shards.map(([ms]) => ms)));
    shardMarks.push(...shards.map(([, m]) => m));
    mergeMarks.push(marks);
    const [alone] = await timed(() => bare(a, generator, CONCURRENCY, (CHAINS * LENGTH) / CONCURRENCY));
    const [fanned] = await timed(() => bare(a, generator, 3 * CONCURRENCY, LENGTH));
    floors.push(alone / fanned);
  }
  const pairs = shardMarks.map(pairTimes);
  const start: [string, string][] = [
    ["main", "Node's start"],
    ["loaded", "loading the CLI"],
  ];
  const own = pairs.flatMap((p) => p.own);
  // A build from before PAIRFLOW_TIMING (compared through PAIRFLOW_BENCH_CLI) writes no marks.
  const where =
    own.length === 0
      ? ["    (this build of the CLI writes no timing: where the time goes is not shown)"]
      : [
          `    a shard: ${breakdown(shardMarks, [...start, ["opened", "opening the state"], ["planned", "plan and split"], ["sandbox", "the sandbox's checks"], ["executed", `its ${(CHAINS * LENGTH) / 3} pairs`], ["exit", "report and exit"]])}`,
          `      a pair takes ${msOf(median(own))} (${SLEEP_MS} ms of it the generator's wait), the next of its chain starts ${msOf(median(pairs.flatMap((p) => p.gaps)))} after its end`,
          `    the merge: ${breakdown(mergeMarks, [...start, ["locked", "lock"], ["planned", "plan and split"], ["copied", "copying the shards' store"], ["folded", "outputs and lock file"], ["recorded", "run record"], ["exit", "exit"]])}`,
        ];
  return [
    `  generator ${GENERATORS[generator].label}:`,
    `    1 process            ${s(median(one))}`,
    `    3 shards + merge     ${s(median(three))}   ratio ${median(ratios).toFixed(2)}x faster (target >= 2.5x, ideal 3x)`,
    `    the generator alone, without pairflow or its sandbox: ${CONCURRENCY} side by side against ${3 * CONCURRENCY}, ratio ${median(floors).toFixed(2)}x (the most fanning out gives here)`,
    `    shards took ${s(median(fastest))} to ${s(median(slowest))} side by side, then the merge ${s(median(merge))}; a process with nothing to run ${s(median(idle))}`,
    ...where,
  ];
}

/** Lines to print: the medians, their ratio and where the time goes, for each generator. */
export async function benchShards(): Promise<string[]> {
  const root = mkdtempSync(path.join(os.tmpdir(), "pairflow-bench-shards-"));
  try {
    const lines = [
      `fan-out: ${CHAINS * LENGTH} pairs in ${CHAINS} chains of ${LENGTH}, --concurrency ${CONCURRENCY} per process, ${os.availableParallelism()} cores (median of ${REPS}); ${LENGTH} steps of ${SLEEP_MS} ms are ${s(LENGTH * SLEEP_MS)} of each shard`,
    ];
    for (const generator of Object.keys(GENERATORS) as Generator[]) lines.push(...(await row(root, generator)));
    return lines;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) for (const line of await benchShards()) console.log(line);
