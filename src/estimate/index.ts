/**
 * Token and cost estimates: what a plan will spend before it spends it (docs/cost.md). The
 * functions the CLI, the GitHub job summary and the pull-request comment share.
 */
export { DEFAULT_OUTPUT_TOKENS, estimatePlan, type EstimateOptions, type EstimateSource, type PairEstimate, type PlanEstimate } from "./estimate.js";
export { BUILT_IN_PRICES, BUILT_IN_PRICES_AS_OF, priceFor, type Price } from "./prices.js";
export { CHARS_PER_TOKEN, countTokens, tokenMethod, type TokenMethod } from "./tokens.js";
export { pairHistory, readRunSamples } from "./history.js";
export {
  compareWithRun,
  comparisonMarkdown,
  comparisonText,
  estimateHeadline,
  estimateTotal,
  estimateMarkdown,
  estimateNotes,
  estimateText,
  pairEstimateJson,
  totalsEstimateJson,
  usd,
  type PairComparison,
  type RunComparison,
} from "./format.js";
export { runCosts, type CostFlags, type RunCosts } from "./command.js";
export { askYesNo, budgetGate, BudgetExceededError, canAsk, checkBudget, enforceBudget, parseUsd, RunDeclinedError } from "./gate.js";
