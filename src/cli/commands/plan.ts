import type { Command } from "commander";
import { Option } from "commander";
import { planTarget } from "../../app/plan.js";
import { planShards } from "../../app/shard.js";
import { styleFor } from "../../report/color.js";
import { checkFails, checkText, planCheck, planJsonStream, planJsonText, planText } from "../../report/plan.js";
import { EXIT, examples, onlyOption, PATH_HELP, positiveInt, stateDirOption, writePieces, terminalColumns, type CliContext, type Io } from "../context.js";
import { shardsJson, shardsText } from "./shard.js";
import { visible } from "../../report/visible.js";

export interface PlanFlags {
  json?: boolean;
  force?: boolean;
  only?: string[];
  from?: string;
  stateDir?: string;
  shards?: number;
  batch?: boolean;
  all?: boolean;
  check?: boolean;
}

/**
 * What `pairflow plan` prints, and `pairflow run --dry-run` with the same flags. With `check`, the
 * exit status says whether a run would change anything (EXIT.changes), and a line says what.
 */
export async function showPlan(io: Io, target: string | undefined, opts: PlanFlags, setStatus?: (status: number) => void): Promise<void> {
  const warn = (message: string) => io.stderr.write(`${styleFor(io.stderr, io.env).yellow("warning")} ${visible(message)}\n`);
  const request = {
    cwd: io.cwd,
    env: io.env,
    stateDir: opts.stateDir,
    selection: { force: opts.force, only: opts.only, from: opts.from },
    batch: opts.batch,
    warn,
  };
  const style = styleFor(io.stdout, io.env);
  // On a terminal, lines as wide as it is; piped, whole.
  const text = { all: opts.all, columns: terminalColumns(io.stdout) };
  const planned =
    opts.shards !== undefined ? await planShards(target, { ...request, shards: opts.shards }) : { ...(await planTarget(target, request)), shards: undefined };
  const { plan, estimate, shards } = planned;
  if (opts.json) await writePieces(io.stdout, planJsonText({ ...planJsonStream(plan, io.cwd, estimate), ...(shards ? shardsJson(shards) : {}) }));
  else io.stdout.write(planText(plan, style, io.cwd, estimate, text) + (shards ? shardsText(shards) : ""));
  if (!opts.check) return;
  const check = planCheck(plan, planned.lock !== null);
  // With --json, stdout holds the JSON and nothing else.
  (opts.json ? io.stderr : io.stdout).write((opts.json ? "" : "\n") + checkText(check, opts.json ? styleFor(io.stderr, io.env) : style));
  if (checkFails(check)) setStatus?.(EXIT.changes);
}

export function registerPlan(program: Command, { io, setStatus }: CliContext): void {
  program
    .command("plan")
    .description("Show which pairs would run and why, which are unchanged, and the estimated tokens and cost. Executes nothing and needs no credentials.")
    .argument("[path]", PATH_HELP)
    .option("--json", "write the plan as JSON (version 1) to stdout, and nothing else")
    .option("--force", "plan every pair to run")
    .option("--all", "list every pair, by wave, with the estimate of each, however many (a plan longer than a screen is otherwise shown by cause)")
    .option(
      "--check",
      "for CI: exit with status 3 when any pair would run or any committed output is stale (a run would write an output file or the lock file), 0 when nothing would change",
    )
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
        "pairflow plan --all",
        "pairflow plan --check || echo 'outputs are stale: run pairflow run and commit'",
      ]),
    )
    .action((target: string | undefined, opts: PlanFlags) => showPlan(io, target, opts, setStatus));
}
