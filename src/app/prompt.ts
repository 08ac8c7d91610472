/**
 * The prompt a pair would receive, rendered by the one renderer (src/prompt/) from what a run would
 * give it: its prompts entry, the workflow's context, its dependencies' accepted artifacts (the
 * output file, else the store's copy, as the engine reads them), a person's edit of its output
 * that `carry_edits` carries forward (the `# Revision` section), and for a retry the feedback of
 * the attempts before it.
 */
import { UsageError } from "../model/errors.js";
import { didYouMean } from "../model/text.js";
import { renderPrompt } from "../prompt/render.js";
import { acceptedContent, planOpened } from "./plan.js";
import { openState, type StateOptions } from "./state.js";

export interface PromptRequest extends StateOptions {
  pair: string;
  /** Which attempt's prompt: 1 (default: one more than the feedback given) up to rmax + 1. */
  attempt?: number;
  /** The guard's feedback on each earlier attempt, oldest first; missing ones are stand-ins. */
  feedback?: string[];
}

export interface PairPrompt {
  pair: string;
  attempt: number;
  /** Exactly what the generator receives on stdin and in PAIRFLOW_PROMPT_FILE. */
  prompt: string;
  /** The dependencies rendered, by id, with the file they would be read from in a run. */
  dependencies: { id: string; content: string }[];
  /** What a reader should know: a dependency that will run first, stand-in feedback. */
  notes: string[];
}

export async function pairPrompt(target: string | undefined, request: PromptRequest): Promise<PairPrompt> {
  const opened = openState(target, request);
  const { workflow } = opened;
  const pair = workflow.pairs.get(request.pair);
  if (pair === undefined) {
    const ids = [...workflow.pairs.keys()];
    const guess = didYouMean(request.pair, ids);
    throw new UsageError(`no pair "${request.pair}" in ${workflow.name}${guess ? `; did you mean "${guess}"?` : ""} (pairs: ${ids.join(", ")})`);
  }
  const feedback = request.feedback ?? [];
  const attempt = request.attempt ?? feedback.length + 1;
  const most = pair.rmax + 1;
  if (attempt > most)
    throw new UsageError(`${pair.id} makes at most ${most} attempt${most === 1 ? "" : "s"} (rmax ${pair.rmax}); --attempt ${attempt} never happens`);
  if (feedback.length > attempt - 1) {
    throw new UsageError(`attempt ${attempt} follows ${attempt - 1} rejected attempt${attempt === 2 ? "" : "s"}, but ${feedback.length} --feedback were given`);
  }

  const notes: string[] = [];
  const { plan } = await planOpened(opened, {});
  const dependencies: { id: string; content: string }[] = [];
  for (const id of pair.requires) {
    const planned = plan.byId.get(id)!;
    const content = acceptedContent(opened, planned);
    if (content === undefined) {
      throw new UsageError(
        `${id} has no accepted artifact here yet (no output file, nothing in the store), and ${pair.id}'s prompt includes it; run pairflow run first, or pairflow run --only ${id} once its own dependencies are accepted`,
      );
    }
    if (planned.action === "run") notes.push(`${id} will run before ${pair.id}: shown with its last accepted artifact, which that run may change`);
    dependencies.push({ id, content });
  }

  const history: { feedback: string }[] = [];
  for (let n = 1; n < attempt; n++) {
    const given = feedback[n - 1];
    if (given === undefined) notes.push(`attempt ${n}'s feedback is a stand-in: give the guard's with --feedback`);
    history.push({ feedback: given ?? `(the guard's feedback on attempt ${n})` });
  }
  // A person's edit the run carries forward (carry_edits): the generator receives it to keep.
  const planned = plan.byId.get(pair.id);
  const revision = planned?.action === "run" ? planned.revision : undefined;
  if (revision !== undefined) notes.push(`${pair.id}'s output was edited by a person: the edit is carried forward in the Revision section`);
  const prompt = renderPrompt({
    prompt: pair.prompt,
    specification: workflow.specification,
    constraints: workflow.constraints,
    dependencies,
    history,
    ...(revision !== undefined ? { revision } : {}),
  });
  return { pair: pair.id, attempt, prompt, dependencies, notes };
}
