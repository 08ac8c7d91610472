#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  showPlan
} from "./cli-chunk-HXIO53ZC.js";
import {
  AUTO_CONCURRENCY,
  BudgetExceededError,
  DEFAULT_LIMITS,
  SANDBOX_MODES,
  SANDBOX_VARIABLE,
  describeLimits,
  fanOutOptions,
  parseLimits,
  resumeTarget,
  runShard,
  runTarget,
  shardOption,
  shardWaitOption
} from "./cli-chunk-LMLVZIIO.js";
import {
  DEFAULT_CONCURRENCY,
  LockBusyError
} from "./cli-chunk-74NRXERS.js";
import {
  mark
} from "./cli-chunk-VWCPAHPU.js";
import {
  batchCounts,
  eventLine,
  runJson,
  runSummary
} from "./cli-chunk-AM42MMQN.js";
import {
  compareWithRun,
  comparisonText,
  estimateHeadline,
  estimateText,
  estimateTotal,
  fitLines,
  number,
  planText,
  plural
} from "./cli-chunk-PW37734U.js";
import {
  styleFor
} from "./cli-chunk-TNYNDC55.js";
import {
  asksBeforeRunning,
  parseUsd
} from "./cli-chunk-YKULHKX5.js";
import {
  nameFor
} from "./cli-chunk-FEFDJVE6.js";
import {
  visible
} from "./cli-chunk-7NHSQKXA.js";
import {
  EXIT,
  InvalidArgumentError,
  Option,
  PATH_HELP,
  RunDeclinedError,
  examples,
  onlyOption,
  positiveInt,
  stateDirOption,
  terminalColumns
} from "./cli-chunk-BXCSBTXN.js";

// src/cli/progress.ts
var LOG_INTERVAL_MS = 6e4;
var TERMINAL_INTERVAL_MS = 1e3;
function elapsed(ms) {
  const s = Math.floor(ms / 1e3);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}
var ProgressState = class {
  total = 0;
  /** Pairs ended, whatever their end; of them, those that failed and those that were blocked. */
  done = 0;
  failed = 0;
  blocked = 0;
  /** Running pairs by id, with when each started. */
  running = /* @__PURE__ */ new Map();
  /** Provider batches not yet ended, by id: the provider's counts. */
  batches = /* @__PURE__ */ new Map();
  /** Provider calls held for their rate limit now. */
  waiting = 0;
  update(event, now) {
    if (event.type === "batch") {
      if (event.state === "submitted" || event.state === "progress") this.batches.set(event.id, { requests: event.requests, counts: event.counts });
      else this.batches.delete(event.id);
    } else if (event.type === "run_start") this.total = event.plan.pairs.length;
    else if (event.type === "pair_start") this.running.set(event.id, now);
    else if (event.type === "pair_end") {
      this.running.delete(event.outcome.id);
      this.done++;
      if (event.outcome.status === "failed") this.failed++;
      else if (event.outcome.status === "blocked") this.blocked++;
    }
  }
  /** `2/5 done`, then how many of them failed and were blocked, when any were. */
  doneText() {
    const bad = [this.failed > 0 ? `${number(this.failed)} failed` : "", this.blocked > 0 ? `${number(this.blocked)} blocked` : ""].filter(Boolean);
    return `${number(this.done)}/${number(this.total)} done${bad.length > 0 ? ` (${bad.join(", ")})` : ""}`;
  }
  batchTexts() {
    return [...this.batches].map(([id, b]) => `batch ${nameFor(id, "terminal")} ${b.requests - b.counts.processing}/${b.requests} (${batchCounts(b.counts)})`);
  }
  pacedText() {
    return this.waiting > 0 ? `${this.waiting} call${this.waiting === 1 ? "" : "s"} waiting for the rate limit` : "";
  }
  /** The running pairs, longest first, with their elapsed time. */
  runningTexts(now) {
    return [...this.running].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).map(([id, t]) => `${nameFor(id, "terminal")} ${elapsed(now - t)}`);
  }
  /**
   * One line, as a log says it once a minute: `2/5 done (1 failed)`, then each provider batch with
   * the requests it finished (the provider's counts), then the provider calls held for their rate
   * limit, then each running pair with its elapsed time, longest first (their number, when many
   * wait on batches).
   */
  status(now) {
    const running = this.batches.size > 0 && this.running.size > 8 ? [`${this.running.size} pairs`] : this.runningTexts(now);
    const paced = this.pacedText();
    return this.doneText() + this.batchTexts().map((b) => `; ${b}`).join("") + (paced ? `; ${paced}` : "") + (running.length > 0 ? `; running: ${running.join(", ")}` : "");
  }
  /**
   * The live view of a terminal, at most `rows` lines: the counts (`12/1,000 done (2 failed, 5
   * blocked) · 4 running · 984 waiting`), the provider batches, the calls held for their rate
   * limit, then a line per running pair, longest first, as many as fit, and how many more run.
   */
  view(now, rows) {
    const waiting = Math.max(0, this.total - this.done - this.running.size);
    const lines = [`${this.doneText()} \xB7 ${number(this.running.size)} running \xB7 ${number(waiting)} waiting`];
    for (const b of this.batchTexts()) lines.push(`  ${b}`);
    const paced = this.pacedText();
    if (paced) lines.push(`  ${paced}`);
    const running = this.runningTexts(now);
    const room = Math.max(1, rows - lines.length);
    const shown = running.length <= room ? running : running.slice(0, room - 1);
    for (const r of shown) lines.push(`  \u25B8 ${r}`);
    if (shown.length < running.length) lines.push(`  \u2026 and ${number(running.length - shown.length)} more running`);
    return lines;
  }
};
var REDRAW_MS = 100;
var MAX_VIEW_LINES = 12;
var MIN_VIEW_LINES = 3;
var ProgressView = class {
  constructor(write, options) {
    this.write = write;
    this.options = options;
    this.now = options.now ?? Date.now;
    this.lastLog = this.now();
  }
  write;
  options;
  state = new ProgressState();
  now;
  /** Lines of the live view on the screen now. */
  viewLines = 0;
  timer;
  /** When the live view was last drawn, and the redraw an event asked for, while it waits (redrawSoon). */
  drawnAt = -Infinity;
  pending;
  lastLog;
  /** A line of the command's own (waiting for a lock, resumed): printed above the live view. */
  say(line) {
    this.clearView();
    this.write(this.fit(line) + "\n");
    this.drawView();
  }
  /** Writes something elsewhere (stderr) without garbling the live view on the same terminal. */
  aside(write) {
    this.clearView();
    write();
    this.drawView();
  }
  event(event) {
    const now = this.now();
    this.state.update(event, now);
    if (event.type === "run_start") this.start();
    const line = this.lineOf(event);
    if (event.type === "run_end") this.dispose();
    if (line !== null) this.say(line);
    else if (this.options.terminal) this.redrawSoon();
  }
  /** Where the live view reads how many provider calls wait for their rate limit now. */
  pacing(waiting) {
    this.waiting = waiting;
  }
  waiting = () => 0;
  /** On a terminal the live view redrawn; in a log the still-running line, when a minute has passed since the last one. */
  tick() {
    const now = this.now();
    this.state.waiting = this.waiting();
    if (this.options.terminal) {
      this.redraw();
      return;
    }
    if (this.state.running.size === 0 || now - this.lastLog < LOG_INTERVAL_MS) return;
    this.lastLog = now;
    this.write(this.options.style.dim(`progress ${this.state.status(now)}`) + "\n");
  }
  dispose() {
    if (this.timer !== void 0) clearInterval(this.timer);
    this.timer = void 0;
    clearTimeout(this.pending);
    this.pending = void 0;
    this.clearView();
  }
  /** The line an event gets, or null: on a terminal only what the counts cannot say. */
  lineOf(event) {
    const { style, verbose, terminal } = this.options;
    if (terminal && !verbose && !standsOnTerminal(event)) return null;
    let line = eventLine(event, style, verbose);
    if (line !== null && event.type === "pair_end" && !terminal) line += style.dim(`  [${this.state.done}/${this.state.total}]`);
    return line;
  }
  start() {
    if (this.timer !== void 0) return;
    this.timer = setInterval(() => this.tick(), this.options.terminal ? TERMINAL_INTERVAL_MS : 1e3);
    this.timer.unref();
  }
  redraw() {
    clearTimeout(this.pending);
    this.pending = void 0;
    this.clearView();
    this.drawView();
  }
  /**
   * The live view redrawn for an event: at once when it was last drawn REDRAW_MS ago or more,
   * otherwise once that time has passed, with every event since. Pairs that end by the thousand a
   * second would otherwise redraw it as often, and the terminal, not the run, would set the pace.
   */
  redrawSoon() {
    if (this.pending !== void 0) return;
    const wait = this.drawnAt + REDRAW_MS - this.now();
    if (wait <= 0) return this.redraw();
    this.pending = setTimeout(() => this.redraw(), wait);
    this.pending.unref();
  }
  /** Back to the first line of the live view, and everything below the cursor erased. */
  clearView() {
    if (this.viewLines === 0) return;
    this.write(`\r${this.viewLines > 1 ? `\x1B[${this.viewLines - 1}A` : ""}\x1B[J`);
    this.viewLines = 0;
  }
  drawView() {
    if (!this.options.terminal || this.timer === void 0) return;
    const rows = this.options.rows ?? 24;
    const height = Math.max(MIN_VIEW_LINES, Math.min(MAX_VIEW_LINES, Math.floor(rows / 3)));
    const lines = this.state.view(this.now(), height).map((l) => this.options.style.dim(this.fit(l)));
    this.write(lines.join("\n"));
    this.viewLines = lines.length;
    this.drawnAt = this.now();
  }
  /** On a terminal, the line cut to its width (one column spare, so it never wraps); a log's lines are whole. */
  fit(line) {
    return this.options.terminal ? fitLines(line, this.options.columns) : line;
  }
};
function standsOnTerminal(event) {
  switch (event.type) {
    case "attempt_end":
    case "warning":
      return true;
    case "pair_end":
      return event.outcome.status === "failed" || event.outcome.status === "interrupted";
    case "batch":
      return event.state !== "progress";
    default:
      return false;
  }
}

// src/app/signals.ts
function interruptible(graceMs, notice) {
  const stop = new AbortController();
  const cancel = new AbortController();
  let received;
  let timer;
  const onSignal = (signal) => {
    if (received === void 0) {
      received = signal;
      stop.abort();
      notice(
        `${signal}: starting nothing new; pairs in flight have ${Math.round(graceMs / 1e3)}s to finish${signal === "SIGINT" ? " (Ctrl-C again to stop now)" : ""}`
      );
      timer = setTimeout(() => cancel.abort(), graceMs);
      timer.unref();
    } else if (signal === "SIGINT" && !cancel.signal.aborted) {
      notice("SIGINT again: cancelling the pairs in flight now");
      cancel.abort();
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    stop: stop.signal,
    cancel: cancel.signal,
    received: () => received,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      if (timer) clearTimeout(timer);
    }
  };
}
function signalExitCode(signal) {
  return signal === "SIGTERM" ? 143 : 130;
}

// src/cli/ask.ts
import { createInterface } from "node:readline";
function canAsk(stdin, stdout) {
  return Boolean(stdin?.isTTY) && Boolean(stdout.isTTY);
}
function askYesNo(stdin, write, question, signal) {
  write(question);
  return new Promise((resolve) => {
    const rl = createInterface({ input: stdin, terminal: false });
    let answered = false;
    const onAbort = () => rl.close();
    signal?.addEventListener("abort", onAbort, { once: true });
    rl.once("line", (line) => {
      answered = true;
      rl.close();
      resolve(/^\s*y(es)?\s*$/i.test(line));
    });
    rl.once("close", () => {
      signal?.removeEventListener("abort", onAbort);
      if (answered) return;
      write("\n");
      resolve(false);
    });
  });
}

// src/cli/costs.ts
function runCosts(io, flags, stop) {
  const progress = flags.json ? io.stderr : io.stdout;
  const style = styleFor(progress, io.env);
  const ask = !flags.yes && canAsk(io.stdin, io.stdout);
  let estimate;
  let comparison;
  return {
    onPlanned(planned, overBudget) {
      estimate = planned.estimate;
      if (estimate.pairs.length === 0) return;
      const over = overBudget !== null;
      if (ask && asksBeforeRunning(estimate)) progress.write(planText(planned.plan, style, io.cwd, estimate) + "\n");
      else if (over) progress.write(estimateText(estimate, style) + "\n");
      else progress.write(style.dim(`Estimate: ${estimateHeadline(estimate)} (pairflow plan shows the breakdown)`) + "\n\n");
    },
    confirm: ask ? ({ estimate: estimate2 }) => askYesNo(io.stdin, (s) => progress.write(s), `Execute ${plural(estimate2.totals.pairs, "pair")} (${estimateTotal(estimate2)})? [y/N] `, stop) : void 0,
    withComparison(report) {
      if (!estimate || estimate.pairs.length === 0) return report;
      comparison = compareWithRun(estimate, report);
      return Object.assign(report, { estimate: comparison });
    },
    showComparison() {
      if (comparison) progress.write("\n" + comparisonText(comparison, style));
    },
    refused(err) {
      if (!(err instanceof BudgetExceededError) && !(err instanceof RunDeclinedError)) return false;
      io.stderr.write(`${styleFor(io.stderr, io.env).red("error")} ${visible(err.message)}
`);
      return true;
    }
  };
}

// src/cli/commands/run.ts
function usdAmount(value) {
  const usd = parseUsd(value);
  if (usd === void 0) throw new InvalidArgumentError("expected an amount of US dollars, such as 0.50");
  return usd;
}
function concurrencyArgument(value) {
  if (value === "auto") return "auto";
  try {
    return positiveInt(value);
  } catch {
    throw new InvalidArgumentError("expected auto or a whole number of at least 1");
  }
}
var RUN_ID = /^\d{8}T\d{9}Z-[0-9a-f]+$/;
var EXIT_BUSY = 75;
function common(command) {
  return command.option("--json", "write the run report as JSON (version 1) to stdout, and progress to stderr").option("--verbose", "show what each generator wrote to stderr, also when it succeeds (a failure always shows it)").option("--all", "end with a row for every pair, however many (a run of more than 30 pairs is otherwise summed up by cause)").addOption(
    new Option(
      "--concurrency <n>",
      `pairs to execute at once; auto: commands ${DEFAULT_CONCURRENCY} at once, model pairs as many as their provider's rate limit takes (up to ${AUTO_CONCURRENCY})`
    ).default("auto").argParser(concurrencyArgument)
  ).addOption(
    new Option(
      "--max-wait <seconds>",
      "the longest one provider call may wait for its rate limit; then its pair is interrupted (resume it later), not failed (default: as long as it takes)"
    ).argParser(positiveInt)
  ).addOption(
    new Option(
      "--requests-per-minute <n>",
      "the rate limit of every model endpoint the run calls, over the workflow's rate_limit (for endpoints that send no rate headers; one of N shards takes 1/N)"
    ).argParser(positiveInt)
  ).addOption(new Option("--tokens-per-minute <n>", "likewise, tokens (prompt and max_tokens) per minute").argParser(positiveInt)).option(
    "--batch",
    "send every openai and anthropic pair's requests through its provider's batch API, at half price: one batch per wave, provider and endpoint (generator_config.batch: true does it for one pair)"
  ).option(
    "--no-wait",
    `never wait: if another run of this workflow is going, fail at once (exit ${EXIT_BUSY}); send provider batches and end (exit 0, the run waiting) instead of waiting for them: a later run or resume collects them`
  ).addOption(
    new Option("--grace <seconds>", "after Ctrl-C or SIGTERM, how long pairs in flight may finish before they are cancelled").default(10).argParser(positiveInt)
  ).addOption(stateDirOption()).addOption(
    new Option(
      "--sandbox <mode>",
      `run commands confined: auto (where bubblewrap works), required (refuse to run without), off; default: ${SANDBOX_VARIABLE}, else auto`
    ).choices([...SANDBOX_MODES])
  ).addOption(
    new Option(
      "--limits <list>",
      `what each command may take, e.g. processes=512,memory=2g,tmp=512m,time=600 (default: ${describeLimits(DEFAULT_LIMITS)}); over a limit its pair fails, saying which`
    ).argParser(limitsArgument)
  ).option(
    "--trace-reads",
    "run each command under strace and record the files it read that its pair's reference does not name: the next plan hashes them too (needs strace)"
  );
}
function registerRun(program, context) {
  fanOutOptions(common(program.command("run"))).description("Execute the pairs whose inputs changed; reuse every unchanged pair's accepted artifact.").argument("[path]", PATH_HELP).option("--force", "execute every pair").addOption(onlyOption("execute only these pairs; their dependencies must have accepted artifacts")).option("--from <id>", "execute this pair and everything downstream of it").addOption(
    new Option("--max-cost <usd>", "refuse to start a run whose estimated cost exceeds this many US dollars (exit 1, nothing executed)").argParser(usdAmount)
  ).option("-y, --yes", "do not ask before executing (pairflow asks only when stdin and stdout are a terminal)").option("--dry-run", "execute nothing: print the plan of this run, exactly as `pairflow plan` with the same flags").addOption(shardOption()).addOption(shardWaitOption()).addHelpText(
    "after",
    examples([
      "pairflow run examples/tdd-stack",
      "pairflow run --max-cost 0.50 --yes",
      "pairflow run --only g_impl examples/tdd-stack",
      "pairflow run --only g_test,g_impl --dry-run",
      "pairflow run --from g_test --concurrency 2",
      "pairflow run --batch --no-wait   # then later: pairflow run",
      "pairflow run --json > report.json"
    ])
  ).action(async (target, opts) => {
    if (opts.dryRun) return showPlan(context.io, target, opts, context.setStatus);
    let costs;
    try {
      await drive(context, opts, async (request) => {
        const selection = { force: opts.force, only: opts.only, from: opts.from };
        costs = runCosts(context.io, opts, request.stop);
        if (opts.shard) {
          const shard = { shard: opts.shard, sharedDir: opts.sharedStore, fanout: opts.fanout, waitMs: opts.shardWait * 1e3 };
          return runShard(target, {
            ...request,
            selection,
            ...shard,
            maxCost: opts.maxCost,
            onPlanned: costs.onPlanned,
            confirm: costs.confirm,
            onPhase: mark
          });
        }
        const report = await runTarget(target, {
          ...request,
          selection,
          maxCost: opts.maxCost,
          onPlanned: costs.onPlanned,
          confirm: costs.confirm
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
  common(program.command("resume")).description("Continue an interrupted run under its own id: nothing it finished runs again.").argument("[runId]", "the run to continue (default: the latest interrupted one; see pairflow runs)").argument("[path]", `${PATH_HELP}; its state directory and, without a run id, its latest interrupted run`).addHelpText(
    "after",
    examples([
      "pairflow resume",
      "pairflow resume examples/tdd-stack",
      "pairflow resume 20261122T003012345Z-1a2b",
      "pairflow resume 20261122T003012345Z-1a2b examples/tdd-stack"
    ])
  ).action(async (first, second, opts) => {
    const [runId, target] = second !== void 0 || first === void 0 || RUN_ID.test(first) ? [first, second] : [void 0, first];
    await drive(context, opts, async (options, say) => {
      const { report, from, replanned } = await resumeTarget(runId, options, target);
      say(replanned ? `planned anew instead of resuming run ${from}` : `resumed run ${from}`);
      return report;
    });
  });
}
async function drive({ io, setStatus }, opts, start) {
  const progress = opts.json ? io.stderr : io.stdout;
  const style = styleFor(progress, io.env);
  const view = new ProgressView((s) => progress.write(s), {
    style,
    terminal: Boolean(progress.isTTY) && !io.env.CI,
    verbose: opts.verbose,
    columns: progress.columns,
    rows: progress.rows
  });
  const say = (line) => view.say(line);
  const interruption = interruptible(opts.grace * 1e3, (message) => view.aside(() => io.stderr.write(style.yellow(message) + "\n")));
  let plan;
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
        ...opts.maxWait === void 0 ? {} : { maxWaitSeconds: opts.maxWait },
        ...opts.requestsPerMinute === void 0 && opts.tokensPerMinute === void 0 ? {} : { rateLimits: { requestsPerMinute: opts.requestsPerMinute, tokensPerMinute: opts.tokensPerMinute } },
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
        onPacing: (waiting) => view.pacing(waiting)
      },
      say
    );
    view.dispose();
    if (opts.json) io.stdout.write(JSON.stringify(runJson(report), null, 2) + "\n");
    else io.stdout.write("\n" + runSummary(report, style, { plan, all: opts.all, columns: terminalColumns(io.stdout) }));
    const signal = interruption.received();
    const ok = report.status === "success" || report.status === "waiting";
    setStatus(signal && report.status === "interrupted" ? signalExitCode(signal) : ok ? EXIT.ok : EXIT.failed);
  } catch (err) {
    if (!(err instanceof LockBusyError)) throw err;
    io.stderr.write(`${style.red("error")} ${err.message}; it still holds the lock (exit ${EXIT_BUSY}: try again later)
`);
    setStatus(EXIT_BUSY);
  } finally {
    view.dispose();
    interruption.dispose();
  }
}
function limitsArgument(value) {
  const limits = parseLimits(value);
  if (typeof limits === "string") throw new InvalidArgumentError(limits);
  return limits;
}

export {
  EXIT_BUSY,
  registerRun
};
