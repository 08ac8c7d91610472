#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  planShards,
  shardsJson,
  shardsText
} from "./cli-chunk-LXK577MZ.js";
import {
  planTarget
} from "./cli-chunk-BXAZKQRM.js";
import {
  planJsonStream,
  planJsonText,
  planText
} from "./cli-chunk-XWROBFZG.js";
import {
  styleFor
} from "./cli-chunk-5ZWDE2EE.js";
import {
  Option,
  PATH_HELP,
  examples,
  onlyOption,
  positiveInt,
  stateDirOption,
  writePieces
} from "./cli-chunk-YFM4J6CT.js";

// src/cli/commands/plan.ts
async function showPlan(io, target, opts) {
  const warn = (message) => io.stderr.write(`${styleFor(io.stderr, io.env).yellow("warning")} ${message}
`);
  const request = { cwd: io.cwd, env: io.env, stateDir: opts.stateDir, selection: { force: opts.force, only: opts.only, from: opts.from }, warn };
  if (opts.shards !== void 0) {
    const { plan: plan2, estimate: estimate2, shards } = await planShards(target, { ...request, shards: opts.shards });
    if (opts.json) await writePieces(io.stdout, planJsonText({ ...planJsonStream(plan2, io.cwd, estimate2), ...shardsJson(shards) }));
    else io.stdout.write(planText(plan2, styleFor(io.stdout, io.env), io.cwd, estimate2) + shardsText(shards));
    return;
  }
  const { plan, estimate } = await planTarget(target, request);
  if (opts.json) await writePieces(io.stdout, planJsonText(planJsonStream(plan, io.cwd, estimate)));
  else io.stdout.write(planText(plan, styleFor(io.stdout, io.env), io.cwd, estimate));
}
function registerPlan(program, { io }) {
  program.command("plan").description("Show which pairs would run and why, which are unchanged, and the estimated tokens and cost. Executes nothing and needs no credentials.").argument("[path]", PATH_HELP).option("--json", "write the plan as JSON (version 1) to stdout, and nothing else").option("--force", "plan every pair to run").addOption(onlyOption("plan only these pairs and what they depend on, as `pairflow run --only` would run them")).option("--from <id>", "plan this pair and everything downstream of it to run").addOption(
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
      "pairflow plan examples/tdd-stack --json | jq '.totals'"
    ])
  ).action((target, opts) => showPlan(io, target, opts));
}

export {
  showPlan,
  registerPlan
};
