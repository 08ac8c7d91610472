import { Option, type Command } from "commander";
import { UsageError } from "../../model/errors.js";
import { costPhrase, diffMarkdown, commentMarker, type MarkdownOptions } from "../../report/diffMarkdown.js";
import { planDiff, type PreparedDiff } from "../../app/diff.js";
import { totalCostText } from "../../report/estimate.js";
import { commentLinks, pullRequestOf } from "../../github/event.js";
import { diffJson, diffText } from "../../report/diff.js";
import { styleFor } from "../../report/color.js";
import { examples, PATH_HELP, stateDirOption, terminalColumns, type CliContext } from "../context.js";

interface DiffFlags {
  base: string;
  all?: boolean;
  format: "text" | "markdown";
  json?: boolean;
  stateDir?: string;
}

/**
 * The comment's text as the action posts it (without its hidden stamp): the same commit (a pull
 * request's head in a pull request job, else HEAD), links and estimated cost.
 */
function commentOptions(diff: PreparedDiff, env: NodeJS.ProcessEnv): MarkdownOptions {
  const sha = pullRequestOf(env)?.headSha ?? diff.head;
  const links = sha ? commentLinks(env, sha) : {};
  return { marker: commentMarker(diff.workflowFile), ...links, cost: totalCostText(diff.planned.estimate) };
}

/** "Estimated cost: $0.29", when anything re-runs. */
function costLine(diff: PreparedDiff): string | undefined {
  return diff.planned.plan.pairs.some((p) => p.action === "run") ? capitalize(costPhrase(totalCostText(diff.planned.estimate))) : undefined;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function registerDiff(program: Command, { io }: CliContext): void {
  program
    .command("diff")
    .description(
      "Show what the working tree changes against a git ref: the pairs that will re-run after merging and why (the plan " +
        "`pairflow plan` makes here), the changed pairs already accepted, added and removed pairs, and a diff of each " +
        "changed workflow and prompts entry. Executes nothing.",
    )
    .argument("[path]", PATH_HELP)
    .requiredOption("--base <ref>", "the branch, tag or commit to compare with (its workflow, prompts and lock file are read with git, to say what changed)")
    .addOption(new Option("--format <format>", "text for people, markdown for the pull request comment's text").choices(["text", "markdown"]).default("text"))
    .option("--json", "write the diff as JSON (version 1) to stdout, and nothing else")
    .option("--all", "list every pair that re-runs and every entry's diff, however many (a diff longer than a screen is otherwise put by cause)")
    .addOption(stateDirOption())
    .addHelpText(
      "after",
      examples([
        "pairflow diff --base main",
        "pairflow diff examples/tdd-stack --base origin/main --format markdown > comment.md",
        "pairflow diff --base HEAD~1 --json | jq '.totals'",
      ]),
    )
    .action(async (target: string | undefined, opts: DiffFlags) => {
      if (opts.json && opts.format !== "text") throw new UsageError("--json and --format cannot be combined; choose one");
      const diff = await planDiff(target, { base: opts.base, cwd: io.cwd, env: io.env, stateDir: opts.stateDir });
      if (opts.json) io.stdout.write(JSON.stringify(diffJson(diff, io.cwd), null, 2) + "\n");
      else if (opts.format === "markdown") io.stdout.write(diffMarkdown(diff, commentOptions(diff, io.env)));
      else
        io.stdout.write(
          diffText(diff, styleFor(io.stdout, io.env), {
            cwd: io.cwd,
            all: opts.all,
            cost: costLine(diff),
            columns: terminalColumns(io.stdout),
          }),
        );
    });
}
