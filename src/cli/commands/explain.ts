import type { Command } from "commander";
import { explainPair } from "../../app/explain.js";
import { styleFor } from "../../report/color.js";
import { explainText } from "../../report/explain.js";
import { examples, PATH_HELP, stateDirOption, type CliContext } from "../context.js";
import { visible } from "../../report/visible.js";

interface ExplainFlags {
  json?: boolean;
  stateDir?: string;
}

export function registerExplain(program: Command, { io }: CliContext): void {
  program
    .command("explain")
    .description(
      "Say why a pair runs or is skipped: every component of its reference now and as the lock file accepted it, which changed, the plan's reasons, where its artifact would come from, its request key, and the command that prints its prompt. Executes nothing.",
    )
    .argument("<pair>", "the pair's id (an instance of a foreach pair by its own id)")
    .argument("[path]", PATH_HELP)
    .option("--json", "write the explanation as JSON (version 1, schemas/explain.schema.json) to stdout, and nothing else")
    .addOption(stateDirOption())
    .addHelpText(
      "after",
      examples(["pairflow explain g_impl examples/tdd-stack", "pairflow explain g_impl --json | jq '.components[] | select(.status != \"same\")'"]),
    )
    .action(async (pair: string, target: string | undefined, opts: ExplainFlags) => {
      const warn = (message: string) => io.stderr.write(`${styleFor(io.stderr, io.env).yellow("warning")} ${visible(message)}\n`);
      const explained = await explainPair({ cwd: io.cwd, env: io.env, stateDir: opts.stateDir, pair, target, warn });
      if (opts.json) io.stdout.write(JSON.stringify(explained, null, 2) + "\n");
      else io.stdout.write(explainText(explained, styleFor(io.stdout, io.env)));
    });
}
