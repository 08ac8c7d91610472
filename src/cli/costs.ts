/**
 * What `pairflow run` shows of estimates: the estimate before executing (the budget gate itself is
 * the application layer's), the question on a terminal unless `--yes`, and after the run estimated
 * against actual.
 */
import type { Io } from "./context.js";
import type { Planned } from "../app/plan.js";
import { RunDeclinedError } from "../model/errors.js";
import { styleFor } from "../report/color.js";
import { planText } from "../report/plan.js";
import type { RunReport } from "../model/run.js";
import { asksBeforeRunning, type PlanEstimate } from "../estimate/estimate.js";
import { compareWithRun, comparisonText, estimateHeadline, estimateText, estimateTotal, plural, type RunComparison } from "../report/estimate.js";
import { BudgetExceededError } from "../app/run.js";
import { askYesNo, canAsk } from "./ask.js";
import { visible } from "../report/visible.js";

export interface CostFlags {
  json?: boolean;
  /** USD. */
  maxCost?: number;
  yes?: boolean;
}

export interface RunCosts {
  /** For RunRequest.onPlanned: shows the estimate (the breakdown over budget, the whole plan when it will ask). */
  onPlanned(planned: Planned, overBudget: string | null): void;
  /** For RunRequest.confirm: asks on a terminal unless --yes; `stop` (Ctrl-C) answers no. */
  confirm: ((planned: Planned) => Promise<boolean>) | undefined;
  /** Adds the estimate-against-actual comparison to the report (an additive `estimate` field of `run --json`). */
  withComparison<R extends RunReport>(report: R): R & { estimate?: RunComparison };
  /** Shows the comparison, after the run summary. */
  showComparison(): void;
  /** Reports a refusal (budget, or a "no" at the question); false for any other error. */
  refused(err: unknown): boolean;
}

export function runCosts(io: Io, flags: CostFlags, stop?: AbortSignal): RunCosts {
  const progress = flags.json ? io.stderr : io.stdout;
  const style = styleFor(progress, io.env);
  const ask = !flags.yes && canAsk(io.stdin, io.stdout);
  let estimate: PlanEstimate | undefined;
  let comparison: RunComparison | undefined;

  return {
    onPlanned(planned, overBudget) {
      estimate = planned.estimate;
      if (estimate.pairs.length === 0) return; // nothing will execute: nothing to show
      const over = overBudget !== null;
      // The breakdown where it decides something (a refusal, a question); otherwise one line.
      if (ask && asksBeforeRunning(estimate)) progress.write(planText(planned.plan, style, io.cwd, estimate) + "\n");
      else if (over) progress.write(estimateText(estimate, style) + "\n");
      else progress.write(style.dim(`Estimate: ${estimateHeadline(estimate)} (pairflow plan shows the breakdown)`) + "\n\n");
    },
    confirm: ask
      ? ({ estimate }) =>
          askYesNo(io.stdin!, (s) => progress.write(s), `Execute ${plural(estimate.totals.pairs, "pair")} (${estimateTotal(estimate)})? [y/N] `, stop)
      : undefined,
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
      io.stderr.write(`${styleFor(io.stderr, io.env).red("error")} ${visible(err.message)}\n`);
      return true;
    },
  };
}
