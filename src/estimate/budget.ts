/**
 * Before a run spends anything: the budget gate (`--max-cost`, the action's `max-cost`) and the
 * question asked on a terminal. Both work through RunOptions.beforeExecute, which sees the final
 * plan; throwing there stops the run with nothing executed.
 */
import { createInterface } from "node:readline";
import type { Plan } from "../model/plan.js";
import type { Prepared } from "../app/prepare.js";
import { estimatePlan, type EstimateOptions, type PlanEstimate } from "./estimate.js";
import { usd } from "../report/estimate.js";

/** The run was refused before anything executed; `estimate` is the breakdown to show. */
export class BudgetExceededError extends Error {
  override name = "BudgetExceededError";
  constructor(
    message: string,
    readonly estimate: PlanEstimate,
    readonly maxCost: number,
  ) {
    super(message);
  }
}

/** The person at the terminal said no. */
export class RunDeclinedError extends Error {
  override name = "RunDeclinedError";
}

/**
 * Why the estimate does not fit the budget, or null when it does. A run whose cost is partly
 * unknown is refused too: a budget that cannot be checked is not kept.
 */
export function checkBudget(estimate: PlanEstimate, maxCost: number, name = "--max-cost"): string | null {
  const t = estimate.totals;
  if (t.pairs === 0) return null;
  if (t.cost === null) {
    const pairs = estimate.pairs.filter((p) => p.cost === null).map((p) => p.id);
    return (
      `the cost of ${pairs.join(", ")} is unknown (no price for ${t.unpricedModels.join(", ")}), so it cannot be checked against ${name} ${usd(maxCost)}; ` +
      `add the model under pricing: in the workflow file (input and output USD per million tokens)`
    );
  }
  if (t.cost > maxCost) return `the estimated cost ${usd(t.cost)} exceeds ${name} ${usd(maxCost)}`;
  return null;
}

/** Throws BudgetExceededError when the estimate does not fit the budget. */
export function enforceBudget(estimate: PlanEstimate, maxCost: number, name = "--max-cost"): void {
  const reason = checkBudget(estimate, maxCost, name);
  if (reason !== null) throw new BudgetExceededError(`${reason}; nothing was executed`, estimate, maxCost);
}

/**
 * A RunOptions.beforeExecute that refuses a run whose estimate exceeds `maxCost` (USD). For the
 * action: `runWorkflow(path, { beforeExecute: budgetGate(maxCost, { name: "max-cost" }) })`, then
 * catch BudgetExceededError, report `estimateMarkdown(err.estimate)` and fail the step.
 */
export function budgetGate(
  maxCost: number,
  options: EstimateOptions & { name?: string; onEstimate?: (estimate: PlanEstimate) => void } = {},
): (plan: Plan, prepared: Prepared) => Promise<void> {
  return async (plan, prepared) => {
    const estimate = estimatePlan(prepared, plan, options);
    options.onEstimate?.(estimate);
    enforceBudget(estimate, maxCost, options.name);
  };
}

/** A budget as given on the command line: dollars, with or without "$"; undefined if not one. */
export function parseUsd(text: string): number | undefined {
  const value = text.trim().replace(/^\$/, "");
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(value)) return undefined;
  return Number(value);
}

/** Both ends are a terminal: only then is anybody there to answer. */
export function canAsk(stdin: { isTTY?: boolean } | undefined, stdout: { isTTY?: boolean }): boolean {
  return Boolean(stdin?.isTTY) && Boolean(stdout.isTTY);
}

/**
 * Writes the question and reads one line: "y" or "yes" (any case) is yes; anything else, end of
 * input, or `signal` aborting (Ctrl-C) is no.
 */
export function askYesNo(stdin: NodeJS.ReadableStream, write: (s: string) => void, question: string, signal?: AbortSignal): Promise<boolean> {
  write(question);
  return new Promise((resolve) => {
    const rl = createInterface({ input: stdin, terminal: false });
    let answered = false;
    const onAbort = () => rl.close();
    signal?.addEventListener("abort", onAbort, { once: true });
    rl.once("line", (line) => {
      answered = true;
      rl.close();
      resolve(/^\s*y(es)?\s*$/i.test(line));
    });
    rl.once("close", () => {
      signal?.removeEventListener("abort", onAbort);
      if (answered) return;
      write("\n");
      resolve(false);
    });
  });
}
