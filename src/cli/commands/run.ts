import { InvalidArgumentError, Option, type Command } from "commander";
import { LockBusyError } from "../../records/mutex.js";
import { styleFor } from "../../report/color.js";
import { runJson, runSummary } from "../../report/run.js";
import { ProgressView } from "../progress.js";
import { DEFAULT_CONCURRENCY } from "../../engine/engine.js";
import type { RunReport } from "../../model/run.js";
import type { Plan } from "../../model/plan.js";
import { AUTO_CONCURRENCY, resumeTarget, runTarget, type RunRequest } from "../../app/run.js";
import { EXIT, examples, onlyOption, PATH_HELP, positiveInt, stateDirOption, terminalColumns, type CliContext } from "../context.js";
import { showPlan } from "./plan.js";
import { runShard } from "../../app/shard.js";
import type { ShardSpec } from "../../model/shard.js";
import { fanOutOptions, shardOption, shardWaitOption } from "./shard.js";
import { interruptible, signalExitCode } from "../../app/signals.js";
import { runCosts, type RunCosts } from "../costs.js";
import { parseUsd } from "../../estimate/prices.js";
import { SANDBOX_MODES } from "../../processes/sandbox.js";
import { DEFAULT_LIMITS, describeLimits, parseLimits } from "../../processes/limits.js";
import type { CommandLimits } from "../../model/ports.js";
import { SANDBOX_VARIABLE } from "../../app/sandbox.js";
import { mark } from "../timing.js";

function usdAmount(value: string): number {
  const usd = parseUsd(value);
  if (usd === undefined) throw new InvalidArgumentError("expected an amount of US dollars, such as 0.50");
  return usd;
}

interface CommonFlags {
  json?: boolean;
  batch?: boolean;
  all?: boolean;
  sandbox?: string;
  limits?: CommandLimits;
  traceReads?: boolean;
  verbose?: boolean;
  concurrency: number | "auto";
  maxWait?: number;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
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
  dryRun?: boolean;
  shard?: ShardSpec;
  sharedStore?: string;
  fanout: string;
  shardWait: number;
}

/** --concurrency: a whole number of at least 1, or auto. */
function concurrencyArgument(value: string): number | "auto" {
  if (value === "auto") return "auto";
  try {
    return positiveInt(value);
  } catch {
    throw new InvalidArgumentError("expected auto or a whole number of at least 1");
  }
}

/** What a run id looks like: its UTC start time, then a few hex digits. */
const RUN_ID = /^\d{8}T\d{9}Z-[0-9a-f]+$/;

/** Another run holds the workflow's lock and --no-wait was given: try again later (EX_TEMPFAIL). */
export const EXIT_BUSY = 75;

function common(command: Command): Command {
  return command
    .option("--json", "write the run report as JSON (version 1) to stdout, and progress to stderr")
    .option("--verbose", "show what each generator wrote to stderr, also when it succeeds (a failure always shows it)")
    .option("--all", "end with a row for every pair, however many (a run of more than 30 pairs is otherwise summed up by cause)")
    .addOption(
      new Option(
        "--concurrency <n>",
        `pairs to execute at once; auto: commands ${DEFAULT_CONCURRENCY} at once, model pairs as many as their provider's rate limit takes (up to ${AUTO_CONCURRENCY})`,
      )
        .default("auto")
        .argParser(concurrencyArgument),
    )
    .addOption(
      new Option(
        "--max-wait <seconds>",
        "the longest one provider call may wait for its rate limit; then its pair is interrupted (resume it later), not failed (default: as long as it takes)",
      ).argParser(positiveInt),
    )
    .addOption(
      new Option(
        "--requests-per-minute <n>",
        "the rate limit of every model endpoint the run calls, over the workflow's rate_limit (for endpoints that send no rate headers; one of N shards takes 1/N)",
      ).argParser(positiveInt),
    )
    .addOption(new Option("--tokens-per-minute <n>", "likewise, tokens (prompt and max_tokens) per minute").argParser(positiveInt))
    .option(
      "--batch",
      "send every openai and anthropic pair's requests through its provider's batch API, at half price: one batch per wave, provider and endpoint (generator_config.batch: true does it for one pair)",
    )
    .option(
      "--no-wait",
      `never wait: if another run of this workflow is going, fail at once (exit ${EXIT_BUSY}); send provider batches and end (exit 0, the run waiting) instead of waiting for them: a later run or resume collects them`,
    )
    .addOption(
      new Option("--grace <seconds>", "after Ctrl-C or SIGTERM, how long pairs in flight may finish before they are cancelled")
        .default(10)
        .argParser(positiveInt),
    )
    .addOption(stateDirOption())
    .addOption(
      new Option(
        "--sandbox <mode>",
        `run commands confined: auto (where bubblewrap works), required (refuse to run without), off; default: ${SANDBOX_VARIABLE}, else auto`,
      ).choices([...SANDBOX_MODES]),
    )
    .addOption(
      new Option(
        "--limits <list>",
        `what each command may take, e.g. processes=512,memory=2g,tmp=512m,time=600 (default: ${describeLimits(DEFAULT_LIMITS)}); over a limit its pair fails, saying which`,
      ).argParser(limitsArgument),
    )
    .option(
      "--trace-reads",
      "run each command under strace and record the files it read that its pair's reference does not name: the next plan hashes them too (needs strace)",
    );
}

export function registerRun(program: Command, context: CliContext): void {
  fanOutOptions(common(program.command("run")))
    .description("Execute the pairs whose inputs changed; reuse every unchanged pair's accepted artifact.")
    .argument("[path]", PATH_HELP)
    .option("--force", "execute every pair")
    .addOption(onlyOption("execute only these pairs; their dependencies must have accepted artifacts"))
    .option("--from <id>", "execute this pair and everything downstream of it")
    .addOption(
      new Option("--max-cost <usd>", "refuse to start a run whose estimated cost exceeds this many US dollars (exit 1, nothing executed)").argParser(usdAmount),
    )
    .option("-y, --yes", "do not ask before executing (pairflow asks only when stdin and stdout are a terminal)")
    .option("--dry-run", "execute nothing: print the plan of this run, exactly as `pairflow plan` with the same flags")
    .addOption(shardOption())
    .addOption(shardWaitOption())
    .addHelpText(
      "after",
      examples([
        "pairflow run examples/tdd-stack",
        "pairflow run --max-cost 0.50 --yes",
        "pairflow run --only g_impl examples/tdd-stack",
        "pairflow run --only g_test,g_impl --dry-run",
        "pairflow run --from g_test --concurrency 2",
        "pairflow run --batch --no-wait   # then later: pairflow run",
        "pairflow run --json > report.json",
      ]),
    )
    .action(async (target: string | undefined, opts: RunFlags) => {
      if (opts.dryRun) return showPlan(context.io, target, opts, context.setStatus);
      let costs: RunCosts | undefined;
      try {
        await drive(context, opts, async (request) => {
          const selection = { force: opts.force, only: opts.only, from: opts.from };
          costs = runCosts(context.io, opts, request.stop);
          if (opts.shard) {
            // --max-cost applies to the shard's own pairs.
            const shard = { shard: opts.shard, sharedDir: opts.sharedStore, fanout: opts.fanout, waitMs: opts.shardWait * 1000 };
            return runShard(target, {
              ...request,
              selection,
              ...shard,
              maxCost: opts.maxCost,
              onPlanned: costs.onPlanned,
              confirm: costs.confirm,
              onPhase: mark,
            });
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
    .argument("[path]", `${PATH_HELP}; its state directory and, without a run id, its latest interrupted run`)
    .addHelpText(
      "after",
      examples([
        "pairflow resume",
        "pairflow resume examples/tdd-stack",
        "pairflow resume 20261122T003012345Z-1a2b",
        "pairflow resume 20261122T003012345Z-1a2b examples/tdd-stack",
      ]),
    )
    .action(async (first: string | undefined, second: string | undefined, opts: CommonFlags) => {
      // One argument is the run id when it looks like one, else the workflow's path.
      const [runId, target] = second !== undefined || first === undefined || RUN_ID.test(first) ? [first, second] : [undefined, first];
      await drive(context, opts, async (options, say) => {
        const { report, from, replanned } = await resumeTarget(runId, options, target);
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
  const view = new ProgressView((s) => progress.write(s), {
    style,
    terminal: Boolean(progress.isTTY) && !io.env.CI,
    verbose: opts.verbose,
    columns: (progress as { columns?: number }).columns,
    rows: (progress as { rows?: number }).rows,
  });
  const say = (line: string) => view.say(line);
  const interruption = interruptible(opts.grace * 1000, (message) => view.aside(() => io.stderr.write(style.yellow(message) + "\n")));
  // The plan the run executes, for its summary by cause.
  let plan: Plan | undefined;
  try {
    const report = await start(
      {
        cwd: io.cwd,
        env: io.env,
        stateDir: opts.stateDir,
        sandbox: opts.sandbox,
        limits: opts.limits,
        traceReads: opts.traceReads,
        concurrency: opts.concurrency,
        ...(opts.maxWait === undefined ? {} : { maxWaitSeconds: opts.maxWait }),
        ...(opts.requestsPerMinute === undefined && opts.tokensPerMinute === undefined
          ? {}
          : { rateLimits: { requestsPerMinute: opts.requestsPerMinute, tokensPerMinute: opts.tokensPerMinute } }),
        wait: opts.wait,
        batch: opts.batch,
        batchWait: opts.wait,
        stop: interruption.stop,
        signal: interruption.cancel,
        onWait: (holder) => say(style.yellow(`waiting for run ${holder.runId} (pid ${holder.pid}) to finish; --no-wait fails instead`)),
        onEvent: (event) => {
          if (event.type === "run_start") plan = event.plan;
          else if (event.type === "pair_start") mark(`pair_start ${event.id}`);
          else if (event.type === "pair_end") mark(`pair_end ${event.outcome.id}`);
          view.event(event);
        },
        onPacing: (waiting) => view.pacing(waiting),
      },
      say,
    );
    view.dispose();
    if (opts.json) io.stdout.write(JSON.stringify(runJson(report), null, 2) + "\n");
    else io.stdout.write("\n" + runSummary(report, style, { plan, all: opts.all, columns: terminalColumns(io.stdout) }));
    const signal = interruption.received();
    // Waiting for batches is what --no-wait asked for: a later run collects them.
    const ok = report.status === "success" || report.status === "waiting";
    setStatus(signal && report.status === "interrupted" ? signalExitCode(signal) : ok ? EXIT.ok : EXIT.failed);
  } catch (err) {
    if (!(err instanceof LockBusyError)) throw err;
    io.stderr.write(`${style.red("error")} ${err.message}; it still holds the lock (exit ${EXIT_BUSY}: try again later)\n`);
    setStatus(EXIT_BUSY);
  } finally {
    view.dispose();
    interruption.dispose();
  }
}

function limitsArgument(value: string): CommandLimits {
  const limits = parseLimits(value);
  if (typeof limits === "string") throw new InvalidArgumentError(limits);
  return limits;
}
