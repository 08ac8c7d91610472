/**
 * One sequence of the plan-equals-run property: a fresh repository, a first run, then each step's
 * changes followed by a plan and a run with the same selection and remote store, and the checks.
 * Every problem of the failing step is reported, check by check, with the steps that led there.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import * as driver from "./driver.js";
import type { PairOutcome, PlanView, RunReport, Selection } from "./driver.js";
import { MemoryRemote } from "./memoryRemote.js";
import { describeWorkflow, resolveStep, Workspace, type PairDef, type Scenario } from "./scenario.js";
import { STAND_IN, standIn } from "./standIn.js";

interface Problem {
  check: string;
  lines: string[];
}

type Outcome<T> = { ok: T } | { refused: string } | { error: Error };

async function attempt<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: await call() };
  } catch (err) {
    if (err instanceof driver.UsageError) return { refused: err.message };
    return { error: err as Error };
  }
}

export class SequenceFailure extends Error {
  override name = "SequenceFailure";
}

/**
 * A fresh directory for a sequence. In memory where the machine has a tmpfs at /dev/shm: every
 * write pairflow makes is flushed to disk, which on a disk costs most of the test's time.
 */
function scratchDir(prefix: string): string {
  const base = process.env.PAIRFLOW_PROPERTY_TMP ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
  try {
    return mkdtempSync(path.join(base, prefix));
  } catch {
    return mkdtempSync(path.join(tmpdir(), prefix));
  }
}

/** A step whose checks failed: its index (0 is the first run) and the report. */
export interface StepFailure {
  step: number;
  checks: string[];
  report: string;
}

/**
 * Runs one sequence. Throws SequenceFailure at the first step whose checks fail; with
 * `keepGoing`, goes on to the end instead and returns every failing step.
 */
export async function runSequence(scenario: Scenario, options: { keepGoing?: boolean } = {}): Promise<StepFailure[]> {
  const tmp = scratchDir("pairflow-property-");
  try {
    return await new Sequence(scenario, tmp).go(options.keepGoing ?? false);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

class Sequence {
  private readonly repo: string;
  private readonly ws: Workspace;
  private readonly remote = new MemoryRemote();
  private readonly generators: Record<string, driver.Generator>;
  private readonly byId: Map<string, PairDef>;
  private readonly log: string[] = [];
  private warnings: string[] = [];

  constructor(
    private readonly scenario: Scenario,
    private readonly tmp: string,
  ) {
    this.repo = path.join(tmp, "repo");
    this.ws = new Workspace(this.repo, scenario.pairs);
    this.byId = new Map(this.ws.pairs.map((p) => [p.id, p]));
    this.generators = { [STAND_IN]: standIn(scenario.nondeterministic) };
  }

  async go(keepGoing: boolean): Promise<StepFailure[]> {
    const failures: StepFailure[] = [];
    const steps = [{ changes: [], selection: { kind: "none" as const } }, ...this.scenario.steps];
    for (const [i, spec] of steps.entries()) {
      const step = resolveStep(spec, this.ws.pairs);
      this.log.push(`${i}: ${i === 0 ? "first run" : step.text}`);
      this.warnings = [];
      this.ws.apply(step);
      const problems = await this.check(step.selection);
      if (problems.length === 0) continue;
      const report = this.report(i, problems);
      if (!keepGoing) throw new SequenceFailure(report);
      failures.push({ step: i, checks: problems.map((p) => p.check), report });
    }
    return failures;
  }

  private async check(selection: Selection): Promise<Problem[]> {
    const problems = await this.checkRuns(selection);
    const outside = readdirSync(this.tmp).filter((name) => name !== "repo");
    if (outside.length > 0)
      problems.push({ check: "nothing is written outside the repository", lines: outside.map((n) => `${path.join(this.tmp, n)} appeared`) });
    return problems;
  }

  private async checkRuns(selection: Selection): Promise<Problem[]> {
    const problems: Problem[] = [];
    const label = describeSelection(selection);
    const planned = await attempt(() => driver.plan(this.repo, { selection, remote: this.remote }));
    const ran = await attempt(() => this.run(selection));

    if ("error" in planned) problems.push({ check: `plan (${label}) throws`, lines: [errorText(planned.error)] });
    if ("error" in ran) problems.push({ check: `run (${label}) throws`, lines: [errorText(ran.error)] });
    if ("refused" in planned || "refused" in ran) {
      const p = "refused" in planned ? planned.refused : "no refusal";
      const r = "refused" in ran ? ran.refused : "no refusal";
      if (p !== r) problems.push({ check: `plan and run refuse alike (${label})`, lines: [`plan: ${p}`, `run:  ${r}`] });
      else if (selection.only) problems.push(...(await this.refusalJustified(selection.only, r)));
    }
    if ("ok" in planned && "ok" in ran) problems.push(...this.agree(label, planned.ok, ran.ok));
    if ("ok" in ran) problems.push(...this.outputs(label, ran.ok));
    if (problems.length > 0) return problems;

    if (selection.only) {
      // --only leaves the rest of the workflow as it was: settle it, as a plan and a run.
      const plan2 = await attempt(() => driver.plan(this.repo, { selection: {}, remote: this.remote }));
      const run2 = await attempt(() => this.run({}));
      if (!("ok" in plan2)) problems.push({ check: "plan after --only", lines: [outcomeText(plan2)] });
      if (!("ok" in run2)) problems.push({ check: "run after --only", lines: [outcomeText(run2)] });
      if ("ok" in plan2 && "ok" in run2) problems.push(...this.agree("run after --only", plan2.ok, run2.ok));
      if ("ok" in run2) problems.push(...this.outputs("run after --only", run2.ok));
      if (problems.length > 0) return problems;
    }

    return this.settled();
  }

  private run(selection: Selection): Promise<RunReport> {
    return driver.run(this.repo, { selection, remote: this.remote, generators: this.generators, onWarning: (w) => this.warnings.push(w) });
  }

  /** Plan and run agree pair by pair, and where the plan knew a reference the run used it. */
  private agree(label: string, plan: PlanView, report: RunReport): Problem[] {
    const differ: string[] = [];
    const refs: string[] = [];
    const failed: string[] = [];
    const planned = new Map(plan.pairs.map((p) => [p.id, p]));
    const outcomes = new Map(report.pairs.map((p) => [p.id, p]));
    const ids = [...new Set([...planned.keys(), ...outcomes.keys()])];
    for (const id of ids) {
      const p = planned.get(id);
      const r = outcomes.get(id);
      if (!p || !r) {
        differ.push(`${id}: ${p ? `plan ${plannedText(p)}` : "not in the plan"}; ${r ? `run ${outcomeOf(r)}` : "not in the run's report"}`);
        continue;
      }
      if (r.status !== "executed" && r.status !== "reused") {
        failed.push(`${id}: run ${outcomeOf(r)} (plan ${plannedText(p)})`);
        continue;
      }
      const cutoff = p.action === "run" && r.status === "reused" && p.configRef === null && (r.note ?? "").startsWith("early cutoff");
      const same = (p.action === "run") === (r.status === "executed") || (cutoff && !this.scenario.nondeterministic);
      if (!same) {
        const why = cutoff ? " [early cutoff, but this generator never repeats its bytes]" : "";
        differ.push(`${id}: plan ${plannedText(p)}; run ${outcomeOf(r)}${why}`);
      } else if (p.configRef !== null && r.configRef !== p.configRef) {
        refs.push(`${id}: plan ${p.action} ${short(p.configRef)}; run ${r.status} ${short(r.configRef)}`);
      }
    }
    const problems: Problem[] = [];
    if (failed.length > 0) problems.push({ check: `every pair is accepted (${label})`, lines: failed });
    if (differ.length > 0) problems.push({ check: `plan = run (${label}): ${differ.length} pair${differ.length === 1 ? "" : "s"} differ`, lines: differ });
    if (refs.length > 0) problems.push({ check: `the run uses the plan's configRef (${label})`, lines: refs });
    return problems;
  }

  /** Each output of a pair the run executed or reused is there, with the content it reported. */
  private outputs(label: string, report: RunReport): Problem[] {
    const lines: string[] = [];
    for (const r of report.pairs) {
      if (r.status === "executed") this.ws.handEdited.delete(r.id);
      if (r.status !== "executed" && r.status !== "reused") continue;
      const pair = this.byId.get(r.id)!;
      const file = this.ws.outputFile(pair);
      if (file === undefined) continue;
      if (!existsSync(file)) {
        lines.push(`${r.id}: ${r.status}, but ${pair.output} is missing${r.note ? ` (note: ${r.note})` : ""}`);
      } else if (!this.ws.handEdited.has(r.id)) {
        const hash = createHash("sha256").update(readFileSync(file)).digest("hex");
        if (hash !== r.contentHash) lines.push(`${r.id}: ${r.status} with content ${short(r.contentHash)}, but ${pair.output} holds ${short(hash)}`);
      }
    }
    return lines.length > 0 ? [{ check: `output files hold what the run reported (${label})`, lines }] : [];
  }

  /** Right after, a plan has nothing to run and a run executes nothing and leaves the lock file be. */
  private async settled(): Promise<Problem[]> {
    const problems: Problem[] = [];
    const plan = await attempt(() => driver.plan(this.repo, { selection: {}, remote: this.remote }));
    if ("ok" in plan) {
      const again = plan.ok.pairs.filter((p) => p.action === "run");
      if (again.length > 0) problems.push({ check: "a second plan has nothing to run", lines: again.map((p) => `${p.id}: plan ${plannedText(p)}`) });
    } else {
      problems.push({ check: "a second plan has nothing to run", lines: [outcomeText(plan)] });
    }
    const lock = this.ws.lockBytes();
    const run = await attempt(() => this.run({}));
    if ("ok" in run) {
      const again = run.ok.pairs.filter((p) => p.status !== "reused");
      if (again.length > 0) problems.push({ check: "a second run executes nothing", lines: again.map((p) => `${p.id}: run ${outcomeOf(p)}`) });
      problems.push(...this.outputs("second run", run.ok));
    } else {
      problems.push({ check: "a second run executes nothing", lines: [outcomeText(run)] });
    }
    const after = this.ws.lockBytes();
    if (after !== lock) problems.push({ check: "a second run leaves the lock file byte-identical", lines: lockDiff(lock, after) });
    return problems;
  }

  /**
   * A refusal of --only is right only if a dependency it needs cannot be reused as it is: its
   * reference depends on a selected pair, which will run, or it has no accepted artifact anywhere,
   * so that a run without --only, on a copy of the repository and of the remote store, executes it.
   */
  private async refusalJustified(only: string[], message: string): Promise<Problem[]> {
    const needed = new Set<string>();
    const stack = [...only];
    while (stack.length > 0) {
      for (const dep of this.byId.get(stack.pop()!)!.requires) {
        if (!needed.has(dep)) {
          needed.add(dep);
          stack.push(dep);
        }
      }
    }
    for (const id of only) needed.delete(id);
    const dependsOnSelected = (id: string): boolean => this.byId.get(id)!.requires.some((d) => only.includes(d) || dependsOnSelected(d));
    if ([...needed].some(dependsOnSelected)) return [];
    const scratch = scratchDir("pairflow-property-whatif-");
    try {
      const copy = path.join(scratch, "repo");
      cpSync(this.repo, copy, { recursive: true });
      const report = await driver.run(copy, {
        selection: {},
        remote: this.remote.clone(),
        generators: { [STAND_IN]: standIn(this.scenario.nondeterministic) },
      });
      const executed = report.pairs.filter((p) => needed.has(p.id) && p.status === "executed");
      if (executed.length > 0) return [];
      return [
        {
          check: "--only refuses only a dependency with no accepted artifact anywhere",
          lines: [
            `refused: ${message}`,
            "but a run without --only (on a copy, with the same remote store) executes none of those dependencies:",
            ...report.pairs.filter((p) => needed.has(p.id)).map((p) => `  ${p.id}: ${outcomeOf(p)}`),
          ],
        },
      ];
    } catch (err) {
      return [
        {
          check: "--only refuses only a dependency with no accepted artifact anywhere",
          lines: [`refused: ${message}`, `a run without --only on a copy failed: ${errorText(err as Error)}`],
        },
      ];
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  private report(step: number, problems: Problem[]): string {
    const lines = [
      `plan = run fails at step ${step} of ${this.scenario.steps.length} ` +
        `(${this.ws.pairs.length} pairs, ${this.scenario.nondeterministic ? "nondeterministic" : "deterministic"} generator)`,
      "workflow:",
      ...describeWorkflow(this.ws.pairs),
      "steps (each: changes, then a plan and a run; after each, a second plan and run with no selection):",
      ...this.log.map((l, i) => `  ${l}${i === step ? "    <-- here" : ""}`),
      "problems:",
    ];
    for (const p of problems) lines.push(`  [${p.check}]`, ...p.lines.map((l) => `    ${l}`));
    if (this.warnings.length > 0) lines.push("run warnings:", ...this.warnings.map((w) => `  ${w}`));
    return lines.join("\n");
  }
}

function describeSelection(selection: Selection): string {
  if (selection.force) return "--force";
  if (selection.from !== undefined) return `--from ${selection.from}`;
  if (selection.only !== undefined) return `--only ${selection.only.join(" ")}`;
  return "no selection";
}

function short(ref: string | null): string {
  return ref === null ? "null" : ref.slice(0, 12);
}

function plannedText(p: PlanView["pairs"][number]): string {
  const reasons = (p.reasons ?? []).map((r) => `${r.kind}: ${r.detail}`).join("; ");
  return `${p.action} ${short(p.configRef)}${reasons ? ` (${reasons})` : ""}`;
}

function outcomeOf(r: PairOutcome): string {
  return `${r.status} ${short(r.configRef)}${r.note ? ` (note: ${r.note})` : ""}`;
}

function outcomeText<T>(o: Outcome<T>): string {
  return "refused" in o ? `refused: ${o.refused}` : "error" in o ? `threw: ${errorText(o.error)}` : "ok";
}

function errorText(err: Error): string {
  return `${err.name}: ${err.message}`;
}

function lockDiff(before: string | null, after: string | null): string[] {
  if (before === null || after === null) return [`the lock file ${before === null ? "appeared" : "disappeared"}`];
  const a = before.split("\n");
  const b = after.split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length) && out.length < 8; i++) {
    if (a[i] !== b[i]) out.push(`line ${i + 1}: ${JSON.stringify(a[i] ?? "")} -> ${JSON.stringify(b[i] ?? "")}`);
  }
  return out;
}
