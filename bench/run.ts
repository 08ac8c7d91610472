/**
 * `npm run bench`: how validate (loadWorkflow) and a no-change plan (planTarget) scale with the
 * number of pairs. Generates workflows of 100, 1,000 and 10,000 pairs in a temporary directory,
 * seeds accepted state so every pair is unchanged, then times each operation in fresh child
 * processes (bench/measure.ts) and prints medians.
 *
 * Exits non-zero only when the seeded plan is not all `skip`: that is a correctness failure, not a
 * slow machine. Timings are reported, never asserted.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { generateWorkflow, type Generated } from "./generate.js";
import { benchRecords } from "./records.js";
import { pairsThatRun, seedAcceptedState } from "./seed.js";

const SIZES = [100, 1_000, 10_000];
const OPS = ["validate", "plan"] as const;
type Op = (typeof OPS)[number];
/** Fewer repetitions for the largest size keeps the whole run well under a few minutes. */
const repetitions = (n: number) => (n >= 10_000 ? 3 : 5);

const projectDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const measureScript = path.join(projectDir, "bench", "measure.ts");

interface Sample {
  ms: number;
  loadMs: number;
  rssBeforeMB: number;
  peakRssMB: number;
  pairs: number;
  skip: number;
}

// The state directory must be the default one the seeding assumed, in this process and the children.
delete process.env.PAIRFLOW_STATE_DIR;

const benchStart = performance.now();
const tmp = mkdtempSync(path.join(os.tmpdir(), "pairflow-bench-"));
let keep = false;
try {
  console.log(`node ${process.version} on ${os.platform()}/${os.arch()}, ${os.cpus()[0]?.model ?? "unknown CPU"} (${os.cpus().length} cores)`);
  console.log(`workflows in ${tmp}\n`);

  // 1-2. Generate each size and seed it, then check with one real plan that nothing would run.
  const generated = new Map<number, Generated & { waves: number }>();
  for (const n of SIZES) {
    const root = path.join(tmp, `n${n}`);
    mkdirSync(root);
    const t0 = performance.now();
    const gen = generateWorkflow(root, n);
    const t1 = performance.now();
    seedAcceptedState(gen.workflowPath);
    const t2 = performance.now();
    const { total, waves, run } = await pairsThatRun(gen.workflowPath);
    if (total !== n || run.length > 0) {
      keep = true;
      console.error(`FAIL: the seeded ${n}-pair workflow does not plan as all skip: ${run.length} of ${total} pairs would run, e.g.`);
      for (const line of run.slice(0, 5)) console.error(`  ${line}`);
      console.error(`(kept ${root} for inspection)`);
      process.exitCode = 1;
      process.exit();
    }
    generated.set(n, { ...gen, waves });
    console.log(
      `${fmtInt(n).padStart(6)} pairs: ${waves} waves, ${gen.roots} roots, ${gen.withOutput} with output, ${gen.withInputs} with inputs; ` +
        `workflow.yml ${kb(gen.workflowBytes)}, prompts.yml ${kb(gen.promptsBytes)}; ` +
        `generated in ${fmtMs(t1 - t0)} ms, seeded in ${fmtMs(t2 - t1)} ms, all skip`,
    );
  }

  // One unmeasured run so tsx's transform cache and the OS file cache are warm for every sample.
  measure(generated.get(SIZES[0]!)!.workflowPath, "plan");

  // 3. Each sample in a fresh process; sizes inner so a transient slowdown spreads across sizes.
  const samples = new Map<string, Sample[]>();
  const maxReps = Math.max(...SIZES.map(repetitions));
  for (let rep = 0; rep < maxReps; rep++) {
    for (const n of SIZES) {
      if (rep >= repetitions(n)) continue;
      for (const op of OPS) {
        const s = measure(generated.get(n)!.workflowPath, op);
        if (s.pairs !== n || (op === "plan" && s.skip !== n)) {
          throw new Error(`${op} of ${n} pairs saw ${s.pairs} pairs, ${s.skip} skipped`);
        }
        const key = `${n}:${op}`;
        samples.set(key, [...(samples.get(key) ?? []), s]);
      }
    }
    process.stderr.write(rep === 0 ? `measuring, repetition ${rep + 1}` : ` ${rep + 1}`);
  }
  process.stderr.write(" done\n\n");

  // 4. The table, one row per size and operation, then the scaling ratios.
  const header = ["pairs", "operation", "runs", "median ms", "ms/pair", "× prev size", "peak RSS MB", "RSS before op MB", "module load ms"];
  const rows: string[][] = [];
  const medianMs = new Map<string, number>();
  for (const op of OPS) {
    SIZES.forEach((n, i) => {
      const s = samples.get(`${n}:${op}`)!;
      const ms = median(s.map((x) => x.ms));
      medianMs.set(`${n}:${op}`, ms);
      const prev = i > 0 ? medianMs.get(`${SIZES[i - 1]}:${op}`)! : undefined;
      rows.push([
        fmtInt(n),
        op,
        String(s.length),
        fmtMs(ms),
        (ms / n).toFixed(3),
        prev === undefined ? "" : `${(ms / prev).toFixed(1)}×`,
        median(s.map((x) => x.peakRssMB)).toFixed(0),
        median(s.map((x) => x.rssBeforeMB)).toFixed(0),
        fmtMs(median(s.map((x) => x.loadMs))),
      ]);
    });
  }
  printTable(header, rows);
  console.log("\n× prev size: median time over that of the previous size (10× the pairs: 10× is linear).");
  for (const op of OPS) {
    const ratios = SIZES.slice(1).map(
      (n, i) => `${fmtInt(n)}/${fmtInt(SIZES[i]!)} = ${(medianMs.get(`${n}:${op}`)! / medianMs.get(`${SIZES[i]}:${op}`)!).toFixed(1)}×`,
    );
    console.log(`  ${op.padEnd(8)} ${ratios.join(", ")}`);
  }
  await benchRecords();
  console.log(`\ntotal bench time ${((performance.now() - benchStart) / 1000).toFixed(1)} s`);
} finally {
  if (!keep) rmSync(tmp, { recursive: true, force: true });
}

/** One operation in a fresh `node --import tsx` process; its last stdout line is the JSON sample. */
function measure(workflowPath: string, op: Op): Sample {
  const child = spawnSync(process.execPath, ["--import", "tsx", measureScript, workflowPath, op], {
    cwd: projectDir,
    encoding: "utf8",
    maxBuffer: 16 * 2 ** 20,
  });
  if (child.status !== 0) {
    throw new Error(`measure ${op} ${workflowPath} failed (${child.status ?? child.signal}):\n${child.stderr}${child.stdout}`);
  }
  return JSON.parse(child.stdout.trim().split("\n").at(-1)!) as Sample;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  // Text columns left-aligned, numbers right-aligned.
  const line = (cells: string[]) => cells.map((c, i) => (i === 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
}

function fmtInt(n: number): string {
  return n.toLocaleString("en-US");
}

function fmtMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

function kb(bytes: number): string {
  return bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(1)} MB` : `${(bytes / 1024).toFixed(0)} KB`;
}
