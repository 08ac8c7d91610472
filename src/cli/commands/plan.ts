import type { Command } from "commander";
import { Option } from "commander";
import { planTarget } from "../../app/plan.js";
import { planShards } from "../../app/shard.js";
import { styleFor } from "../../report/color.js";
import { planJsonStream, planJsonText, planText } from "../../report/plan.js";
import { examples, onlyOption, PATH_HELP, positiveInt, stateDirOption, writePieces, type CliContext, type Io } from "../context.js";
import { shardsJson, shardsText } from "./shard.js";

export interface PlanFlags {
  json?: boolean;
  force?: boolean;
  only?: string[];
  from?: string;
  stateDir?: string;
  shards?: number;
  batch?: boolean;
}

/** What `pairflow plan` prints, and `pairflow run --dry-run` with the same flags. */
export async function showPlan(io: Io, target: string | undefined, opts: PlanFlags): Promise<void> {
  const warn = (message: string) => io.stderr.write(`${styleFor(io.stderr, io.env).yellow("warning")} ${message}\n`);
  const request = {
    cwd: io.cwd,
    env: io.env,
    stateDir: opts.stateDir,
    selection: { force: opts.force, only: opts.only, from: opts.from },
    batch: opts.batch,
    warn,
  };
  if (opts.shards !== undefined) {
    const { plan, estimate, shards } = await planShards(target, { ...request, shards: opts.shards });
    if (opts.json) await writePieces(io.stdout, planJsonText({ ...planJsonStream(plan, io.cwd, estimate), ...shardsJson(shards) }));
    else io.stdout.write(planText(plan, styleFor(io.stdout, io.env), io.cwd, estimate) + shardsText(shards));
    return;
  }
  const { plan, estimate } = await planTarget(target, request);
  if (opts.json) await writePieces(io.stdout, planJsonText(planJsonStream(plan, io.cwd, estimate)));
  else io.stdout.write(planText(plan, styleFor(io.stdout, io.env), io.cwd, estimate));
}

export function registerPlan(program: Command, { io }: CliContext): void {
  program
    .command("plan")
    .description("Show which pairs would run and why, which are unchanged, and the estimated tokens and cost. Executes nothing and needs no credentials.")
    .argument("[path]", PATH_HELP)
    .option("--json", "write the plan as JSON (version 1) to stdout, and nothing else")
    .option("--force", "plan every pair to run")
    .addOption(onlyOption("plan only these pairs and what they depend on, as `pairflow run --only` would run them"))
    .option("--from <id>", "plan this pair and everything downstream of it to run")
    .option("--batch", "estimate as `pairflow run --batch` runs: every openai and anthropic pair through its provider's batch API, at batch prices")
    .addOption(
      new Option(
        "--shards <n>",
        "split the pairs that will run into at most N shards for `run --shard I/N` (with --json: a `matrix` for GitHub Actions)",
      ).argParser(positiveInt),
    )
    .addOption(stateDirOption())
    .addHelpText(
      "after",
      examples([
        "pairflow plan",
        "pairflow plan examples/tdd-stack",
        "pairflow plan --only g_impl examples/tdd-stack",
        "pairflow plan --only g_test,g_impl",
        "pairflow plan examples/tdd-stack --json | jq '.totals'",
      ]),
    )
    .action((target: string | undefined, opts: PlanFlags) => showPlan(io, target, opts));
}
