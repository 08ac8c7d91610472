/**
 * How long a run spends keeping its lock file, measured end to end: a run of a generated workflow
 * of N pairs whose generator answers at once in-process, so what remains is pairflow's own work
 * per pair, the lock file's included. Give another checkout's root to measure its code the same
 * way (before and after a change):
 *
 *   npx tsx scripts/lock-writes.ts [checkout root] [pairs...]
 *
 * With --only-lock, just the lock file's part, in isolation: N acceptances recorded the way runs
 * did before the journal (the whole file serialised and written atomically after each) and the
 * way they do now (a journal line each, checkpoints, the file once at the end):
 *
 *   npx tsx scripts/lock-writes.ts --only-lock [pairs...]
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

if (process.argv[2] === "--only-lock") {
  await onlyLock(process.argv.slice(3).map(Number));
  process.exit(0);
}

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
const sizes = process.argv.slice(3).map(Number);
const { runTarget } = (await import(pathToFileURL(path.join(root, "src/app/run.ts")).href)) as typeof import("../src/app/run.js");

function workflow(n: number): { workflow: string; prompts: string } {
  const lines = ["name: lockwrites", "generator: instant", "action_pairs:"];
  const prompts: string[] = [];
  for (let i = 0; i < n; i++) {
    const requires = i < 3 ? [] : [`p${i - 1 - (i % 3)}`, `p${Math.floor(i / 2)}`].filter((d, k, all) => all.indexOf(d) === k);
    lines.push(`  p${i}: {requires: [${requires.join(", ")}]}`);
    prompts.push(`p${i}: {task: "Write part ${i}."}`);
  }
  return { workflow: lines.join("\n") + "\n", prompts: prompts.join("\n") + "\n" };
}

for (const n of sizes.length > 0 ? sizes : [1000, 5000]) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "pairflow-lockwrites-"));
  try {
    mkdirSync(path.join(dir, ".git"));
    const files = workflow(n);
    writeFileSync(path.join(dir, "workflow.yml"), files.workflow);
    writeFileSync(path.join(dir, "prompts.yml"), files.prompts);
    const t0 = performance.now();
    const report = await runTarget(dir, {
      cwd: dir,
      concurrency: 4,
      env: {},
      generators: { instant: async (request) => ({ content: `artifact of ${request.pairId}\n` }) },
    });
    const ms = performance.now() - t0;
    const lock = statSync(path.join(dir, "workflow.lock.json")).size;
    console.log(
      `${n} pairs: run ${(ms / 1000).toFixed(2)} s (${(ms / n).toFixed(2)} ms a pair), ${report.totals.executed} executed, lock file ${(lock / 1e6).toFixed(2)} MB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onlyLock(sizes: number[]): Promise<void> {
  const { LockWriter } = await import("../src/lockfile/journal.js");
  const { writeFileAtomic } = await import("../src/workspace/files.js");
  const entry = (i: number) => ({
    configRef: i.toString(16).padStart(64, "a"),
    contentHash: i.toString(16).padStart(64, "b"),
    source: "generated" as const,
    model: "gpt-4o-mini",
    components: Object.fromEntries(
      ["prompt.task", "prompt.role", "model", "generator", "upstream:p1", "artifact:p1", "upstream:p2", "artifact:p2"].map((k) => [k, "0123456789abcdef"]),
    ),
    attempts: 1,
    tokens: { input: 812, output: 230 },
    durationMs: 1234,
    acceptedAt: "2026-11-22T08:00:00.000Z",
  });
  for (const n of sizes.length > 0 ? sizes : [1000, 5000, 50000]) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "pairflow-lockwrites-"));
    try {
      const file = path.join(dir, "workflow.lock.json");
      if (n <= 5000) {
        // Before: the whole lock file, serialised as it was, rewritten after every acceptance.
        const pairs: Record<string, ReturnType<typeof entry>> = {};
        let bytes = 0;
        const t0 = performance.now();
        for (let i = 0; i < n; i++) {
          pairs[`p${i}`] = entry(i);
          const sorted = Object.fromEntries(
            Object.keys(pairs)
              .sort()
              .map((id) => [id, pairs[id]]),
          );
          const text = JSON.stringify({ version: 1, workflow: "w", pairs: sorted }, null, 2) + "\n";
          writeFileAtomic(file, text);
          bytes += Buffer.byteLength(text);
        }
        const ms = performance.now() - t0;
        console.log(`${n} acceptances, rewriting the lock file each time: ${(ms / 1000).toFixed(2)} s, ${(bytes / 1e6).toFixed(0)} MB written`);
        rmSync(file);
      }
      const t0 = performance.now();
      const writer = new LockWriter(file, "w");
      for (let i = 0; i < n; i++) writer.record(`p${i}`, entry(i));
      writer.close();
      const ms = performance.now() - t0;
      console.log(
        `${n} acceptances, journal and checkpoints: ${(ms / 1000).toFixed(2)} s (${writer.checkpoints} checkpoints), lock file ${(statSync(file).size / 1e6).toFixed(2)} MB`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
