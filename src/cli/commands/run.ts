import { InvalidArgumentError, Option, type Command } from "commander";
import { LockBusyError } from "../../records/mutex.js";
import { styleFor } from "../../report/color.js";
import { eventLine, runSummary } from "../../report/run.js";
import { DEFAULT_CONCURRENCY } from "../../engine/engine.js";
import type { RunReport } from "../../model/run.js";
import { resumeTarget, runTarget, type RunRequest } from "../../app/run.js";
import { runShard } from "../../app/shard.js";
import type { ShardSpec } from "../../model/shard.js";
import { fanOutOptions, shardOption, shardWaitOption } from "./shard.js";
import { EXIT, examples, PATH_HELP, positiveInt, stateDirOption, type CliContext } from "../context.js";
import { interruptible, signalExitCode } from "../../app/signals.js";
import { runCosts, type RunCosts } from "../costs.js";
import { parseUsd } from "../../estimate/prices.js";

function usdAmount(value: string): number {
  const usd = parseUsd(value);
  if (usd === undefined) throw new InvalidArgumentError("expected an amount of US dollars, such as 0.50");
  return usd;
}

interface CommonFlags {
  json?: boolean;
  concurrency: number;
  stateDir?: string;
  wait: boolean;
  grace: number;
}

interface RunFlags extends CommonFlags {
  force?: boolean;
  only?: string[];
  from?: string;
  maxCost?: number;
  yes?: boolean;
  shard?: ShardSpec;
  sharedStore?: string;
  fanout: string;
  shardWait: number;
}

/** Another run holds the workflow's lock and --no-wait was given: try again later (EX_TEMPFAIL). */
export const EXIT_BUSY = 75;

function common(command: Command): Command {
  return command
    .option("--json", "write the run report as JSON (version 1) to stdout, and progress to stderr")
    .addOption(new Option("--concurrency <n>", "pairs to execute at once").default(DEFAULT_CONCURRENCY).argParser(positiveInt))
    .option("--no-wait", `if another run of this workflow is going, fail at once (exit ${EXIT_BUSY}) instead of waiting for it`)
    .addOption(
      new Option("--grace <seconds>", "after Ctrl-C or SIGTERM, how long pairs in flight may finish before they are cancelled")
        .default(10)
        .argParser(positiveInt),
    )
    .addOption(stateDirOption());
}

export function registerRun(program: Command, context: CliContext): void {
  fanOutOptions(common(program.command("run")))
    .description("Execute the pairs whose inputs changed; reuse every unchanged pair's accepted artifact.")
    .argument("[path]", PATH_HELP)
    .option("--force", "execute every pair")
    .option("--only <id...>", "execute only these pairs; their dependencies must have accepted artifacts")
    .option("--from <id>", "execute this pair and everything downstream of it")
    .addOption(
      new Option("--max-cost <usd>", "refuse to start a run whose estimated cost exceeds this many US dollars (exit 1, nothing executed)").argParser(usdAmount),
    )
    .option("-y, --yes", "do not ask before executing (pairflow asks only when stdin and stdout are a terminal)")
    .addOption(shardOption())
    .addOption(shardWaitOption())
    .addHelpText(
      "after",
      examples([
        "pairflow run examples/tdd-stack",
        "pairflow run --max-cost 0.50 --yes",
        "pairflow run --only g_impl",
        "pairflow run --from g_test --concurrency 2",
        "pairflow run --json > report.json",
      ]),
    )
    .action(async (target: string | undefined, opts: RunFlags) => {
      let costs: RunCosts | undefined;
      try {
        await drive(context, opts, async (request) => {
          const selection = { force: opts.force, only: opts.only, from: opts.from };
          costs = runCosts(context.io, opts, request.stop);
          if (opts.shard) {
            // --max-cost applies to the shard's own pairs.
            const shard = { shard: opts.shard, sharedDir: opts.sharedStore, fanout: opts.fanout, waitMs: opts.shardWait * 1000 };
            return runShard(target, { ...request, selection, ...shard, maxCost: opts.maxCost, onPlanned: costs.onPlanned, confirm: costs.confirm });
          }
          const report = await runTarget(target, {
            ...request,
            selection,
            maxCost: opts.maxCost,
            onPlanned: costs.onPlanned,
            confirm: costs.confirm,
          });
          return costs.withComparison(report);
        });
      } catch (err) {
        if (!costs?.refused(err)) throw err;
        context.setStatus(EXIT.failed);
        return;
      }
      costs?.showComparison();
    });

  common(program.command("resume"))
    .description("Continue an interrupted run under its own id: nothing it finished runs again.")
    .argument("[runId]", "the run to continue (default: the latest interrupted one; see pairflow runs)")
    .addHelpText("after", examples(["pairflow resume", "pairflow resume 20261122T003012345Z-1a2b"]))
    .action(async (runId: string | undefined, opts: CommonFlags) => {
      await drive(context, opts, async (options, say) => {
        const { report, from, replanned } = await resumeTarget(runId, options);
        say(replanned ? `planned anew instead of resuming run ${from}` : `resumed run ${from}`);
        return report;
      });
    });
}

/** Runs with progress lines, the lock, signals, and the report at the end. */
async function drive(
  { io, setStatus }: CliContext,
  opts: CommonFlags,
  start: (request: RunRequest, say: (line: string) => void) => Promise<RunReport>,
): Promise<void> {
  const progress = opts.json ? io.stderr : io.stdout;
  const style = styleFor(progress, io.env);
  const say = (line: string) => progress.write(line + "\n");
  const interruption = interruptible(opts.grace * 1000, (message) => io.stderr.write(style.yellow(message) + "\n"));
  try {
    const report = await start(
      {
        cwd: io.cwd,
        env: io.env,
        stateDir: opts.stateDir,
        concurrency: opts.concurrency,
        wait: opts.wait,
        stop: interruption.stop,
        signal: interruption.cancel,
        onWait: (holder) => say(style.yellow(`waiting for run ${holder.runId} (pid ${holder.pid}) to finish; --no-wait fails instead`)),
        onEvent: (event) => {
          const line = eventLine(event, style);
          if (line !== null) say(line);
        },
      },
      say,
    );
    if (opts.json) io.stdout.write(JSON.stringify(report, null, 2) + "\n");
    else io.stdout.write("\n" + runSummary(report, style));
    const signal = interruption.received();
    setStatus(signal && report.status === "interrupted" ? signalExitCode(signal) : report.status === "success" ? EXIT.ok : EXIT.failed);
  } catch (err) {
    if (!(err instanceof LockBusyError)) throw err;
    io.stderr.write(`${style.red("error")} ${err.message}; it still holds the lock (exit ${EXIT_BUSY}: try again later)\n`);
    setStatus(EXIT_BUSY);
  } finally {
    interruption.dispose();
  }
}
