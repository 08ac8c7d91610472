import { Option, type Command } from "commander";
import { UsageError } from "../../config/errors.js";
import { styleFor } from "../../report/color.js";
import { eventLine, runSummary } from "../../report/run.js";
import { DEFAULT_CONCURRENCY, runWorkflow } from "../../run/engine.js";
import { EXIT, examples, PATH_HELP, positiveInt, stateDirOption, type CliContext } from "../context.js";

interface RunFlags {
  json?: boolean;
  concurrency: number;
  force?: boolean;
  only?: string[];
  from?: string;
  stateDir?: string;
}

export function registerRun(program: Command, { io, setStatus }: CliContext): void {
  program
    .command("run")
    .description("Execute the pairs whose inputs changed; reuse every unchanged pair's accepted artifact.")
    .argument("[path]", PATH_HELP)
    .option("--json", "write the run report as JSON (version 1) to stdout, and progress to stderr")
    .addOption(new Option("--concurrency <n>", "pairs to execute at once").default(DEFAULT_CONCURRENCY).argParser(positiveInt))
    .option("--force", "execute every pair")
    .option("--only <id...>", "execute only these pairs; their dependencies must have accepted artifacts")
    .option("--from <id>", "execute this pair and everything downstream of it")
    .addOption(stateDirOption())
    .addHelpText("after", examples([
      "pairflow run examples/tdd-stack",
      "pairflow run --only g_impl",
      "pairflow run --from g_test --concurrency 2",
      "pairflow run --json > report.json",
    ]))
    .action(async (target: string | undefined, opts: RunFlags) => {
      const chosen = [opts.force && "--force", opts.only && "--only", opts.from && "--from"].filter(Boolean);
      if (chosen.length > 1) throw new UsageError(`${chosen.join(" and ")} cannot be combined; choose one`);
      const progress = opts.json ? io.stderr : io.stdout;
      const style = styleFor(progress, io.env);
      const report = await runWorkflow(target, {
        cwd: io.cwd,
        env: io.env,
        stateDir: opts.stateDir,
        concurrency: opts.concurrency,
        selection: { force: opts.force, only: opts.only, from: opts.from },
        onEvent: (event) => {
          const line = eventLine(event, style);
          if (line !== null) progress.write(line + "\n");
        },
      });
      if (opts.json) io.stdout.write(JSON.stringify(report, null, 2) + "\n");
      else io.stdout.write("\n" + runSummary(report, style));
      setStatus(report.status === "success" ? EXIT.ok : EXIT.failed);
    });
}
