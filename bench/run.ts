/**
 * `npm run bench`: how the built CLI (dist/cli.js: run `npm run build` first) scales, each figure
 * against a floor measured in the same run, on workflows of the generator's shape (bench/generate.ts):
 *
 * 1. plan --json at 1,000, 10,000 and 50,000 pairs, fresh (no lock file) and unchanged (every pair
 *    accepted), against the parse-and-hash floor (bench/floor.mjs), and against Turborepo's
 *    `--dry=json` on the same graph when `turbo` is on PATH;
 * 2. a first run at 1,000 pairs and at a larger size (PAIRFLOW_BENCH_RUN_PAIRS, default 10,000)
 *    with a trivial command generator, against a spawn floor of the same commands at the same
 *    concurrency (bench/spawnFloor.mjs); then a second run with nothing changed, and a run after
 *    one leaf prompt changed; and what the lock file's rewrite after each acceptance costs;
 * 3. `--version` and `validate` of the example against `node -e 0`;
 * 4. run records at 1,000 pairs (bench/records.ts);
 * 5. `replay`: 130 commits of a real documentation history through a translation workflow, the
 *    model calls and tokens bought against the ideal's (bench/replay.ts; needs no build);
 * 6. `ratelimits`: runs at a provider's rate limit on a simulated clock, wall time against the ideal
 *    and 429s per answer, before pacing and with it (bench/rateLimits.ts; needs no build);
 * 7. `translate`: the same history into three languages by one foreach, with glossary edits, people's
 *    translations adopted and edited, and a fourth language at the end: input bought against the
 *    ideal's, none of the people's sections overwritten (bench/translate.ts; needs no build).
 *
 * Every figure is a whole process: wall time, and its peak RSS (getrusage, from bench/peak.mjs).
 * Medians of several repetitions, the floor measured beside each sample; ratios are medians of the
 * per-repetition ratios, so a machine that speeds up or slows down during the bench moves both.
 * Exits non-zero only when something is wrong (a seeded plan that is not all skip, a run that
 * fails): timings are reported, never asserted. PAIRFLOW_BENCH_QUICK=1 runs smaller sizes once;
 * PAIRFLOW_BENCH_ONLY=plan,run,startup (any of the sections' names) runs only those.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import { generateWorkflow, TRIVIAL_COMMAND } from "./generate.js";
import { benchForeach } from "./foreach.js";
import { benchSplit } from "./split.js";
import { benchRecords } from "./records.js";
import { benchReplay } from "./replay.js";
import { benchTranslate } from "./translate.js";
import { benchShards } from "./shards.js";
import { benchRateLimits } from "./rateLimits.js";
import { seedAcceptedState } from "./seed.js";
import { probeSandbox } from "../src/processes/sandbox.js";
import { countO200k, loadTokenizer } from "../src/estimate/tokens.js";

const QUICK = process.env.PAIRFLOW_BENCH_QUICK === "1";
const PLAN_SIZES = QUICK ? [1_000, 5_000] : [1_000, 10_000, 50_000];
const RUN_SMALL = QUICK ? 200 : 1_000;
const RUN_LARGE = Number(process.env.PAIRFLOW_BENCH_RUN_PAIRS ?? (QUICK ? 500 : 10_000));
const CONCURRENCY = 4;
/** Whether bubblewrap confines commands here: the run section then also measures a sandboxed run. */
const BWRAP = probeSandbox(process.env).available;
/** PAIRFLOW_BENCH_ONLY=plan,startup runs only those sections (plan, run, startup, tokens, records, foreach, split, cache, shards, ratelimits, replay, translate). */
const ONLY = process.env.PAIRFLOW_BENCH_ONLY?.split(",").map((s) => s.trim());
const section = (name: string) => ONLY === undefined || ONLY.includes(name);
const planReps = (n: number) => (QUICK ? 1 : n >= 50_000 ? 3 : 5);

const projectDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(projectDir, "dist", "cli.js");
const peakHook = path.join(projectDir, "bench", "peak.mjs");
const exampleDir = path.join(projectDir, "examples", "tdd-stack");

interface Sample {
  ms: number;
  peakMB: number;
  stdout: string;
}

// State directories are the default ones under each generated repository.
delete process.env.PAIRFLOW_STATE_DIR;

// Only these sections run the built CLI.
if (["plan", "run", "startup", "shards"].some(section) && !existsSync(cli)) {
  console.error("dist/cli.js is missing: run `npm run build` first");
  process.exit(1);
}

const benchStart = performance.now();
const tmp = mkdtempSync(path.join(os.tmpdir(), "pairflow-bench-"));
const peakFile = path.join(tmp, "peak");
let keep = false;
try {
  console.log(
    `node ${process.version} on ${os.platform()}/${os.arch()}, ${os.cpus()[0]?.model ?? "unknown CPU"} (${os.cpus().length} cores), load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  console.log(`workflows in ${tmp}; every figure is a whole process, median of the repetitions shown\n`);
  if (section("plan")) benchPlans();
  if (section("run")) benchRuns();
  if (section("startup")) benchStartup();
  if (section("tokens")) await benchTokens();
  if (section("records")) await benchRecords();
  if (section("foreach") && !(await benchForeach())) process.exitCode = 1;
  if (section("split")) await benchSplit();
  if (section("cache")) {
    console.log("\n== the Actions cache: uploads and downloads of a cold and a warm run (loopback cache service)");
    // Imported here: it runs the action through the test helpers, which only load under vitest
    // (test/helpers/package.ts), so importing it up front fails every section.
    const { benchCache } = await import("./cache.js");
    await benchCache(QUICK ? [100] : [100, 300, 1_000]);
  }
  if (section("shards")) {
    console.log("");
    for (const line of await benchShards()) console.log(line);
  }
  if (section("ratelimits")) {
    console.log("");
    for (const line of await benchRateLimits()) console.log(line);
  }
  if (section("replay")) {
    console.log("");
    if (!(await benchReplay())) process.exitCode = 1;
  }
  if (section("translate")) {
    console.log("");
    if (!(await benchTranslate())) process.exitCode = 1;
  }
  console.log(`\ntotal bench time ${((performance.now() - benchStart) / 1000).toFixed(0)} s`);
} catch (err) {
  keep = true;
  console.error(`\nFAIL: ${(err as Error).message}\n(kept ${tmp} for inspection)`);
  process.exitCode = 1;
} finally {
  if (!keep) rmSync(tmp, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// 1. plan

function benchPlans(): void {
  console.log(`== plan --json (built CLI) against the parse-and-hash floor (js-yaml + sha256 per pair with its dependencies' hashes)`);
  const rows: string[][] = [];
  const perPair = new Map<string, number>();
  const rssOf = new Map<string, number>();
  const verdicts: string[] = [];
  for (const n of PLAN_SIZES) {
    const fresh = path.join(tmp, `plan-${n}-fresh`);
    const seeded = path.join(tmp, `plan-${n}-unchanged`);
    mkdirSync(fresh);
    const t0 = performance.now();
    const gen = generateWorkflow(fresh, n);
    cpSync(fresh, seeded, { recursive: true });
    seedAcceptedState(path.join(seeded, "workflow.yml"));
    const check = syncCheck(path.join(seeded, "workflow.yml"));
    if (check.total !== n || check.run.length > 0) {
      throw new Error(
        `the seeded ${n}-pair workflow does not plan as all skip: ${check.run.length} of ${check.total} would run, e.g. ${check.run.slice(0, 3).join(", ")}`,
      );
    }
    process.stderr.write(
      `${fmtInt(n)} pairs: workflow.yml ${kb(gen.workflowBytes)}, prompts.yml ${kb(gen.promptsBytes)}, ${gen.withOutput} outputs, ${gen.withInputs} with inputs; ready in ${secs(performance.now() - t0)}\n`,
    );

    const samples = { fresh: [] as Sample[], unchanged: [] as Sample[], floor: [] as Sample[], freshRatio: [] as number[], unchangedRatio: [] as number[] };
    const rssRatio = { fresh: [] as number[], unchanged: [] as number[] };
    for (let rep = 0; rep < planReps(n); rep++) {
      const floor = timed(["bench/floor.mjs", path.join(fresh, "workflow.yml")], projectDir);
      const f = timed([cli, "plan", "--json", "workflow.yml"], fresh);
      const u = timed([cli, "plan", "--json", "workflow.yml"], seeded);
      const floor2 = timed(["bench/floor.mjs", path.join(fresh, "workflow.yml")], projectDir);
      const floorMs = (floor.ms + floor2.ms) / 2;
      const floorPeak = (floor.peakMB + floor2.peakMB) / 2;
      samples.floor.push({ ...floor, ms: floorMs, peakMB: floorPeak });
      samples.fresh.push(f);
      samples.unchanged.push(u);
      samples.freshRatio.push(f.ms / floorMs);
      samples.unchangedRatio.push(u.ms / floorMs);
      rssRatio.fresh.push(f.peakMB / floorPeak);
      rssRatio.unchanged.push(u.peakMB / floorPeak);
      const plan = JSON.parse(u.stdout) as { totals: { skip: number } };
      if (plan.totals.skip !== n) throw new Error(`the unchanged ${n}-pair plan skips ${plan.totals.skip} pairs`);
    }
    const floorMs = median(samples.floor.map((s) => s.ms));
    const floorMB = median(samples.floor.map((s) => s.peakMB));
    rows.push([fmtInt(n), "floor", String(samples.floor.length), secs(floorMs), (floorMs / n).toFixed(3), floorMB.toFixed(0), "", ""]);
    for (const kind of ["fresh", "unchanged"] as const) {
      const ms = median(samples[kind].map((s) => s.ms));
      const mb = median(samples[kind].map((s) => s.peakMB));
      const ratio = median(samples[`${kind}Ratio`]);
      const rss = median(rssRatio[kind]);
      perPair.set(`${n}:${kind}`, ms / n);
      rssOf.set(`${n}:${kind}`, rss);
      rows.push([
        fmtInt(n),
        `plan ${kind}`,
        String(samples[kind].length),
        secs(ms),
        (ms / n).toFixed(3),
        mb.toFixed(0),
        `${ratio.toFixed(2)}x`,
        `${rss.toFixed(2)}x`,
      ]);
      if (n === 10_000) verdicts.push(`10,000 ${kind}: ${ratio.toFixed(2)}x the floor's time (target <= 2x), ${rss.toFixed(2)}x its peak RSS (target <= 2x)`);
      if (n === 1_000 && kind === "fresh") verdicts.push(`1,000 fresh: ${ratio.toFixed(2)}x the floor's time (target: no slower than Turborepo, about 2.6x)`);
    }
    const turbo = turboDry(n, fresh);
    if (turbo)
      rows.push([
        fmtInt(n),
        "turbo --dry=json",
        "1",
        secs(turbo.ms),
        (turbo.ms / n).toFixed(3),
        turbo.peakMB.toFixed(0),
        `${(turbo.ms / floorMs).toFixed(2)}x`,
        "",
      ]);
    // The largest workflows are only needed once.
    rmSync(fresh, { recursive: true, force: true });
    rmSync(seeded, { recursive: true, force: true });
  }
  printTable(["pairs", "what", "runs", "median", "ms/pair", "peak MB", "time/floor", "RSS/floor"], rows);
  if (!onPath("turbo")) console.log("turbo is not on PATH: the Turborepo comparison is skipped");
  const largest = PLAN_SIZES.at(-1)!;
  const middle = PLAN_SIZES.at(-2)!;
  for (const kind of ["fresh", "unchanged"] as const) {
    const growth = perPair.get(`${largest}:${kind}`)! / perPair.get(`${middle}:${kind}`)!;
    const rss = rssOf.get(`${largest}:${kind}`)!;
    verdicts.push(
      `${fmtInt(largest)} ${kind}: ${growth.toFixed(2)}x the time per pair at ${fmtInt(middle)} (target <= 1.2x), ${rss.toFixed(2)}x the floor's peak RSS (target <= 2x)`,
    );
  }
  for (const v of verdicts) console.log(`  ${v}`);
  console.log();
}

/** The seeded plan, checked in this process (the CLI's own figures come from the child processes). */
function syncCheck(workflowPath: string): { total: number; run: string[] } {
  const child = spawnSync(process.execPath, [cli, "plan", "--json", workflowPath], { cwd: path.dirname(workflowPath), encoding: "utf8", maxBuffer: 1 << 30 });
  if (child.status !== 0) throw new Error(`plan of ${workflowPath} failed: ${child.stderr}`);
  const plan = JSON.parse(child.stdout) as { pairs: { id: string; action: string; reasons: { kind: string; detail: string }[] }[] };
  return {
    total: plan.pairs.length,
    run: plan.pairs.filter((p) => p.action === "run").map((p) => `${p.id} (${p.reasons.map((r) => r.detail).join("; ")})`),
  };
}

/**
 * Turborepo's `--dry=json` on the same graph: one package per pair whose dependencies are the
 * pair's `requires`, one task; undefined (and said once) when turbo is not installed.
 */
function turboDry(n: number, fresh: string): Sample | undefined {
  if (!onPath("turbo")) return undefined;
  const root = path.join(tmp, `turbo-${n}`);
  const workflow = parse(readFileSync(path.join(fresh, "workflow.yml"), "utf8")) as { action_pairs: Record<string, { requires?: string[] }> };
  mkdirSync(path.join(root, "packages"), { recursive: true });
  writeFileSync(path.join(root, "package.json"), JSON.stringify({ name: "bench", private: true, packageManager: "npm@10.0.0", workspaces: ["packages/*"] }));
  writeFileSync(path.join(root, "turbo.json"), JSON.stringify({ tasks: { build: { dependsOn: ["^build"], outputs: [] } } }));
  for (const [id, pair] of Object.entries(workflow.action_pairs)) {
    mkdirSync(path.join(root, "packages", id));
    const dependencies = Object.fromEntries((pair.requires ?? []).map((d) => [d, "*"]));
    writeFileSync(path.join(root, "packages", id, "package.json"), JSON.stringify({ name: id, version: "1.0.0", scripts: { build: "true" }, dependencies }));
  }
  spawnSync("git", ["init", "-q"], { cwd: root });
  const sample = timedCommand("turbo", ["run", "build", "--dry=json"], root);
  rmSync(root, { recursive: true, force: true });
  return sample;
}

// ---------------------------------------------------------------------------------------------
// 2. run

function benchRuns(): void {
  console.log(`== run (built CLI, --concurrency ${CONCURRENCY}, a trivial command generator) against a spawn floor of the same commands`);
  const rows: string[][] = [];
  const firstPerPair = new Map<number, number>();
  const firstMs = new Map<number, number>();
  const verdicts: string[] = [];
  for (const n of [RUN_SMALL, RUN_LARGE]) {
    const template = path.join(tmp, `run-${n}`);
    mkdirSync(template);
    generateWorkflow(template, n, n, { trivialRun: true });
    const reps = n === RUN_SMALL && !QUICK ? 3 : 1;
    const s = {
      floor: [] as Sample[],
      first: [] as Sample[],
      confined: [] as Sample[],
      second: [] as Sample[],
      leaf: [] as Sample[],
      overhead: [] as number[],
      confinedOverhead: [] as number[],
      incr: [] as number[],
    };
    for (let rep = 0; rep < reps; rep++) {
      const dir = path.join(tmp, `run-${n}-${rep}`);
      cpSync(template, dir, { recursive: true });
      const floor = timed(["bench/spawnFloor.mjs", String(n), String(CONCURRENCY), TRIVIAL_COMMAND], projectDir);
      const first = runIn(dir);
      const second = runIn(dir);
      changeOneLeaf(dir);
      const leaf = runIn(dir);
      s.floor.push(floor);
      s.first.push(first);
      s.second.push(second);
      s.leaf.push(leaf);
      s.overhead.push((first.ms - floor.ms) / n);
      if (n === RUN_SMALL && BWRAP) {
        // The same first run with every command in bubblewrap, where it works here.
        const confinedDir = `${dir}-confined`;
        cpSync(template, confinedDir, { recursive: true });
        const confined = runIn(confinedDir, "required");
        s.confined.push(confined);
        s.confinedOverhead.push((confined.ms - floor.ms) / n);
        rmSync(confinedDir, { recursive: true, force: true });
      }
      s.incr.push(leaf.ms / second.ms);
      rmSync(dir, { recursive: true, force: true });
    }
    rmSync(template, { recursive: true, force: true });
    const row = (what: string, samples: Sample[], extra = "") => {
      const ms = median(samples.map((x) => x.ms));
      rows.push([fmtInt(n), what, String(samples.length), secs(ms), (ms / n).toFixed(2), median(samples.map((x) => x.peakMB)).toFixed(0), extra]);
      return ms;
    };
    row("spawn floor", s.floor);
    const overhead = median(s.overhead);
    firstMs.set(n, row("first run", s.first, `${overhead.toFixed(2)} ms/pair over the floor`));
    firstPerPair.set(n, firstMs.get(n)! / n);
    if (s.confined.length > 0)
      row("first run, sandboxed", s.confined, `${median(s.confinedOverhead).toFixed(2)} ms/pair over the floor (bubblewrap per command)`);
    row("second run (no change)", s.second);
    const incr = median(s.incr);
    row("one leaf prompt changed", s.leaf, `${incr.toFixed(2)}x the second run`);
    if (n === RUN_SMALL) {
      verdicts.push(`first run at ${fmtInt(n)}: ${overhead.toFixed(2)} ms of overhead per pair above the spawn floor (target <= 1 ms)`);
      if (s.confined.length > 0)
        verdicts.push(`first run at ${fmtInt(n)}, sandboxed: ${median(s.confinedOverhead).toFixed(2)} ms per pair above the spawn floor (target <= 1.5 ms)`);
      verdicts.push(`one leaf changed at ${fmtInt(n)}: ${incr.toFixed(2)}x the no-change run (target <= 1.3x)`);
    }
  }
  printTable(["pairs", "what", "runs", "median", "ms/pair", "peak MB", ""], rows);
  const growth = firstMs.get(RUN_LARGE)! / firstMs.get(RUN_SMALL)!;
  const perPairGrowth = firstPerPair.get(RUN_LARGE)! / firstPerPair.get(RUN_SMALL)!;
  verdicts.push(
    `first run at ${fmtInt(RUN_LARGE)}: ${growth.toFixed(1)}x the ${fmtInt(RUN_SMALL)}-pair run for ${(RUN_LARGE / RUN_SMALL).toFixed(1)}x the pairs, ` +
      `${perPairGrowth.toFixed(2)}x the time per pair (target at 10x the pairs: <= 12x the time)`,
  );
  for (const v of verdicts) console.log(`  ${v}`);
  console.log();
}

/**
 * A run of the built CLI. Commands run unconfined unless `sandbox` is given: the spawn floor starts
 * them unconfined too, so the difference is pairflow's own cost; the sandbox's is measured apart.
 */
function runIn(dir: string, sandbox = "off"): Sample {
  return timed([cli, "run", "--yes", "--sandbox", sandbox, "--concurrency", String(CONCURRENCY), "workflow.yml"], dir);
}

/** Changes the task of one pair that nothing requires: the next run executes exactly that pair. */
function changeOneLeaf(dir: string): void {
  const workflow = parse(readFileSync(path.join(dir, "workflow.yml"), "utf8")) as { action_pairs: Record<string, { requires?: string[] }> };
  const required = new Set(Object.values(workflow.action_pairs).flatMap((p) => p.requires ?? []));
  const leaf = Object.keys(workflow.action_pairs)
    .reverse()
    .find((id) => !required.has(id))!;
  const promptsPath = path.join(dir, "prompts.yml");
  const prompts = parse(readFileSync(promptsPath, "utf8")) as Record<string, { task: string }>;
  prompts[leaf]!.task += " Also cover the empty case.";
  writeFileSync(promptsPath, stringify(prompts, { lineWidth: 100, aliasDuplicateObjects: false }));
}

// ---------------------------------------------------------------------------------------------
// 3. startup

function benchStartup(): void {
  console.log("== startup against `node -e 0`");
  const reps = QUICK ? 3 : 11;
  const s = { node: [] as Sample[], version: [] as Sample[], validate: [] as Sample[], rv: [] as number[], rval: [] as number[] };
  for (let i = 0; i < reps; i++) {
    const node = timed(["-e", "0"], projectDir);
    const version = timed([cli, "--version"], projectDir);
    const validate = timed([cli, "validate", exampleDir], projectDir);
    s.node.push(node);
    s.version.push(version);
    s.validate.push(validate);
    s.rv.push(version.ms / node.ms);
    s.rval.push(validate.ms / node.ms);
  }
  const row = (what: string, samples: Sample[], ratio?: number[]) => [
    what,
    String(samples.length),
    `${median(samples.map((x) => x.ms)).toFixed(0)} ms`,
    median(samples.map((x) => x.peakMB)).toFixed(0),
    ratio ? `${median(ratio).toFixed(2)}x` : "",
  ];
  printTable(
    ["what", "runs", "median", "peak MB", "/ node -e 0"],
    [row("node -e 0", s.node), row("pairflow --version", s.version, s.rv), row("pairflow validate examples/tdd-stack", s.validate, s.rval)],
  );
  console.log(`  --version ${median(s.rv).toFixed(2)}x and validate ${median(s.rval).toFixed(2)}x node -e 0 (target <= 2x)\n`);
}

// ---------------------------------------------------------------------------------------------
// 4. the estimate's tokenizer on long unbroken text

async function benchTokens(): Promise<void> {
  console.log("== o200k token count of one unbroken word (in this process, after the table is built)");
  await loadTokenizer();
  countO200k("warm");
  const rows: string[][] = [];
  for (const chars of [5_000, 10_000, 20_000, 40_000]) {
    const latin = "a".repeat(chars);
    const cjk = "漢字".repeat(chars / 2);
    const t0 = performance.now();
    countO200k(latin);
    const t1 = performance.now();
    countO200k(cjk);
    const t2 = performance.now();
    rows.push([
      fmtInt(chars),
      `${(t1 - t0).toFixed(1)} ms`,
      `${(((t1 - t0) * 1000) / chars).toFixed(2)}`,
      `${(t2 - t1).toFixed(1)} ms`,
      `${(((t2 - t1) * 1000) / chars).toFixed(2)}`,
    ]);
  }
  printTable(["characters", "Latin word", "µs/char", "CJK run", "µs/char"], rows);
  console.log("  (linear: µs per character stays flat as the word grows)\n");
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** `node <args>` in cwd, its wall time from here and its own peak RSS. */
function timed(args: string[], cwd: string): Sample {
  return timedCommand(process.execPath, ["--import", peakHook, ...args], cwd);
}

function timedCommand(command: string, args: string[], cwd: string): Sample {
  rmSync(peakFile, { force: true });
  const t0 = performance.now();
  const child = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    maxBuffer: 1 << 30,
    env: { ...process.env, PAIRFLOW_BENCH_PEAK: peakFile },
  });
  const ms = performance.now() - t0;
  if (child.status !== 0)
    throw new Error(`${command} ${args.join(" ")} (in ${cwd}) failed (${child.status ?? child.signal}):\n${child.stderr}${child.stdout.slice(0, 2000)}`);
  const peakKB = existsSync(peakFile) ? Number(readFileSync(peakFile, "utf8")) : Number.NaN;
  return { ms, peakMB: peakKB / 1024, stdout: child.stdout };
}

function onPath(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const numeric = (c: string) => /^[\d.,]+( ?(ms|s|x))?$/.test(c);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric(c) || numeric(header[i]!) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
}

function fmtInt(n: number): string {
  return n.toLocaleString("en-US");
}

function secs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 1000).toFixed(2)} s`;
}

function kb(bytes: number): string {
  return bytes >= 2 ** 20 ? mb(bytes) : `${(bytes / 1024).toFixed(0)} KB`;
}

function mb(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GB` : `${(bytes / 2 ** 20).toFixed(1)} MB`;
}
