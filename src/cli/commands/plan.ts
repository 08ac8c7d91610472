import type { Command } from "commander";
import { planTarget } from "../../app/plan.js";
import { UsageError } from "../../model/errors.js";
import { styleFor } from "../../report/color.js";
import { planJson, planJsonText, planText } from "../../report/plan.js";
import { examples, PATH_HELP, stateDirOption, type CliContext } from "../context.js";

interface PlanFlags {
  json?: boolean;
  force?: boolean;
  only?: string[];
  from?: string;
  stateDir?: string;
}

export function registerPlan(program: Command, { io }: CliContext): void {
  program
    .command("plan")
    .description("Show which pairs would run and why, which are unchanged, and the estimated tokens and cost. Executes nothing and needs no credentials.")
    .argument("[path]", PATH_HELP)
    .option("--json", "write the plan as JSON (version 1) to stdout, and nothing else")
    .option("--force", "plan every pair to run")
    .option("--only <id...>", "plan only these pairs and what they depend on, as `pairflow run --only` would run them")
    .option("--from <id>", "plan this pair and everything downstream of it to run")
    .addOption(stateDirOption())
    .addHelpText(
      "after",
      examples(["pairflow plan", "pairflow plan examples/tdd-stack", "pairflow plan --only g_impl", "pairflow plan examples/tdd-stack --json | jq '.totals'"]),
    )
    .action(async (target: string | undefined, opts: PlanFlags) => {
      if (opts.only !== undefined && opts.only.length === 0) throw new UsageError("--only needs at least one pair id");
      const { plan, estimate } = await planTarget(target, {
        cwd: io.cwd,
        env: io.env,
        stateDir: opts.stateDir,
        selection: { force: opts.force, only: opts.only, from: opts.from },
      });
      if (opts.json) io.stdout.write(planJsonText(planJson(plan, io.cwd, estimate)));
      else io.stdout.write(planText(plan, styleFor(io.stdout, io.env), io.cwd, estimate));
    });
}
