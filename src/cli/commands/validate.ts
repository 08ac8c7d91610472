import type { Command } from "commander";
import { displayPath } from "../../config/parse.js";
import { loadWorkflow } from "../../workspace/load.js";
import { count } from "../../report/plan.js";
import { examples, PATH_HELP, type CliContext } from "../context.js";

export function registerValidate(program: Command, { io }: CliContext): void {
  program
    .command("validate")
    .description("Check a workflow and its prompts file: schema, references between pairs, cycles.")
    .argument("[path]", PATH_HELP)
    .addHelpText("after", examples(["pairflow validate", "pairflow validate examples/tdd-stack", "pairflow validate ci/docs/workflow.yml"]))
    .action((target: string | undefined) => {
      const { workflow, graph } = loadWorkflow(target, io.cwd);
      const prompts = workflow.promptsPath ? `, prompts ${displayPath(workflow.promptsPath, io.cwd)}` : ", no prompts file";
      io.stdout.write(
        `${displayPath(workflow.path, io.cwd)}: valid (${count(workflow.pairs.size, "pair")} in ${count(graph.waves.length, "wave")}${prompts})\n`,
      );
    });
}
