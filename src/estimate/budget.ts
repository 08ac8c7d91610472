/**
 * The budget: whether an estimate fits `--max-cost` (the action's `max-cost`). The application
 * layer checks it once, on the final plan, before anything executes.
 */
import type { PlanEstimate } from "./estimate.js";
import { usd } from "./prices.js";

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
