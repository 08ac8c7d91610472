/**
 * Progress of a run as people follow it. Every event worth a line gets one, with the pairs done
 * out of the total once a pair ends. On a terminal a status line below them (the running pairs
 * with their elapsed time, and done/total) is redrawn in place every second; in a log (no
 * terminal: CI) nothing is redrawn, and a plain line names the pairs still running once a minute.
 */
import type { BatchCounts, RunEvent } from "../model/run.js";
import type { Style } from "../report/color.js";
import { batchCounts, eventLine } from "../report/run.js";
import { visible } from "../report/visible.js";

/** How often a log (no terminal) says which pairs are still running. */
export const LOG_INTERVAL_MS = 60_000;
const TERMINAL_INTERVAL_MS = 1000;
const CLEAR_LINE = "\r\x1b[2K";

/** Elapsed time as people read it: 8s, 1m 05s, 1h 02m. */
export function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/** What is going on, from the events alone: pure, the clock is passed in. */
export class ProgressState {
  total = 0;
  done = 0;
  /** Running pairs by id, with when each started. */
  readonly running = new Map<string, number>();
  /** Provider batches not yet ended, by id: the provider's counts. */
  readonly batches = new Map<string, { requests: number; counts: BatchCounts }>();
  /** Provider calls held for their rate limit now. */
  waiting = 0;

  update(event: RunEvent, now: number): void {
    if (event.type === "batch") {
      if (event.state === "submitted" || event.state === "progress") this.batches.set(event.id, { requests: event.requests, counts: event.counts });
      else this.batches.delete(event.id);
    } else if (event.type === "run_start") this.total = event.plan.pairs.length;
    else if (event.type === "pair_start") this.running.set(event.id, now);
    else if (event.type === "pair_end") {
      this.running.delete(event.outcome.id);
      this.done++;
    }
  }

  /**
   * `2/5 done`, then each provider batch with the requests it finished (the provider's counts),
   * then the provider calls held for their rate limit, then each running pair with its elapsed time, longest first (their number, when many wait on batches).
   */
  status(now: number): string {
    const batches = [...this.batches].map(([id, b]) => `batch ${visible(id)} ${b.requests - b.counts.processing}/${b.requests} (${batchCounts(b.counts)})`);
    const running =
      this.batches.size > 0 && this.running.size > 8
        ? [`${this.running.size} pairs`]
        : [...this.running].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).map(([id, t]) => `${visible(id)} ${elapsed(now - t)}`);
    const paced = this.waiting > 0 ? `; ${this.waiting} call${this.waiting === 1 ? "" : "s"} waiting for the rate limit` : "";
    return `${this.done}/${this.total} done` + batches.map((b) => `; ${b}`).join("") + paced + (running.length > 0 ? `; running: ${running.join(", ")}` : "");
  }
}

export interface ProgressOptions {
  style: Style;
  /** Redraw a status line in place (the stream is a terminal). */
  terminal: boolean;
  verbose?: boolean;
  /** The terminal's width: a longer status line is cut, as a wrapped one could not be redrawn. */
  columns?: number;
  now?: () => number;
}

/** Writes a run's progress to `write`; `event` for each run event, `dispose` at the end. */
export class ProgressView {
  private readonly state = new ProgressState();
  private readonly now: () => number;
  private statusShown = false;
  private timer: NodeJS.Timeout | undefined;
  private lastLog: number;

  constructor(
    private readonly write: (s: string) => void,
    private readonly options: ProgressOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.lastLog = this.now();
  }

  /** A line of the command's own (waiting for a lock, resumed): printed above the status line. */
  say(line: string): void {
    this.clearStatus();
    this.write(line + "\n");
    this.drawStatus();
  }

  /** Writes something elsewhere (stderr) without garbling the status line on the same terminal. */
  aside(write: () => void): void {
    this.clearStatus();
    write();
    this.drawStatus();
  }

  event(event: RunEvent): void {
    const now = this.now();
    this.state.update(event, now);
    if (event.type === "run_start") this.start();
    let line = eventLine(event, this.options.style, this.options.verbose);
    if (line !== null && event.type === "pair_end") line += this.options.style.dim(`  [${this.state.done}/${this.state.total}]`);
    if (event.type === "run_end") this.dispose();
    if (line !== null) this.say(line);
  }

  /** Where the status line reads how many provider calls wait for their rate limit now. */
  pacing(waiting: () => number): void {
    this.waiting = waiting;
  }

  private waiting: () => number = () => 0;

  /** For a log: the still-running line, when a minute has passed since the last one. */
  tick(): void {
    const now = this.now();
    this.state.waiting = this.waiting();
    if (this.options.terminal) {
      this.clearStatus();
      this.drawStatus();
      return;
    }
    if (this.state.running.size === 0 || now - this.lastLog < LOG_INTERVAL_MS) return;
    this.lastLog = now;
    this.write(this.options.style.dim(`progress ${this.state.status(now)}`) + "\n");
  }

  dispose(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.clearStatus();
  }

  private start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.tick(), this.options.terminal ? TERMINAL_INTERVAL_MS : 1000);
    this.timer.unref();
  }

  private clearStatus(): void {
    if (!this.statusShown) return;
    this.write(CLEAR_LINE);
    this.statusShown = false;
  }

  private drawStatus(): void {
    if (!this.options.terminal || this.timer === undefined || this.state.running.size === 0) return;
    let status = this.state.status(this.now());
    const columns = this.options.columns;
    if (columns !== undefined && columns > 1 && status.length >= columns) status = status.slice(0, columns - 2) + "…";
    this.write(this.options.style.dim(status));
    this.statusShown = true;
  }
}
