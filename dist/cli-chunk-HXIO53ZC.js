#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  planShards,
  shardsJson,
  shardsText
} from "./cli-chunk-LMLVZIIO.js";
import {
  planTarget
} from "./cli-chunk-3N45G7H4.js";
import {
  checkFails,
  checkText,
  planCheck,
  planJsonStream,
  planJsonText,
  planText
} from "./cli-chunk-PW37734U.js";
import {
  styleFor
} from "./cli-chunk-TNYNDC55.js";
import {
  visible
} from "./cli-chunk-7NHSQKXA.js";
import {
  EXIT,
  Option,
  PATH_HELP,
  examples,
  onlyOption,
  positiveInt,
  stateDirOption,
  terminalColumns,
  writePieces
} from "./cli-chunk-BXCSBTXN.js";

// src/cli/commands/plan.ts
async function showPlan(io, target, opts, setStatus) {
  const warn = (message) => io.stderr.write(`${styleFor(io.stderr, io.env).yellow("warning")} ${visible(message)}
`);
  const request = {
    cwd: io.cwd,
    env: io.env,
    stateDir: opts.stateDir,
    selection: { force: opts.force, only: opts.only, from: opts.from },
    batch: opts.batch,
    warn
  };
  const style = styleFor(io.stdout, io.env);
  const text = { all: opts.all, columns: terminalColumns(io.stdout) };
  const planned = opts.shards !== void 0 ? await planShards(target, { ...request, shards: opts.shards }) : { ...await planTarget(target, request), shards: void 0 };
  const { plan, estimate, shards } = planned;
  if (opts.json) await writePieces(io.stdout, planJsonText({ ...planJsonStream(plan, io.cwd, estimate), ...shards ? shardsJson(shards) : {} }));
  else io.stdout.write(planText(plan, style, io.cwd, estimate, text) + (shards ? shardsText(shards) : ""));
  if (!opts.check) return;
  const check = planCheck(plan, planned.lock !== null);
  (opts.json ? io.stderr : io.stdout).write((opts.json ? "" : "\n") + checkText(check, opts.json ? styleFor(io.stderr, io.env) : style));
  if (checkFails(check)) setStatus?.(EXIT.changes);
}
function registerPlan(program, { io, setStatus }) {
  program.command("plan").description("Show which pairs would run and why, which are unchanged, and the estimated tokens and cost. Executes nothing and needs no credentials.").argument("[path]", PATH_HELP).option("--json", "write the plan as JSON (version 1) to stdout, and nothing else").option("--force", "plan every pair to run").option("--all", "list every pair, by wave, with the estimate of each, however many (a plan longer than a screen is otherwise shown by cause)").option(
    "--check",
    "for CI: exit with status 3 when any pair would run or any committed output is stale (a run would write an output file or the lock file), 0 when nothing would change"
  ).addOption(onlyOption("plan only these pairs and what they depend on, as `pairflow run --only` would run them")).option("--from <id>", "plan this pair and everything downstream of it to run").option("--batch", "estimate as `pairflow run --batch` runs: every openai and anthropic pair through its provider's batch API, at batch prices").addOption(
    new Option(
      "--shards <n>",
      "split the pairs that will run into at most N shards for `run --shard I/N` (with --json: a `matrix` for GitHub Actions)"
    ).argParser(positiveInt)
  ).addOption(stateDirOption()).addHelpText(
    "after",
    examples([
      "pairflow plan",
      "pairflow plan examples/tdd-stack",
      "pairflow plan --only g_impl examples/tdd-stack",
      "pairflow plan --only g_test,g_impl",
      "pairflow plan examples/tdd-stack --json | jq '.totals'",
      "pairflow plan --all",
      "pairflow plan --check || echo 'outputs are stale: run pairflow run and commit'"
    ])
  ).action((target, opts) => showPlan(io, target, opts, setStatus));
}

export {
  showPlan,
  registerPlan
};
