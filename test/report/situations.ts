/**
 * The three situations reports are judged in, at any size: a generated workflow of n pairs
 * accepted on `main` (bench/reportScenarios.ts), then on a branch
 * - `one-cause`: the workflow's specification edited, every pair re-running for it;
 * - `twenty-edits`: twenty different edits — pairs' prompts and models spread over the waves, a
 *   file that pairs read as input, a dependency added to a pair's requires;
 * and a run of the one-cause plan in which 5 % of the pairs that run fail, those that need them blocked.
 * Made with the planner and the diff themselves, as `pairflow diff` and the action make them.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, stringify } from "yaml";
import { acceptedRepository, git, reportScenario, testRunnerOutput } from "../../bench/reportScenarios.js";
import { prng } from "../../bench/generate.js";
import { planDiff, type PreparedDiff } from "../../src/app/diff.js";
import type { PairOutcome, RunReport } from "../../src/model/run.js";

export interface Situation {
  dir: string;
  diff: PreparedDiff;
  /** What each edit's cause must be named, in plain text: one per edit. */
  edits: string[];
}

const made = new Map<string, Promise<Situation>>();

export function situation(n: number, kind: "one-cause" | "twenty-edits"): Promise<Situation> {
  const key = `${n} ${kind}`;
  if (!made.has(key)) made.set(key, kind === "one-cause" ? oneCause(n) : twentyEdits(n));
  return made.get(key)!;
}

async function oneCause(n: number): Promise<Situation> {
  const s = await reportScenario(n, "one-cause");
  return { dir: s.dir, diff: s.diff, edits: ["workflow specification"] };
}

/** A file the generated workflows' `inputs` globs match (bench/generate.ts). */
const SHARED_FILE = "src/app/models.py";
const READS_SHARED = new Set(["src/**/*.py", SHARED_FILE]);

async function twentyEdits(n: number): Promise<Situation> {
  const dir = mkdtempSync(path.join(tmpdir(), `pairflow-twenty-${n}-`));
  cpSync(acceptedRepository(n, n), dir, { recursive: true });
  git(dir, "checkout", "-q", "-b", "change");
  const promptsFile = path.join(dir, "prompts.yml");
  const workflowFile = path.join(dir, "workflow.yml");
  const prompts = parse(readFileSync(promptsFile, "utf8")) as Record<string, Record<string, string>>;
  const workflow = parse(readFileSync(workflowFile, "utf8")) as { model: string; action_pairs: Record<string, Record<string, unknown>> };
  const ids = Object.keys(workflow.action_pairs);
  const edits: string[] = [];

  // A file pairs read as input, edited: one edit, however many read it.
  if (ids.some((id) => ((workflow.action_pairs[id]!.inputs as string[] | undefined) ?? []).some((g) => READS_SHARED.has(g)))) {
    writeFileSync(path.join(dir, SHARED_FILE), `${readFileSync(path.join(dir, SHARED_FILE), "utf8")}\n# Users are compared by name.\n`);
    edits.push(`input ${SHARED_FILE}`);
  }
  // A dependency added to the requires of the last pair: one of the first pairs, whose prompt is edited below.
  const last = ids[ids.length - 1]!;
  const requires = (workflow.action_pairs[last]!.requires as string[] | undefined) ?? [];
  const added = ids.find((id) => id !== last && !requires.includes(id))!;
  workflow.action_pairs[last]!.requires = [...requires, added];
  edits.push(`requires of ${last} (added ${added})`);

  // Prompts and models, spread over the file (and so over the waves), each pair's its own edit.
  const spread = Math.min(n, 18);
  const wanted = 20 - edits.length;
  const picked: [string, "task" | "model"][] = [[added, "task"]];
  for (let i = 0; picked.length < wanted; i++) {
    const id = ids[Math.floor((((i % spread) + 0.5) * n) / spread)]!;
    const how = i < spread === (i % 2 === 0) ? "task" : "model";
    if (!picked.some(([p, h]) => p === id && h === how)) picked.push([id, how]);
  }
  for (const [id, how] of picked) {
    if (how === "task") {
      prompts[id]!.task = `${prompts[id]!.task} Say which inputs it refuses.`;
      edits.push(`prompt of ${id} (task)`);
    } else {
      const pair = workflow.action_pairs[id]!;
      const was = (pair.model as string | undefined) ?? workflow.model;
      pair.model = was === "gpt-4.1" ? "claude-sonnet-4" : "gpt-4.1";
      edits.push(`model of ${id} (was ${was})`);
    }
  }
  writeFileSync(promptsFile, stringify(prompts, { lineWidth: 100, aliasDuplicateObjects: false }));
  writeFileSync(workflowFile, stringify(workflow, { lineWidth: 100, aliasDuplicateObjects: false }));
  git(dir, "commit", "-q", "-am", "twenty edits");
  const diff = await planDiff(undefined, { cwd: dir, base: "main", env: {} });
  return { dir, diff, edits };
}

/**
 * A run of the diff's plan in which 5 % of the pairs that run fail (at least one), spread over the
 * waves but the last, what needs a failed pair is blocked, the others are executed, and what the
 * plan skips is reused.
 */
export function failingRun(diff: PreparedDiff, share = 0.05): RunReport {
  const plan = diff.planned.plan;
  const rand = prng(plan.pairs.length);
  const all = plan.pairs.filter((p) => p.action === "run");
  const early = all.filter((p) => p.wave < plan.graph.waves.length);
  const running = early.length > 0 ? early : all;
  const count = Math.max(1, Math.round(share * all.length));
  const failing = new Set(Array.from({ length: count }, (_, i) => running[Math.floor(((i + 0.5) * running.length) / count)]!.id));
  const stopped = new Set<string>();
  const pairs = plan.pairs.map((p): PairOutcome => {
    const base = { id: p.id, configRef: p.configRef ?? "ab".repeat(32), contentHash: null, reasons: p.reasons };
    if (p.action === "skip") return { ...base, status: "reused", attempts: [], durationMs: 0, note: null, reasons: [] };
    const by = p.requires.find((d) => stopped.has(d));
    if (by !== undefined) {
      stopped.add(p.id);
      return { ...base, status: "blocked", attempts: [], durationMs: 0, note: `blocked: ${by} did not finish` };
    }
    const fails = failing.has(p.id);
    const feedback = testRunnerOutput(p.id, rand);
    const attempts = [{ attempt: 1, accepted: !fails, feedback: fails ? feedback : "", tokens: null, durationMs: 3_000 }];
    if (!fails) return { ...base, status: "executed", attempts, durationMs: 3_000, note: null, contentHash: "cd".repeat(32) };
    stopped.add(p.id);
    return { ...base, status: "failed", attempts, durationMs: 3_000, note: `rejected after 1 attempt: ${feedback}` };
  });
  const total = (s: string) => pairs.filter((p) => p.status === s).length;
  return {
    version: 1,
    runId: "20260101T000000000Z-1a2b",
    workflowRef: plan.workflowRef,
    status: total("failed") > 0 ? "failed" : "success",
    pairs,
    totals: {
      pairs: pairs.length,
      executed: total("executed"),
      reused: total("reused"),
      failed: total("failed"),
      blocked: total("blocked"),
      interrupted: 0,
      tokens: { input: 0, output: 0 },
      durationMs: 60_000,
    },
  };
}
