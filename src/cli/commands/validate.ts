import type { Command } from "commander";
import { validateTarget } from "../../app/validate.js";
import { displayPath } from "../../config/parse.js";
import { formatIssue } from "../../model/errors.js";
import { styleFor } from "../../report/color.js";
import { count } from "../../report/plan.js";
import { examples, PATH_HELP, type CliContext } from "../context.js";

export function registerValidate(program: Command, { io }: CliContext): void {
  program
    .command("validate")
    .description("Check a workflow and its prompts file: schema, references between pairs, cycles; note inputs globs that match files pairflow writes.")
    .argument("[path]", PATH_HELP)
    .addHelpText("after", examples(["pairflow validate", "pairflow validate examples/tdd-stack", "pairflow validate ci/docs/workflow.yml"]))
    .action((target: string | undefined) => {
      const { workflow, graph, notes } = validateTarget(target, { cwd: io.cwd, env: io.env });
      const prompts = workflow.promptsPath ? `, prompts ${displayPath(workflow.promptsPath, io.cwd)}` : ", no prompts file";
      io.stdout.write(
        `${displayPath(workflow.path, io.cwd)}: valid (${count(workflow.pairs.size, "pair")} in ${count(graph.waves.length, "wave")}${prompts})\n`,
      );
      const style = styleFor(io.stderr, io.env);
      for (const note of notes) io.stderr.write(`${style.yellow("note")} ${formatIssue(note)}\n`);
    });
}
