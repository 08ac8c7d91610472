/** A pull request's diff for report tests: `plan` against a base whose lock file accepted nothing it names. */
import type { PlanDiff } from "../../src/diff/diff.js";
import type { Plan } from "../../src/model/plan.js";

export function diffOf(plan: Plan, base: Partial<PlanDiff> = {}): PlanDiff {
  return {
    plan,
    sinceBase: new Map(),
    workflowFile: "workflow.yml",
    base: { ref: "main", commit: "cd".repeat(20), workflowFound: true },
    added: [],
    removed: [],
    changes: [],
    ...base,
  };
}
