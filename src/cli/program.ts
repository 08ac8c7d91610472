/**
 * The command-line interface: a thin shell over the core, one file per command in commands/.
 * Every command ends with an exit status: 0 success, 1 a pair failed or was blocked, 2 bad
 * configuration or usage.
 */
import { Command, CommanderError } from "commander";
import pkg from "../../package.json" with { type: "json" };
import { ConfigError, InputError, StorageError, UsageError } from "../model/errors.js";
import { issueLines, SHOWN_PER_FILE } from "../report/issues.js";
import { styleFor } from "../report/color.js";
import { count } from "../report/plan.js";
import { checkStateDir, EXIT, type CliContext, type Io } from "./context.js";
import { visible } from "../report/visible.js";
import { mark } from "./timing.js";

export { EXIT, type Io } from "./context.js";

type Register = (program: Command, context: CliContext) => void;

/** The commands, in the order help lists them, by the module that registers them. */
const COMMANDS: [names: string[], load: () => Promise<Register>][] = [
  [["init"], async () => (await import("./commands/init.js")).registerInit],
  [["validate"], async () => (await import("./commands/validate.js")).registerValidate],
  [["plan"], async () => (await import("./commands/plan.js")).registerPlan],
  [["diff"], async () => (await import("./commands/diff.js")).registerDiff],
  [["run", "resume"], async () => (await import("./commands/run.js")).registerRun],
  [["prompt"], async () => (await import("./commands/prompt.js")).registerPrompt],
  [["explain"], async () => (await import("./commands/explain.js")).registerExplain],
  [["adopt"], async () => (await import("./commands/adopt.js")).registerAdopt],
  [["runs", "show", "prune"], async () => (await import("./commands/history.js")).registerHistory],
  [["merge-lock"], async () => (await import("./commands/mergeLock.js")).registerMergeLock],
  [["merge"], async () => (await import("./commands/shard.js")).registerMerge],
];

export async function runCli(argv: string[], io: Io): Promise<number> {
  let status: number = EXIT.ok;
  // Under --json, configuration problems are listed whole; as text, each file's first few.
  let json = false;
  const context: CliContext = { io, setStatus: (s) => (status = s) };
  const program = new Command("pairflow")
    .description("Plan and run workflows of LLM action pairs, re-running only the pairs whose inputs changed.")
    .version(pkg.version, "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride()
    .hook("preAction", (_, command) => {
      json = (command.opts() as { json?: unknown }).json === true;
      checkStateDir(command, io);
    });

  // Only the module of the command given is loaded, for it brings everything its command runs
  // (validate has no use for the engine); without a command, or with one unknown, all are, for
  // the listing and the suggestions. Each command's help is its own, however many are loaded.
  const given = COMMANDS.find(([names]) => names.includes(argv[0] ?? ""));
  for (const [, load] of given ? [given] : COMMANDS) (await load())(program, context);
  mark("loaded");

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    status = handleError(err, io, json);
  }
  return status;
}

function handleError(err: unknown, io: Io, json: boolean): number {
  if (err instanceof CommanderError) {
    // Help and version end with code 0; every other parse failure is a usage error.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  const style = styleFor(io.stderr, io.env);
  if (err instanceof ConfigError) {
    for (const line of issueLines(err.issues, style.red("error"), json ? Infinity : SHOWN_PER_FILE)) io.stderr.write(line + "\n");
    const files = new Set(err.issues.map((i) => i.file)).size;
    io.stderr.write(`${count(err.issues.length, "problem")} in ${count(files, "file")}\n`);
    return EXIT.usage;
  }
  if (err instanceof UsageError || err instanceof InputError) {
    io.stderr.write(`${style.red("error")} ${visible(err.message)}\n`);
    return EXIT.usage;
  }
  if (err instanceof StorageError) {
    io.stderr.write(`${style.red("error")} ${visible(err.message)}\n`);
    return EXIT.failed;
  }
  throw err;
}
