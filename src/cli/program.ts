/**
 * The command-line interface: a thin shell over the core, one file per command in commands/.
 * Every command ends with an exit status: 0 success, 1 a pair failed or was blocked, 2 bad
 * configuration or usage.
 */
import { Command, CommanderError } from "commander";
import pkg from "../../package.json" with { type: "json" };
import { ConfigError, formatIssue, InputError, StorageError, UsageError } from "../model/errors.js";
import { styleFor } from "../report/color.js";
import { count } from "../report/plan.js";
import { registerHistory } from "./commands/history.js";
import { registerDiff } from "./commands/diff.js";
import { registerMergeLock } from "./commands/mergeLock.js";
import { registerInit } from "./commands/init.js";
import { registerPlan } from "./commands/plan.js";
import { registerPrompt } from "./commands/prompt.js";
import { registerRun } from "./commands/run.js";
import { registerMerge } from "./commands/shard.js";
import { registerValidate } from "./commands/validate.js";
import { checkStateDir, EXIT, type CliContext, type Io } from "./context.js";

export { EXIT, type Io } from "./context.js";

export async function runCli(argv: string[], io: Io): Promise<number> {
  let status: number = EXIT.ok;
  const context: CliContext = { io, setStatus: (s) => (status = s) };
  const program = new Command("pairflow")
    .description("Plan and run workflows of LLM action pairs, re-running only the pairs whose inputs changed.")
    .version(pkg.version, "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride()
    .hook("preAction", (_, command) => checkStateDir(command, io));

  registerInit(program, context);
  registerValidate(program, context);
  registerPlan(program, context);
  registerDiff(program, context);
  registerRun(program, context);
  registerPrompt(program, context);
  registerHistory(program, context);
  registerMergeLock(program, context);
  registerMerge(program, context);

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    status = handleError(err, io);
  }
  return status;
}

function handleError(err: unknown, io: Io): number {
  if (err instanceof CommanderError) {
    // Help and version end with code 0; every other parse failure is a usage error.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  const style = styleFor(io.stderr, io.env);
  if (err instanceof ConfigError) {
    for (const issue of err.issues) io.stderr.write(`${style.red("error")} ${formatIssue(issue)}\n`);
    const files = new Set(err.issues.map((i) => i.file)).size;
    io.stderr.write(`${count(err.issues.length, "problem")} in ${count(files, "file")}\n`);
    return EXIT.usage;
  }
  if (err instanceof UsageError || err instanceof InputError) {
    io.stderr.write(`${style.red("error")} ${err.message}\n`);
    return EXIT.usage;
  }
  if (err instanceof StorageError) {
    io.stderr.write(`${style.red("error")} ${err.message}\n`);
    return EXIT.failed;
  }
  throw err;
}
