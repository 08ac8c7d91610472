import type { Command } from "commander";
import { validateTarget } from "../../app/validate.js";
import { displayPath } from "../../config/parse.js";
import { ConfigError, formatIssue, type ConfigIssue } from "../../model/errors.js";
import { issueLines } from "../../report/issues.js";
import { styleFor } from "../../report/color.js";
import { count } from "../../report/plan.js";
import { examples, EXIT, PATH_HELP, type CliContext } from "../context.js";

interface ValidateOptions {
  json?: boolean;
  strict?: boolean;
}

export function registerValidate(program: Command, { io, setStatus }: CliContext): void {
  program
    .command("validate")
    .description(
      "Check a workflow and its prompts file: schema, references between pairs, cycles, guard and generator settings; warn about what a run would not honour; note inputs globs that match files pairflow writes.",
    )
    .argument("[path]", PATH_HELP)
    .option("--json", "print the problems as JSON on stdout: {version: 1, problems: [{file, line, column, key, severity, message}]}")
    .option("--strict", "fail on warnings too (exit status 2)")
    .addHelpText("after", examples(["pairflow validate", "pairflow validate examples/tdd-stack", "pairflow validate --strict --json ci/docs/workflow.yml"]))
    .action(async (target: string | undefined, options: ValidateOptions) => {
      if (options.json) return validateJson(target, options, { io, setStatus });
      const { workflow, graph, problems, notes } = await validateTarget(target, { cwd: io.cwd, env: io.env });
      const style = styleFor(io.stderr, io.env);
      const errors = problems.filter(isError);
      const warnings = problems.filter((p) => p.severity === "warning");
      for (const line of issueLines(warnings, style.yellow("warning"))) io.stderr.write(line + "\n");
      // The errors are reported as every configuration error is, with the exit status of one.
      if (errors.length > 0) throw new ConfigError(errors);
      const prompts = workflow.promptsPath ? `, prompts ${displayPath(workflow.promptsPath, io.cwd)}` : ", no prompts file";
      const warned = warnings.length > 0 ? `, ${count(warnings.length, "warning")}` : "";
      io.stdout.write(
        `${displayPath(workflow.path, io.cwd)}: valid (${count(workflow.pairs.size, "pair")} in ${count(graph.waves.length, "wave")}${prompts}${warned})\n`,
      );
      for (const note of notes) io.stderr.write(`${style.yellow("note")} ${formatIssue(note)}\n`);
      if (options.strict && warnings.length > 0) {
        io.stderr.write(`--strict: ${count(warnings.length, "warning")} fail the check\n`);
        setStatus(EXIT.usage);
      }
    });
}

async function validateJson(target: string | undefined, options: ValidateOptions, { io, setStatus }: CliContext): Promise<void> {
  let problems: ConfigIssue[];
  try {
    const validated = await validateTarget(target, { cwd: io.cwd, env: io.env });
    problems = [...validated.problems, ...validated.notes];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems = err.issues;
  }
  const shown = problems.map((p) => ({ file: p.file, line: p.line, column: p.column, key: p.key, severity: p.severity ?? "error", message: p.message }));
  io.stdout.write(JSON.stringify({ version: 1, problems: shown }, null, 2) + "\n");
  const fails = shown.some((p) => p.severity === "error" || (options.strict && p.severity === "warning"));
  setStatus(fails ? EXIT.usage : EXIT.ok);
}

function isError(issue: ConfigIssue): boolean {
  return issue.severity === undefined || issue.severity === "error";
}
