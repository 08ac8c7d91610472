/** The progress renderer, on a clock the test turns. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { elapsed, LOG_INTERVAL_MS, ProgressView } from "../../src/cli/progress.js";
import type { Plan } from "../../src/model/plan.js";
import type { PairOutcome, RunEvent } from "../../src/model/run.js";
import { styleFor } from "../../src/report/color.js";

const plain = styleFor({ isTTY: false }, {});
const plan = { pairs: [{ id: "a" }, { id: "b" }, { id: "c" }] } as unknown as Plan;

function outcome(id: string): PairOutcome {
  return { id, configRef: "0".repeat(64), status: "executed", attempts: [], contentHash: null, reasons: [], durationMs: 1000, note: null };
}

function view(terminal: boolean, columns?: number) {
  let now = 0;
  let out = "";
  const v = new ProgressView((s) => (out += s), { style: plain, terminal, columns, now: () => now });
  return {
    v,
    /** A second at a time, so each tick sees its own time. */
    advance(ms: number) {
      for (let left = ms; left > 0; left -= 1000) {
        now += Math.min(1000, left);
        vi.advanceTimersByTime(Math.min(1000, left));
      }
    },
    take() {
      const o = out;
      out = "";
      return o;
    },
  };
}

const start = (id: string): RunEvent => ({ type: "pair_start", id, configRef: "0".repeat(64), reasons: [] });
const end = (id: string): RunEvent => ({ type: "pair_end", outcome: outcome(id) });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("elapsed time", () => {
  it.each([
    [0, "0s"],
    [59_999, "59s"],
    [60_000, "1m 00s"],
    [65_000, "1m 05s"],
    [3_600_000, "1h 00m"],
    [3_720_000, "1h 02m"],
  ])("%i ms is %s", (ms, text) => expect(elapsed(ms)).toBe(text));
});

/**
 * What a terminal shows of what was written: lines of at most `columns` characters, a longer one
 * wrapped (and counted); colours ignored; the cursor moved by the escapes the live view uses.
 */
class Screen {
  rows: string[] = [""];
  wraps = 0;
  private r = 0;
  private c = 0;
  constructor(private readonly columns = 80) {}

  feed(s: string): void {
    for (let i = 0; i < s.length;) {
      if (s[i] === "\x1b") {
        const m = /^\x1b\[([0-9;]*)([A-Za-z])/.exec(s.slice(i));
        if (!m) throw new Error(`an escape the live view does not use: ${JSON.stringify(s.slice(i, i + 8))}`);
        i += m[0].length;
        if (m[2] === "A") this.r = Math.max(0, this.r - Number(m[1] || 1));
        else if (m[2] === "J") {
          this.rows[this.r] = this.rows[this.r]!.slice(0, this.c);
          this.rows.length = this.r + 1;
        } else if (m[2] !== "m") throw new Error(`an escape the live view does not use: ${m[0]}`);
        continue;
      }
      const ch = String.fromCodePoint(s.codePointAt(i)!);
      i += ch.length;
      if (ch === "\r") this.c = 0;
      else if (ch === "\n") this.down();
      else {
        if (this.c >= this.columns) {
          this.wraps++;
          this.down();
        }
        const row = [...this.rows[this.r]!.padEnd(this.c)];
        row[this.c] = ch;
        this.rows[this.r] = row.join("");
        this.c++;
      }
    }
  }

  private down(): void {
    this.r++;
    this.c = 0;
    if (this.rows.length <= this.r) this.rows.push("");
  }

  get text(): string {
    return this.rows.join("\n");
  }
}

function screen(options: { columns?: number; rows?: number } = {}) {
  let now = 0;
  const s = new Screen(options.columns);
  const v = new ProgressView((text) => s.feed(text), { style: plain, terminal: true, columns: options.columns ?? 80, rows: options.rows, now: () => now });
  return {
    v,
    s,
    advance(ms: number) {
      for (let left = ms; left > 0; left -= 1000) {
        now += Math.min(1000, left);
        vi.advanceTimersByTime(Math.min(1000, left));
      }
    },
  };
}

const ended = (id: string, status: PairOutcome["status"], note: string | null = null): RunEvent => ({
  type: "pair_end",
  outcome: { ...outcome(id), status, note },
});

/** A vitest run's output, as feedbackOf keeps it: the failure's lines first, the runner's count last. */
const VITEST = [
  " FAIL  test/stack.test.ts > Stack > pops in reverse order",
  "AssertionError: expected [ 1, 2 ] to deeply equal [ 2, 1 ]",
  " ❯ test/stack.test.ts:9:20",
  "",
  " Test Files  1 failed (1)",
  "      Tests  1 failed | 18 passed (19)",
].join("\n");

describe("on a terminal", () => {
  it("draws a live view of the counts and the running pairs, not a line per start and end", () => {
    const t = screen({ columns: 120 });
    t.v.event({ type: "run_start", runId: "r", plan, resumed: false });
    t.v.event(start("a"));
    t.v.event(start("b"));
    // Events that come faster than the view is redrawn are drawn together, once its time comes.
    expect(t.s.text).toBe("0/3 done · 0 running · 3 waiting");
    t.advance(100);
    expect(t.s.text).toBe("0/3 done · 2 running · 1 waiting\n  ▸ a 0s\n  ▸ b 0s");
    t.advance(2000);
    expect(t.s.text).toBe("0/3 done · 2 running · 1 waiting\n  ▸ a 2s\n  ▸ b 2s");
    t.v.event(end("a"));
    t.advance(100);
    expect(t.s.text).toBe("1/3 done · 1 running · 1 waiting\n  ▸ b 2s");
    t.v.event(ended("b", "failed", `rejected after 1 attempt: ${VITEST}`));
    t.v.event(ended("c", "blocked", "blocked: b failed"));
    t.advance(100);
    // The failure keeps its line, quoting the assertion, not the runner's count; the counts say the rest.
    expect(t.s.rows).toEqual([
      "failed   b  rejected after 1 attempt: … AssertionError: expected [ 1, 2 ] to deeply equal [ 2, 1 ]",
      "3/3 done (1 failed, 1 blocked) · 0 running · 0 waiting",
    ]);
    t.v.event({ type: "run_end", report: {} } as RunEvent);
    expect(t.s.text).toBe("failed   b  rejected after 1 attempt: … AssertionError: expected [ 1, 2 ] to deeply equal [ 2, 1 ]\n");
    t.advance(5000);
    expect(t.s.rows).toHaveLength(2);
  });

  it("redraws at most ten times a second, however fast pairs end, and shows where they got to", () => {
    let now = 0;
    let draws = 0;
    const many = { pairs: Array.from({ length: 2000 }, (_, i) => ({ id: `p${i}` })) } as unknown as Plan;
    const v = new ProgressView((text) => (draws += text.includes(" done · ") ? 1 : 0), { style: plain, terminal: true, columns: 80, now: () => now });
    v.event({ type: "run_start", runId: "r", plan: many, resumed: false });
    // 2,000 pairs, each started and ended, in one second.
    for (let i = 0; i < 2000; i++) {
      v.event(start(`p${i}`));
      v.event(end(`p${i}`));
      if (i % 20 === 19) {
        now += 10;
        vi.advanceTimersByTime(10);
      }
    }
    expect(draws).toBeLessThanOrEqual(12);
    const t = screen();
    t.v.event({ type: "run_start", runId: "r", plan: many, resumed: false });
    for (let i = 0; i < 2000; i++) t.v.event(end(`p${i}`));
    t.advance(100);
    expect(t.s.rows[0]).toBe("2,000/2,000 done · 0 running · 0 waiting");
  });

  it("quotes why an attempt was rejected on its retry line, not the runner's banner or count", () => {
    const t = screen({ columns: 120 });
    t.v.event({ type: "run_start", runId: "r", plan, resumed: false });
    t.v.event(start("a"));
    t.v.event({ type: "attempt_end", id: "a", attempt: 1, of: 3, accepted: false, feedback: VITEST, durationMs: 1000 } as RunEvent);
    expect(t.s.rows[0]).toBe("retry    a  attempt 1/3 rejected: … AssertionError: expected [ 1, 2 ] to deeply equal [ 2, 1 ]");
    expect(t.s.text).not.toContain("Tests");
    expect(t.s.text).not.toContain("FAIL");
  });

  it("says how many provider calls wait for their rate limit, while any do", () => {
    const t = screen();
    let waiting = 3;
    t.v.pacing(() => waiting);
    t.v.event({ type: "run_start", runId: "r", plan, resumed: false });
    t.v.event(start("a"));
    t.advance(1000);
    expect(t.s.rows).toEqual(["0/3 done · 1 running · 2 waiting", "  3 calls waiting for the rate limit", "  ▸ a 1s"]);
    waiting = 0;
    t.advance(1000);
    expect(t.s.rows).toEqual(["0/3 done · 1 running · 2 waiting", "  ▸ a 2s"]);
  });

  it("fits the terminal: no line wraps at any width, and a third of its height at most is redrawn", () => {
    for (const columns of [20, 40, 80]) {
      const t = screen({ columns, rows: 12 });
      const many = { pairs: Array.from({ length: 30 }, (_, i) => ({ id: `pair_with_a_long_name_${i}` })) } as unknown as Plan;
      t.v.event({ type: "run_start", runId: "r", plan: many, resumed: false });
      for (let i = 0; i < 10; i++) t.v.event(start(`pair_with_a_long_name_${i}`));
      t.v.event(ended("pair_with_a_long_name_0", "failed", `rejected after 1 attempt: ${VITEST}`));
      t.advance(3000);
      expect(t.s.wraps).toBe(0);
      for (const row of t.s.rows) expect(row.length).toBeLessThan(columns);
      // The failure's line and the live view: 4 lines (12 rows / 3), the last counting the pairs not shown.
      expect(t.s.rows).toHaveLength(5);
      expect(t.s.rows[4]).toMatch(/^ {2}… and|…$/);
    }
  });
});

describe("in a log", () => {
  it("never redraws, and names the pairs still running once a minute", () => {
    const t = view(false);
    t.v.event({ type: "run_start", runId: "r", plan, resumed: false });
    t.v.event(start("a"));
    expect(t.take()).toBe("start    a\n");
    t.advance(LOG_INTERVAL_MS - 1000);
    expect(t.take()).toBe("");
    t.advance(1000);
    expect(t.take()).toBe("progress 0/3 done; running: a 1m 00s\n");
    t.v.event(end("a"));
    expect(t.take()).toBe("accepted a  attempt 0, 1.0s  [1/3]\n");
    t.advance(3 * LOG_INTERVAL_MS);
    expect(t.take()).toBe(""); // nothing running
    t.v.dispose();
  });
});

describe("provider batches", () => {
  const batch = (state: "submitted" | "progress" | "ended", succeeded: number): RunEvent => ({
    type: "batch",
    provider: "anthropic",
    id: "msgbatch_01",
    state,
    requests: 3,
    counts: { processing: 3 - succeeded, succeeded, errored: 0, expired: 0, canceled: 0 },
  });

  it("show the provider's counts in the live view, and a line as a batch is submitted and ends", () => {
    const t = screen();
    t.v.event({ type: "run_start", runId: "r", plan, resumed: false });
    t.v.event(start("a"));
    t.v.event(batch("submitted", 0));
    expect(t.s.rows).toEqual([
      "batch    anthropic msgbatch_01: 3 requests submitted",
      "0/3 done · 1 running · 2 waiting",
      "  batch msgbatch_01 0/3 (3 processing)",
      "  ▸ a 0s",
    ]);
    t.v.event(batch("progress", 2));
    t.advance(100);
    expect(t.s.rows[2]).toBe("  batch msgbatch_01 2/3 (2 succeeded, 1 processing)");
    t.v.event(batch("ended", 3));
    expect(t.s.rows).toEqual([
      "batch    anthropic msgbatch_01: 3 requests submitted",
      "batch    anthropic msgbatch_01 ended: 3 succeeded",
      "0/3 done · 1 running · 2 waiting",
      "  ▸ a 0s",
    ]);
  });
});
