/**
 * Validating a workflow where it lives: the configuration itself (schema, references between pairs,
 * cycles, paths), and notes on what pairflow makes of it that a reader might not expect.
 */
import { issueAt, type Loaded } from "../config/parse.js";
import { downstreamOf } from "../graph/graph.js";
import type { ConfigIssue } from "../model/errors.js";
import type { Graph } from "../model/graph.js";
import type { Pair } from "../model/workflow.js";
import type { LeftOut } from "../workspace/inputs.js";
import { loadWorkflow, parseFile } from "../workspace/load.js";
import { inputHasherFor, stateDirFor, type StateOptions } from "./state.js";

export interface Validated extends Loaded {
  /** Not problems: each file an `inputs` glob matches that is left out because pairflow writes it. */
  notes: ConfigIssue[];
}

/** Throws ConfigError listing every problem; a workflow that loads comes back with its notes. */
export function validateTarget(target: string | undefined, options: Pick<StateOptions, "cwd" | "env" | "stateDir">): Validated {
  const { workflow, graph } = loadWorkflow(target, options.cwd);
  const hasher = inputHasherFor(workflow, stateDirFor(workflow.root, options));
  const notes: ConfigIssue[] = [];
  const file = parseFile(workflow.path, options.cwd, []);
  for (const pair of workflow.pairs.values()) {
    for (const left of hasher.leftOut(pair.inputs)) {
      if (file) notes.push(issueAt(file, ["action_pairs", pair.id, "inputs", left.index], leftOutMessage(pair, left, graph)));
    }
  }
  return { workflow, graph, notes };
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
