/**
 * foreach at 1,000 instances against 1,000 ordinary pairs written out by hand: the same files,
 * outputs, inputs and commands, seeded so that every pair is unchanged. Times validate
 * (loadWorkflow, which expands the foreach) and a no-change plan (planTarget) of each, in this
 * process after one warm-up, and prints medians and the cost per pair of each.
 *
 * Returns false when a seeded plan is not all `skip`, or the two workflows do not plan the same
 * configRefs: correctness failures, not a slow machine. Timings are reported, never asserted.
 *
 *   node --import tsx -e 'import("./bench/foreach.ts").then((m) => m.benchForeach())'
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { loadWorkflow } from "../src/workspace/load.js";
import { planTarget } from "../src/app/plan.js";
import { pairsThatRun, seedAcceptedState } from "./seed.js";

const PAIRS = 1_000;
const REPETITIONS = 5;

const name = (i: number) => `p${String(i).padStart(4, "0")}`;

function repository(root: string, workflow: string): string {
  mkdirSync(path.join(root, ".git"), { recursive: true });
  mkdirSync(path.join(root, "docs"));
  for (let i = 0; i < PAIRS; i++) writeFileSync(path.join(root, "docs", `${name(i)}.md`), `# Page ${i}\n\nSome text of page ${i}.\n`);
  writeFileSync(path.join(root, "workflow.yml"), workflow);
  return path.join(root, "workflow.yml");
}

const FOREACH = `name: pages
generator: command
action_pairs:
  translate:
    foreach:
      files: docs/*.md
    output: out/{stem}.md
    generator_config:
      run: cat "$PAGE"
      env:
        PAGE: "{file}"
`;

function ordinary(): string {
  const lines = ["name: pages", "generator: command", "action_pairs:"];
  for (let i = 0; i < PAIRS; i++) {
    const page = `docs/${name(i)}.md`;
    lines.push(`  ${name(i)}: {output: out/${name(i)}.md, inputs: [${page}], generator_config: {run: 'cat "$PAGE"', env: {PAGE: ${page}}}}`);
  }
  return lines.join("\n") + "\n";
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function time(op: () => unknown): Promise<number> {
  await op(); // warm-up: module state and the file cache
  const samples: number[] = [];
  for (let i = 0; i < REPETITIONS; i++) {
    const start = performance.now();
    await op();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

export async function benchForeach(): Promise<boolean> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "pairflow-bench-foreach-"));
  const cwd = process.cwd();
  try {
    const workflows = {
      foreach: repository(path.join(tmp, "foreach"), FOREACH),
      ordinary: repository(path.join(tmp, "ordinary"), ordinary()),
    };
    const refs: Record<string, string[]> = {};
    const rows: string[][] = [];
    for (const [kind, file] of Object.entries(workflows)) {
      seedAcceptedState(file);
      const { total, run } = await pairsThatRun(file);
      if (total !== PAIRS || run.length > 0) {
        console.error(`FAIL: the seeded ${kind} workflow does not plan as all skip: ${run.length} of ${total} would run, e.g. ${run.slice(0, 3).join(", ")}`);
        return false;
      }
      const { plan } = await planTarget(file, { cwd, env: {} });
      refs[kind] = plan.pairs.map((p) => p.configRef ?? "");
      const validateMs = await time(() => loadWorkflow(file, cwd));
      const planMs = await time(() => planTarget(file, { cwd, env: {} }));
      rows.push([kind, String(PAIRS), validateMs.toFixed(0), (validateMs / PAIRS).toFixed(3), planMs.toFixed(0), (planMs / PAIRS).toFixed(3)]);
    }
    // Instance i is pair i written out by hand: the same reference, so the same work to plan.
    if (refs.foreach!.join() !== refs.ordinary!.join()) {
      console.error("FAIL: the foreach instances and the ordinary pairs plan different configRefs");
      return false;
    }
    const header = ["pairs as", "pairs", "validate ms", "ms/pair", "plan ms", "ms/pair"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
    console.log(`\nforeach: ${PAIRS} instances of one pair against ${PAIRS} ordinary pairs, all unchanged (median of ${REPETITIONS})`);
    console.log(line(header));
    console.log(widths.map((w) => "-".repeat(w)).join("  "));
    for (const r of rows) console.log(line(r));
    const [f, o] = rows;
    console.log(`  plan per pair, foreach / ordinary: ${(Number(f![5]) / Number(o![5])).toFixed(2)}×`);
    return true;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
