#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  acceptedContent,
  planOpened
} from "./cli-chunk-3N45G7H4.js";
import {
  openState
} from "./cli-chunk-TPNKQGFG.js";
import "./cli-chunk-LAOPAIVL.js";
import {
  styleFor
} from "./cli-chunk-TNYNDC55.js";
import {
  renderPrompt
} from "./cli-chunk-YKULHKX5.js";
import {
  visible
} from "./cli-chunk-7NHSQKXA.js";
import {
  Option,
  PATH_HELP,
  UsageError,
  didYouMean,
  examples,
  positiveInt,
  stateDirOption
} from "./cli-chunk-BXCSBTXN.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";

// src/app/prompt.ts
async function pairPrompt(target, request) {
  const opened = openState(target, request);
  const { workflow } = opened;
  const pair = workflow.pairs.get(request.pair);
  if (pair === void 0) {
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
  const notes = [];
  const { plan } = await planOpened(opened, {});
  const dependencies = [];
  for (const id of pair.requires) {
    const planned2 = plan.byId.get(id);
    const content = acceptedContent(opened, planned2);
    if (content === void 0) {
      throw new UsageError(
        `${id} has no accepted artifact here yet (no output file, nothing in the store), and ${pair.id}'s prompt includes it; run pairflow run first, or pairflow run --only ${id} once its own dependencies are accepted`
      );
    }
    if (planned2.action === "run") notes.push(`${id} will run before ${pair.id}: shown with its last accepted artifact, which that run may change`);
    dependencies.push({ id, content });
  }
  const history = [];
  for (let n = 1; n < attempt; n++) {
    const given = feedback[n - 1];
    if (given === void 0) notes.push(`attempt ${n}'s feedback is a stand-in: give the guard's with --feedback`);
    history.push({ feedback: given ?? `(the guard's feedback on attempt ${n})` });
  }
  const planned = plan.byId.get(pair.id);
  const revision = planned?.action === "run" ? planned.revision : void 0;
  if (revision !== void 0) notes.push(`${pair.id}'s output was edited by a person: the edit is carried forward in the Revision section`);
  const prompt = renderPrompt({
    prompt: pair.prompt,
    specification: workflow.specification,
    constraints: workflow.constraints,
    dependencies,
    history,
    ...revision !== void 0 ? { revision } : {}
  });
  return { pair: pair.id, attempt, prompt, dependencies, notes };
}

// src/cli/commands/prompt.ts
function registerPrompt(program, { io }) {
  program.command("prompt").description(
    "Print the exact prompt a pair's generator would receive: its prompts entry, the workflow's context and its dependencies' accepted artifacts, laid out as in docs/prompts.md. Executes nothing."
  ).argument("<pair>", "the pair's id").argument("[path]", PATH_HELP).addOption(new Option("--attempt <n>", "the prompt of this attempt (a retry shows the feedback of the attempts before it)").argParser(positiveInt)).addOption(
    new Option("--feedback <text>", "the guard's feedback on an earlier attempt; repeat it for each, oldest first").argParser(
      (value, previous) => [...previous ?? [], value]
    )
  ).addOption(stateDirOption()).addHelpText(
    "after",
    examples([
      "pairflow prompt g_impl examples/tdd-stack",
      "pairflow prompt g_impl examples/tdd-stack --attempt 2 --feedback 'pop does not raise IndexError'",
      "pairflow prompt g_test > prompt.txt   # byte for byte what the generator reads"
    ])
  ).action(async (pair, target, opts) => {
    const shown = await pairPrompt(target, { cwd: io.cwd, env: io.env, stateDir: opts.stateDir, pair, attempt: opts.attempt, feedback: opts.feedback });
    const style = styleFor(io.stderr, io.env);
    for (const note of shown.notes) io.stderr.write(`${style.yellow("note")} ${visible(note)}
`);
    io.stdout.write(shown.prompt + (io.stdout.isTTY && shown.prompt !== "" ? "\n" : ""));
  });
}
export {
  registerPrompt
};
