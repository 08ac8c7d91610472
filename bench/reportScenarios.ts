/**
 * The workflows pairflow's reports are measured and tested at: a generated workflow of n pairs
 * (bench/generate.ts), accepted and committed on `main`, then changed on a branch in one of these
 * ways:
 * - `one-cause`: the workflow's `specification` edited, so every pair re-runs for that one reason;
 * - `few-causes`: five prompts edited, spread over the waves, and what depends on them re-runs;
 * - `many-causes`: more than half of the pairs edited, each in one of six ways (its task, its role,
 *   both, its constraints, its model, its attempts: the last re-runs nothing);
 * - `many-failures`: the one-cause change, run: 1 in 4 of the pairs of the last 40% of the waves fails (with the
 *   kind of output a test runner prints), what depends on a failure is blocked, the rest executed.
 * The plan, the diff against `main` and (for the last) a run report are made in this process,
 * through the same functions `pairflow plan`, `pairflow diff` and the action call.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, stringify } from "yaml";
import { planDiff, type PreparedDiff } from "../src/app/diff.js";
import { openState } from "../src/app/state.js";
import type { PairOutcome, RunReport } from "../src/model/run.js";
import { generateWorkflow, prng } from "./generate.js";
import { seedAcceptedState } from "./seed.js";

export const SCENARIOS = ["one-cause", "few-causes", "many-causes", "many-failures"] as const;
export type ScenarioKind = (typeof SCENARIOS)[number];

export interface Scenario {
  kind: ScenarioKind;
  dir: string;
  /** The branch's diff against main; its `planned.plan` is what `pairflow plan` shows there. */
  diff: PreparedDiff;
  /** For many-failures: a run of that plan. */
  report?: RunReport;
}

export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Bench",
      GIT_AUTHOR_EMAIL: "bench@example.com",
      GIT_COMMITTER_NAME: "Bench",
      GIT_COMMITTER_EMAIL: "bench@example.com",
    },
  }).trim();
}

/** The kind of output a failing test suite ends with, as a command guard keeps it (its tail). */
export function testRunnerOutput(id: string, rand: () => number): string {
  const expected = 1 + Math.floor(rand() * 9);
  const lines = [
    "[earlier output omitted]",
    ` ✓ tests/${id}/parse.test.ts (12 tests) 31ms`,
    ` ✓ tests/${id}/format.test.ts (4 tests) 8ms`,
    ` ❯ tests/${id}/main.test.ts (3 tests | 1 failed) 12ms`,
    `   × ${id} keeps the order of its items`,
    `     → expected [ 1, 2, ${expected + 1} ] to deeply equal [ 1, 2, ${expected} ]`,
    "",
    "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯",
    "",
    ` FAIL  tests/${id}/main.test.ts > ${id} > keeps the order of its items`,
    `AssertionError: expected [ 1, 2, ${expected + 1} ] to deeply equal [ 1, 2, ${expected} ]`,
    "",
    "- Expected",
    "+ Received",
    "",
    "  [",
    "    1,",
    "    2,",
    `-   ${expected},`,
    `+   ${expected + 1},`,
    "  ]",
    "",
    ` ❯ tests/${id}/main.test.ts:14:25`,
    "",
    " Test Files  1 failed | 2 passed (3)",
    "      Tests  1 failed | 18 passed (19)",
  ];
  return lines.join("\n");
}

/** Accepted workflows on main, by size and seed: made once in a process, copied for each change. */
const accepted = new Map<string, string>();

/** A repository whose main branch holds a generated workflow of n pairs, accepted: lock file, store, outputs. */
export function acceptedRepository(n: number, seed: number): string {
  const key = `${n} ${seed}`;
  const made = accepted.get(key);
  if (made) return made;
  const dir = mkdtempSync(path.join(tmpdir(), `pairflow-reports-${n}-`));
  git(dir, "init", "-q", "-b", "main");
  const { workflowPath } = generateWorkflow(dir, n, seed);
  writeFileSync(path.join(dir, ".gitignore"), ".pairflow/\n");
  seedAcceptedState(workflowPath);
  // What a pair that runs reads of its dependencies: their accepted content, in the local store.
  const { store, workflow } = openState(workflowPath, { cwd: dir, env: {} });
  for (const id of workflow.pairs.keys()) store.putContent(`artifact of ${id}\n`);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "accepted");
  accepted.set(key, dir);
  return dir;
}

/** A workflow of n pairs, accepted on main, changed on a branch as `kind` says, and planned there. */
export async function reportScenario(n: number, kind: ScenarioKind, seed = n): Promise<Scenario> {
  const dir = mkdtempSync(path.join(tmpdir(), `pairflow-reports-${n}-${kind}-`));
  cpSync(acceptedRepository(n, seed), dir, { recursive: true });
  git(dir, "checkout", "-q", "-b", "change");

  const rand = prng(seed + 1);
  if (kind === "one-cause" || kind === "many-failures") {
    const file = path.join(dir, "workflow.yml");
    const workflow = parse(readFileSync(file, "utf8")) as { specification: string };
    workflow.specification = `${workflow.specification.trimEnd()}\nEvery module logs what it refuses, and why.\n`;
    writeFileSync(file, stringify(workflow, { lineWidth: 100, aliasDuplicateObjects: false }));
  } else {
    const file = path.join(dir, "prompts.yml");
    const prompts = parse(readFileSync(file, "utf8")) as Record<string, Record<string, string>>;
    const workflowFile = path.join(dir, "workflow.yml");
    const workflow = parse(readFileSync(workflowFile, "utf8")) as { action_pairs: Record<string, Record<string, unknown>> };
    const ids = Object.keys(prompts);
    const edited =
      kind === "many-causes"
        ? ids.filter(() => rand() < 0.55)
        : // Five, spread over the file (and so over the waves).
          [0.02, 0.25, 0.5, 0.7, 0.9].map((f) => ids[Math.floor(f * ids.length)]!);
    for (const id of edited) {
      // Many causes: each edited pair changed in one of several ways, as a broad pull request does.
      const how = kind === "many-causes" ? Math.floor(rand() * 6) : 0;
      if (how <= 1) prompts[id]!.task = `${prompts[id]!.task} Say which inputs it refuses.`;
      if (how === 1 || how === 2) prompts[id]!.role = `${prompts[id]!.role} Be brief.`;
      if (how === 3) prompts[id]!.constraints = `${prompts[id]!.constraints} No new dependencies.`;
      if (how === 4) workflow.action_pairs[id]!.model = "gpt-4.1";
      if (how === 5) workflow.action_pairs[id]!.rmax = 3;
    }
    writeFileSync(file, stringify(prompts, { lineWidth: 100, aliasDuplicateObjects: false }));
    writeFileSync(workflowFile, stringify(workflow, { lineWidth: 100, aliasDuplicateObjects: false }));
  }
  git(dir, "commit", "-q", "-am", kind);

  const diff = await planDiff(undefined, { cwd: dir, base: "main", env: {} });
  return { kind, dir, diff, ...(kind === "many-failures" ? { report: failingRun(diff, seed) } : {}) };
}

/**
 * A run of the diff's plan in which 1 in 4 of the pairs of the last 40% of the waves fails (what
 * needs one is blocked), the others are executed, and those the plan skips are reused.
 */
export function failingRun(diff: PreparedDiff, seed: number): RunReport {
  const rand = prng(seed + 2);
  const plan = diff.planned.plan;
  const failed = new Set<string>();
  const blocked = new Map<string, string>();
  let i = 0;
  const lastWave = plan.graph.waves.length;
  const pairs: PairOutcome[] = plan.pairs.map((p) => {
    const base = { id: p.id, configRef: p.configRef ?? "ab".repeat(32), contentHash: null, reasons: p.reasons };
    if (p.action === "skip")
      return { ...base, status: "reused", attempts: [], durationMs: 0, note: null, avoided: { input: 900, output: 300 }, reasons: [] } as PairOutcome;
    const by = p.requires.find((d) => failed.has(d) || blocked.has(d));
    if (by !== undefined) {
      blocked.set(p.id, by);
      return { ...base, status: "blocked", attempts: [], durationMs: 0, note: `blocked: ${failed.has(by) ? by : blocked.get(by)!} failed` };
    }
    // Late pairs fail, as checks on the finished work do: early ones would block nearly everything.
    const fails = p.wave > lastWave * 0.6 && i++ % 4 === 2;
    const feedback = testRunnerOutput(p.id, rand);
    const attempts = [1, 2].slice(0, fails ? 2 : 1).map((attempt) => ({
      attempt,
      accepted: !fails,
      feedback: fails ? feedback : "",
      tokens: null,
      durationMs: 2_000 + Math.floor(rand() * 8_000),
    }));
    const durationMs = attempts.reduce((s, a) => s + a.durationMs, 0);
    if (!fails) return { ...base, status: "executed", attempts, durationMs, note: null, contentHash: "cd".repeat(32) };
    failed.add(p.id);
    return { ...base, status: "failed", attempts, durationMs, note: `rejected after 2 attempts: ${feedback}` };
  });
  const count = (s: string) => pairs.filter((p) => p.status === s).length;
  const calls = pairs.reduce((s, p) => s + (p.status === "reused" ? 0 : p.attempts.length), 0);
  return {
    version: 1,
    runId: "20260101T000000000Z-1a2b",
    workflowRef: plan.workflowRef,
    status: failed.size > 0 ? "failed" : "success",
    pairs,
    totals: {
      pairs: pairs.length,
      executed: count("executed"),
      reused: count("reused"),
      failed: count("failed"),
      blocked: count("blocked"),
      interrupted: 0,
      tokens: { input: 0, output: 0 },
      durationMs: 754_000,
    },
    sandbox: { mode: "auto", confined: true, by: "bubblewrap" },
    spend: {
      bought: { calls, batched: 0, tokens: null, cost: null },
      reused: { unchanged: count("reused"), request: 0, rejudged: 0 },
      avoided: { tokens: { input: 900 * count("reused"), output: 300 * count("reused") }, cost: 0.0003 * count("reused"), unknown: 0 },
    },
  };
}
