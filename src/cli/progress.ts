/**
 * Progress of a run as people follow it. Every event worth a line gets one, with the pairs done
 * out of the total once a pair ends. On a terminal a status line below them (the running pairs
 * with their elapsed time, and done/total) is redrawn in place every second; in a log (no
 * terminal: CI) nothing is redrawn, and a plain line names the pairs still running once a minute.
 */
import type { BatchCounts, RunEvent } from "../model/run.js";
import type { Style } from "../report/color.js";
import { batchCounts, eventLine } from "../report/run.js";
import { number } from "../report/causes.js";
import { fitLines } from "../report/fit.js";
import { nameFor } from "../report/names.js";

/** How often a log (no terminal) says which pairs are still running. */
export const LOG_INTERVAL_MS = 60_000;
const TERMINAL_INTERVAL_MS = 1000;

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
  /** Pairs ended, whatever their end; of them, those that failed and those that were blocked. */
  done = 0;
  failed = 0;
  blocked = 0;
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
      if (event.outcome.status === "failed") this.failed++;
      else if (event.outcome.status === "blocked") this.blocked++;
    }
  }

  /** `2/5 done`, then how many of them failed and were blocked, when any were. */
  private doneText(): string {
    const bad = [this.failed > 0 ? `${number(this.failed)} failed` : "", this.blocked > 0 ? `${number(this.blocked)} blocked` : ""].filter(Boolean);
    return `${number(this.done)}/${number(this.total)} done${bad.length > 0 ? ` (${bad.join(", ")})` : ""}`;
  }

  private batchTexts(): string[] {
    return [...this.batches].map(([id, b]) => `batch ${nameFor(id, "terminal")} ${b.requests - b.counts.processing}/${b.requests} (${batchCounts(b.counts)})`);
  }

  private pacedText(): string {
    return this.waiting > 0 ? `${this.waiting} call${this.waiting === 1 ? "" : "s"} waiting for the rate limit` : "";
  }

  /** The running pairs, longest first, with their elapsed time. */
  private runningTexts(now: number): string[] {
    return [...this.running].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).map(([id, t]) => `${nameFor(id, "terminal")} ${elapsed(now - t)}`);
  }

  /**
   * One line, as a log says it once a minute: `2/5 done (1 failed)`, then each provider batch with
   * the requests it finished (the provider's counts), then the provider calls held for their rate
   * limit, then each running pair with its elapsed time, longest first (their number, when many
   * wait on batches).
   */
  status(now: number): string {
    const running = this.batches.size > 0 && this.running.size > 8 ? [`${this.running.size} pairs`] : this.runningTexts(now);
    const paced = this.pacedText();
    return (
      this.doneText() +
      this.batchTexts()
        .map((b) => `; ${b}`)
        .join("") +
      (paced ? `; ${paced}` : "") +
      (running.length > 0 ? `; running: ${running.join(", ")}` : "")
    );
  }

  /**
   * The live view of a terminal, at most `rows` lines: the counts (`12/1,000 done (2 failed, 5
   * blocked) · 4 running · 984 waiting`), the provider batches, the calls held for their rate
   * limit, then a line per running pair, longest first, as many as fit, and how many more run.
   */
  view(now: number, rows: number): string[] {
    const waiting = Math.max(0, this.total - this.done - this.running.size);
    const lines = [`${this.doneText()} · ${number(this.running.size)} running · ${number(waiting)} waiting`];
    for (const b of this.batchTexts()) lines.push(`  ${b}`);
    const paced = this.pacedText();
    if (paced) lines.push(`  ${paced}`);
    const running = this.runningTexts(now);
    const room = Math.max(1, rows - lines.length);
    const shown = running.length <= room ? running : running.slice(0, room - 1);
    for (const r of shown) lines.push(`  ▸ ${r}`);
    if (shown.length < running.length) lines.push(`  … and ${number(running.length - shown.length)} more running`);
    return lines;
  }
}

export interface ProgressOptions {
  style: Style;
  /** Draw a live view in place (the stream is a terminal) instead of a line per event. */
  terminal: boolean;
  /** Every event's line on a terminal too, and each attempt's generator stderr. */
  verbose?: boolean;
  /** The terminal's width: lines are cut to it, as a wrapped line could not be redrawn. */
  columns?: number;
  /** The terminal's height: the live view takes at most a third of it. */
  rows?: number;
  now?: () => number;
}

/** The live view is redrawn for events at most this often (ms). */
const REDRAW_MS = 100;

/** Lines of the live view at most, and at least, whatever the terminal's height. */
const MAX_VIEW_LINES = 12;
const MIN_VIEW_LINES = 3;

/**
 * Writes a run's progress to `write`; `event` for each run event, `dispose` at the end. On a
 * terminal a live view is redrawn in place below the lines that stay: only what needs a reader
 * (a retry, a failure, a warning, a batch starting or ending) gets a line of its own, each cut
 * to the terminal's width, and the counts say the rest. In a log every event worth it gets a line,
 * a pair's end with the pairs done out of the total.
 */
export class ProgressView {
  private readonly state = new ProgressState();
  private readonly now: () => number;
  /** Lines of the live view on the screen now. */
  private viewLines = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the live view was last drawn, and the redraw an event asked for, while it waits (redrawSoon). */
  private drawnAt = -Infinity;
  private pending: NodeJS.Timeout | undefined;
  private lastLog: number;

  constructor(
    private readonly write: (s: string) => void,
    private readonly options: ProgressOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.lastLog = this.now();
  }

  /** A line of the command's own (waiting for a lock, resumed): printed above the live view. */
  say(line: string): void {
    this.clearView();
    this.write(this.fit(line) + "\n");
    this.drawView();
  }

  /** Writes something elsewhere (stderr) without garbling the live view on the same terminal. */
  aside(write: () => void): void {
    this.clearView();
    write();
    this.drawView();
  }

  event(event: RunEvent): void {
    const now = this.now();
    this.state.update(event, now);
    if (event.type === "run_start") this.start();
    const line = this.lineOf(event);
    if (event.type === "run_end") this.dispose();
    if (line !== null) this.say(line);
    else if (this.options.terminal) this.redrawSoon();
  }

  /** Where the live view reads how many provider calls wait for their rate limit now. */
  pacing(waiting: () => number): void {
    this.waiting = waiting;
  }

  private waiting: () => number = () => 0;

  /** On a terminal the live view redrawn; in a log the still-running line, when a minute has passed since the last one. */
  tick(): void {
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

  dispose(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    clearTimeout(this.pending);
    this.pending = undefined;
    this.clearView();
  }

  /** The line an event gets, or null: on a terminal only what the counts cannot say. */
  private lineOf(event: RunEvent): string | null {
    const { style, verbose, terminal } = this.options;
    if (terminal && !verbose && !standsOnTerminal(event)) return null;
    let line = eventLine(event, style, verbose);
    if (line !== null && event.type === "pair_end" && !terminal) line += style.dim(`  [${this.state.done}/${this.state.total}]`);
    return line;
  }

  private start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.tick(), this.options.terminal ? TERMINAL_INTERVAL_MS : 1000);
    this.timer.unref();
  }

  private redraw(): void {
    clearTimeout(this.pending);
    this.pending = undefined;
    this.clearView();
    this.drawView();
  }

  /**
   * The live view redrawn for an event: at once when it was last drawn REDRAW_MS ago or more,
   * otherwise once that time has passed, with every event since. Pairs that end by the thousand a
   * second would otherwise redraw it as often, and the terminal, not the run, would set the pace.
   */
  private redrawSoon(): void {
    if (this.pending !== undefined) return;
    const wait = this.drawnAt + REDRAW_MS - this.now();
    if (wait <= 0) return this.redraw();
    this.pending = setTimeout(() => this.redraw(), wait);
    this.pending.unref();
  }

  /** Back to the first line of the live view, and everything below the cursor erased. */
  private clearView(): void {
    if (this.viewLines === 0) return;
    this.write(`\r${this.viewLines > 1 ? `\x1b[${this.viewLines - 1}A` : ""}\x1b[J`);
    this.viewLines = 0;
  }

  private drawView(): void {
    if (!this.options.terminal || this.timer === undefined) return;
    const rows = this.options.rows ?? 24;
    const height = Math.max(MIN_VIEW_LINES, Math.min(MAX_VIEW_LINES, Math.floor(rows / 3)));
    const lines = this.state.view(this.now(), height).map((l) => this.options.style.dim(this.fit(l)));
    this.write(lines.join("\n"));
    this.viewLines = lines.length;
    this.drawnAt = this.now();
  }

  /** On a terminal, the line cut to its width (one column spare, so it never wraps); a log's lines are whole. */
  private fit(line: string): string {
    return this.options.terminal ? fitLines(line, this.options.columns) : line;
  }
}

/** On a terminal, the events that keep a line: a retry, a failure, a warning, a batch submitted or ended, an interruption. */
function standsOnTerminal(event: RunEvent): boolean {
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
