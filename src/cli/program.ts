/**
 * The command-line interface: a thin shell over the core. Every command returns its exit status:
 * 0 success, 1 a pair failed or was blocked, 2 bad configuration or usage.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { displayPath } from "../config/load.js";
import { ConfigError, formatIssue, UsageError } from "../config/errors.js";
import { InputError } from "../refs/inputs.js";
import { preparePlan } from "../plan/prepare.js";
import { styleFor } from "../report/color.js";
import { count, planJson, planText } from "../report/plan.js";
import { loadWorkflow } from "../config/load.js";
import pkg from "../../package.json" with { type: "json" };
import { DEFAULT_CONCURRENCY, runWorkflow } from "../run/engine.js";
import { eventLine, runSummary } from "../report/run.js";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a whole number of at least 1");
  return n;
}

export interface Io {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const PATH_HELP = "a workflow file, or a directory holding workflow.yml|yaml|json (default: .)";

function examples(lines: string[]): string {
  return "\nExamples:\n" + lines.map((l) => `  $ ${l}`).join("\n") + "\n";
}

export async function runCli(argv: string[], io: Io): Promise<number> {
  let status: number = EXIT.ok;
  const program = new Command("pairflow")
    .description("Plan and run workflows of LLM action pairs, re-running only the pairs whose inputs changed.")
    .version(pkg.version, "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();

  program
    .command("validate")
    .description("Check a workflow and its prompts file: schema, references between pairs, cycles.")
    .argument("[path]", PATH_HELP)
    .addHelpText("after", examples(["pairflow validate", "pairflow validate examples/tdd-stack", "pairflow validate ci/docs/workflow.yml"]))
    .action((target: string | undefined) => {
      const { workflow, graph } = loadWorkflow(target, io.cwd);
      const prompts = workflow.promptsPath ? `, prompts ${displayPath(workflow.promptsPath, io.cwd)}` : ", no prompts file";
      io.stdout.write(`${displayPath(workflow.path, io.cwd)}: valid (${count(workflow.pairs.size, "pair")} in ${count(graph.waves.length, "wave")}${prompts})\n`);
    });

  program
    .command("plan")
    .description("Show which pairs would run and why, and which are unchanged. Executes nothing and needs no credentials.")
    .argument("[path]", PATH_HELP)
    .option("--json", "write the plan as JSON (version 1) to stdout, and nothing else")
    .option("--force", "plan every pair to run")
    .addOption(new Option("--state-dir <dir>", "where the local store lives (default: .pairflow/ at the repository root)").env("PAIRFLOW_STATE_DIR"))
    .addHelpText("after", examples(["pairflow plan", "pairflow plan examples/tdd-stack", "pairflow plan examples/tdd-stack --json | jq '.totals'"]))
    .action((target: string | undefined, opts: { json?: boolean; force?: boolean; stateDir?: string }) => {
      const { plan } = preparePlan(target, { cwd: io.cwd, stateDir: opts.stateDir, force: opts.force ? () => ({ kind: "forced", detail: "--force" }) : undefined });
      if (opts.json) io.stdout.write(JSON.stringify(planJson(plan, io.cwd), null, 2) + "\n");
      else io.stdout.write(planText(plan, styleFor(io.stdout, io.env), io.cwd));
    });

  program
    .command("run")
    .description("Execute the pairs whose inputs changed; reuse every unchanged pair's accepted artifact.")
    .argument("[path]", PATH_HELP)
    .option("--json", "write the run report as JSON (version 1) to stdout, and progress to stderr")
    .addOption(new Option("--concurrency <n>", "pairs to execute at once").default(DEFAULT_CONCURRENCY).argParser(positiveInt))
    .option("--force", "execute every pair")
    .option("--only <id...>", "execute only these pairs; their dependencies must have accepted artifacts")
    .option("--from <id>", "execute this pair and everything downstream of it")
    .addOption(new Option("--state-dir <dir>", "where the local store lives (default: .pairflow/ at the repository root)").env("PAIRFLOW_STATE_DIR"))
    .addHelpText("after", examples([
      "pairflow run examples/tdd-stack",
      "pairflow run --only g_impl",
      "pairflow run --from g_test --concurrency 2",
      "pairflow run --json > report.json",
    ]))
    .action(async (target: string | undefined, opts: { json?: boolean; concurrency: number; force?: boolean; only?: string[]; from?: string; stateDir?: string }) => {
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
      status = report.status === "success" ? EXIT.ok : EXIT.failed;
    });

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
  throw err;
}
