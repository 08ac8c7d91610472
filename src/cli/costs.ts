/**
 * What `pairflow run` does with estimates: shows the estimate before executing, refuses a run over
 * `--max-cost`, asks on a terminal unless `--yes`, and after the run shows estimated against
 * actual. The command file wires these in; everything else lives here.
 */
import type { Io } from "./context.js";
import type { Plan } from "../model/plan.js";
import type { Prepared } from "../app/prepare.js";
import { styleFor } from "../report/color.js";
import { planText } from "../report/plan.js";
import type { RunReport } from "../model/run.js";
import { estimatePlan, type PlanEstimate } from "../estimate/estimate.js";
import { compareWithRun, comparisonText, estimateHeadline, estimateText, estimateTotal, plural, type RunComparison } from "../report/estimate.js";
import { askYesNo, BudgetExceededError, canAsk, checkBudget, RunDeclinedError } from "../estimate/budget.js";

export interface CostFlags {
  json?: boolean;
  /** USD. */
  maxCost?: number;
  yes?: boolean;
  /** `--only`: only these of the pairs planned to run execute. */
  only?: string[];
}

export interface RunCosts {
  /** For RunOptions.beforeExecute; `stop` (Ctrl-C) answers the question with no. */
  beforeExecute(plan: Plan, prepared: Prepared, stop?: AbortSignal): Promise<void>;
  /** Adds the estimate-against-actual comparison to the report (an additive `estimate` field of `run --json`). */
  withComparison<R extends RunReport>(report: R): R & { estimate?: RunComparison };
  /** Shows the comparison, after the run summary. */
  showComparison(): void;
  /** Reports a refusal (budget, or a "no" at the question); false for any other error. */
  refused(err: unknown): boolean;
}

export function runCosts(io: Io, flags: CostFlags): RunCosts {
  const progress = flags.json ? io.stderr : io.stdout;
  const style = styleFor(progress, io.env);
  const only = flags.only && new Set(flags.only);
  let estimate: PlanEstimate | undefined;
  let comparison: RunComparison | undefined;

  return {
    async beforeExecute(plan, prepared, stop) {
      estimate = estimatePlan(prepared, plan, { include: only ? (id) => only.has(id) : undefined });
      if (estimate.pairs.length === 0) return; // nothing will execute: nothing to show or ask
      const ask = !flags.yes && canAsk(io.stdin, io.stdout);
      const over = flags.maxCost !== undefined ? checkBudget(estimate, flags.maxCost) : null;
      // The breakdown where it decides something (a refusal, a question); otherwise one line.
      if (ask) progress.write(planText(plan, style, io.cwd, estimate) + "\n");
      else if (over !== null) progress.write(estimateText(estimate, style) + "\n");
      else progress.write(style.dim(`Estimate: ${estimateHeadline(estimate)} (pairflow plan shows the breakdown)`) + "\n\n");
      if (over !== null) throw new BudgetExceededError(`${over}; nothing was executed`, estimate, flags.maxCost!);
      if (ask && !(await askYesNo(io.stdin!, (s) => progress.write(s), `Execute ${plural(estimate.totals.pairs, "pair")} (${estimateTotal(estimate)})? [y/N] `, stop))) {
        throw new RunDeclinedError("not confirmed; nothing was executed");
      }
    },
    withComparison(report) {
      if (!estimate || estimate.pairs.length === 0) return report;
      comparison = compareWithRun(estimate, report);
      return Object.assign(report, { estimate: comparison });
    },
    showComparison() {
      if (comparison) progress.write("\n" + comparisonText(comparison, style));
    },
    refused(err) {
      if (!(err instanceof BudgetExceededError) && !(err instanceof RunDeclinedError)) return false;
      io.stderr.write(`${styleFor(io.stderr, io.env).red("error")} ${err.message}\n`);
      return true;
    },
  };
}
