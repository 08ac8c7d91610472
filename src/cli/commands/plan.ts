import type { Command } from "commander";
import { estimatePlan } from "../../estimate/estimate.js";
import { preparePlan } from "../../app/prepare.js";
import { styleFor } from "../../report/color.js";
import { planJson, planText } from "../../report/plan.js";
import { examples, PATH_HELP, stateDirOption, type CliContext } from "../context.js";

export function registerPlan(program: Command, { io }: CliContext): void {
  program
    .command("plan")
    .description("Show which pairs would run and why, which are unchanged, and the estimated tokens and cost. Executes nothing and needs no credentials.")
    .argument("[path]", PATH_HELP)
    .option("--json", "write the plan as JSON (version 1) to stdout, and nothing else")
    .option("--force", "plan every pair to run")
    .addOption(stateDirOption())
    .addHelpText("after", examples(["pairflow plan", "pairflow plan examples/tdd-stack", "pairflow plan examples/tdd-stack --json | jq '.totals'"]))
    .action((target: string | undefined, opts: { json?: boolean; force?: boolean; stateDir?: string }) => {
      const prepared = preparePlan(target, { cwd: io.cwd, stateDir: opts.stateDir, force: opts.force ? () => ({ kind: "forced", detail: "--force" }) : undefined });
      const { plan } = prepared;
      const estimate = estimatePlan(prepared, plan);
      if (opts.json) io.stdout.write(JSON.stringify(planJson(plan, io.cwd, estimate), null, 2) + "\n");
      else io.stdout.write(planText(plan, styleFor(io.stdout, io.env), io.cwd, estimate));
    });
}
