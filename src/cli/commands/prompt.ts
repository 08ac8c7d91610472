import { Option, type Command } from "commander";
import { pairPrompt } from "../../app/prompt.js";
import { styleFor } from "../../report/color.js";
import { examples, PATH_HELP, positiveInt, stateDirOption, type CliContext } from "../context.js";
import { visible } from "../../report/visible.js";

interface PromptFlags {
  attempt?: number;
  feedback?: string[];
  stateDir?: string;
}

export function registerPrompt(program: Command, { io }: CliContext): void {
  program
    .command("prompt")
    .description(
      "Print the exact prompt a pair's generator would receive: its prompts entry, the workflow's context and its dependencies' accepted artifacts, laid out as in docs/prompts.md. Executes nothing.",
    )
    .argument("<pair>", "the pair's id")
    .argument("[path]", PATH_HELP)
    .addOption(new Option("--attempt <n>", "the prompt of this attempt (a retry shows the feedback of the attempts before it)").argParser(positiveInt))
    .addOption(
      new Option("--feedback <text>", "the guard's feedback on an earlier attempt; repeat it for each, oldest first").argParser(
        (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
      ),
    )
    .addOption(stateDirOption())
    .addHelpText(
      "after",
      examples([
        "pairflow prompt g_impl examples/tdd-stack",
        "pairflow prompt g_impl examples/tdd-stack --attempt 2 --feedback 'pop does not raise IndexError'",
        "pairflow prompt g_test > prompt.txt   # byte for byte what the generator reads",
      ]),
    )
    .action(async (pair: string, target: string | undefined, opts: PromptFlags) => {
      const shown = await pairPrompt(target, { cwd: io.cwd, env: io.env, stateDir: opts.stateDir, pair, attempt: opts.attempt, feedback: opts.feedback });
      const style = styleFor(io.stderr, io.env);
      for (const note of shown.notes) io.stderr.write(`${style.yellow("note")} ${visible(note)}\n`);
      // Exactly the bytes the generator reads; a terminal gets a final newline to end the line.
      io.stdout.write(shown.prompt + (io.stdout.isTTY && shown.prompt !== "" ? "\n" : ""));
    });
}
