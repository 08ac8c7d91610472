/**
 * `split: markdown` in what a pull request can grow: a page of 6,000 and of 60,000 sections split
 * and planned (a first plan: every section runs), and heading lines of 20 KB built to make a
 * backtracking parser take hours, against an ordinary 20 KB heading. Prints medians and the growth
 * per section; linear work grows by about 1x. Timings are reported, never asserted.
 *
 *   node --import tsx -e 'import("./bench/split.ts").then((m) => m.benchSplit())'
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { splitText } from "../src/config/split.js";
import { planTarget } from "../src/app/plan.js";

const REPETITIONS = 3;

const page = (n: number) => Array.from({ length: n }, (_, i) => `## Section ${i % 7 === 0 ? "again" : i}\n\nText ${i}.\n\n`).join("");

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

async function time(op: () => unknown, repetitions = REPETITIONS): Promise<number> {
  await op();
  const samples: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    await op();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

function repository(root: string, sections: number): string {
  mkdirSync(path.join(root, ".git"), { recursive: true });
  mkdirSync(path.join(root, "docs"));
  writeFileSync(path.join(root, "docs", "page.md"), page(sections));
  const workflow = `name: split\ngenerator: command\naction_pairs:\n  translate:\n    foreach: {files: docs/*.md, split: markdown}\n    output: out/{stem}.md\n    generator_config: {run: cat}\n`;
  writeFileSync(path.join(root, "workflow.yml"), workflow);
  return path.join(root, "workflow.yml");
}

export async function benchSplit(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "pairflow-bench-split-"));
  try {
    const rows: string[][] = [];
    const per: Record<string, number[]> = { split: [], plan: [] };
    for (const n of [6_000, 60_000]) {
      const text = page(n);
      const splitMs = await time(() => splitText(text, { kind: "markdown" }));
      const file = repository(path.join(tmp, String(n)), n);
      const planMs = await time(() => planTarget(file, { cwd: process.cwd(), env: {} }), 1);
      per.split!.push(splitMs / n);
      per.plan!.push(planMs / n);
      rows.push([n.toLocaleString("en-US"), splitMs.toFixed(0), ((splitMs / n) * 1000).toFixed(1), planMs.toFixed(0), ((planMs / n) * 1000).toFixed(1)]);
    }
    console.log(`\nsplit: markdown, one page of N sections (median of ${REPETITIONS}; plan: one after a warm-up)`);
    console.log(["sections", "split ms", "µs/section", "plan ms", "µs/section"].join("  "));
    for (const r of rows) console.log(r.map((c) => c.padStart(9)).join("  "));
    console.log(
      `  growth per section, 60,000 against 6,000: split ${(per.split![1]! / per.split![0]!).toFixed(2)}x, plan ${(per.plan![1]! / per.plan![0]!).toFixed(2)}x (linear: about 1x)`,
    );

    const plainLine = "# " + "word ".repeat(4_000);
    const hostile: [string, string][] = [
      ["blanks after #", "#" + " ".repeat(20_000) + "\rx"],
      ["open brackets", "# " + "[".repeat(20_000) + "(".repeat(20_000)],
      ["backtick runs", "# " + "`".repeat(5_000) + " " + Array.from({ length: 150 }, (_, i) => "`".repeat(i + 1)).join(" a ")],
      ["comment openers", "# " + "<!--".repeat(10_000)],
      ["nested links", "# " + "[a](".repeat(5_000) + ")".repeat(5_000)],
    ];
    const base = await time(() => splitText(`${plainLine}\nText.\n`, { kind: "markdown" }));
    console.log(`  a 20 KB heading line: ${base.toFixed(2)} ms; lines built to make a parser backtrack, against it:`);
    for (const [what, line] of hostile) {
      const ms = await time(() => splitText(`${line}\nText.\n`, { kind: "markdown" }));
      console.log(`    ${what.padEnd(16)} ${ms.toFixed(2).padStart(8)} ms  ${(ms / base).toFixed(1)}x`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
