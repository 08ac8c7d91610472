/**
 * Validating a workflow where it lives: the configuration itself (schema, references between pairs,
 * cycles, paths), and notes on what pairflow makes of it that a reader might not expect.
 */
import { checkWorkflow } from "../config/check.js";
import { issueAt, type Loaded } from "../config/parse.js";
import { downstreamOf } from "../graph/graph.js";
import { sortIssues, type ConfigIssue } from "../model/errors.js";
import type { Graph } from "../model/graph.js";
import type { Pair } from "../model/workflow.js";
import type { LeftOut } from "../workspace/inputs.js";
import { diskFiles, loadWorkflow } from "../workspace/load.js";
import { inputHasherFor, stateDirFor, type StateOptions } from "./state.js";

export interface Validated extends Loaded {
  /**
   * What loading let pass and a run would reject or not honour: errors and warnings (by severity),
   * in file order. A workflow with errors here loads and plans, and fails when its pairs run.
   */
  problems: ConfigIssue[];
  /** Not problems: each file an `inputs` glob matches that is left out because pairflow writes it. */
  notes: ConfigIssue[];
}

/**
 * Throws ConfigError listing every problem that stops a load; a workflow that loads comes back
 * with the problems a run would meet, its warnings, and its notes.
 */
export async function validateTarget(target: string | undefined, options: Pick<StateOptions, "cwd" | "env" | "stateDir">): Promise<Validated> {
  const loaded = loadWorkflow(target, options.cwd);
  const { workflow, graph } = loaded;
  const hasher = inputHasherFor(workflow, stateDirFor(workflow.root, options));
  const notes: ConfigIssue[] = [];
  const file = loaded.sources.workflow;
  for (const pair of workflow.pairs.values()) {
    for (const left of hasher.leftOut(pair.inputs)) {
      notes.push({ ...issueAt(file, ["action_pairs", pair.id, "inputs", left.index], leftOutMessage(pair, left, graph)), severity: "note" });
    }
  }
  const problems = sortIssues([...loaded.warnings, ...(await checkWorkflow(loaded, diskFiles))]);
  return { ...loaded, problems, notes };
}

function leftOutMessage(pair: Pair, left: LeftOut, graph: Graph): string {
  const owner = left.owner;
  const [what, why] =
    owner === null
      ? ["the lock file", "it records the references, so none can include it"]
      : owner === pair.id
        ? ["this pair's own output", "the pair's reference would change on every run"]
        : downstreamOf(graph, [pair.id]).has(owner)
          ? [`the output of pair "${owner}"`, `"${owner}" depends on this pair, so this pair's reference would change on every run`]
          : downstreamOf(graph, [owner]).has(pair.id)
            ? [`the output of pair "${owner}"`, "its accepted content is part of this pair's reference through requires already"]
            : [`the output of pair "${owner}"`, `add "${owner}" to requires if this pair reads it, which makes its accepted content part of the reference`];
  return `"${left.pattern}" matches ${left.file}, ${what}, which pairflow writes and so never takes as an input: ${why}`;
}
