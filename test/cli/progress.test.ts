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

describe("on a terminal", () => {
  it("says how many provider calls wait for their rate limit, while any do", () => {
    const t = view(true);
    let waiting = 3;
    t.v.pacing(() => waiting);
    t.v.event({ type: "run_start", runId: "r", plan, resumed: false });
    t.v.event(start("a"));
    t.take();
    t.advance(1000);
    expect(t.take()).toBe("\r\x1b[2K0/3 done; 3 calls waiting for the rate limit; running: a 1s");
    waiting = 0;
    t.advance(1000);
    expect(t.take()).toBe("\r\x1b[2K0/3 done; running: a 2s");
  });

  it("keeps one status line of the running pairs below the event lines, redrawn every second", () => {
    const t = view(true);
    t.v.event({ type: "run_start", runId: "r", plan, resumed: false });
    t.v.event(start("a"));
    expect(t.take()).toBe("start    a\n0/3 done; running: a 0s");
    t.advance(2000);
    expect(t.take()).toBe("\r\x1b[2K0/3 done; running: a 1s\r\x1b[2K0/3 done; running: a 2s");
    t.v.event(start("b"));
    t.advance(1000);
    t.v.event(end("a"));
    const out = t.take();
    // Longest-running first; cleared before each line, then drawn again below it.
    expect(out).toContain("\r\x1b[2K0/3 done; running: a 3s, b 1s");
    expect(out.endsWith("\r\x1b[2Kaccepted a  attempt 0, 1.0s  [1/3]\n1/3 done; running: b 1s")).toBe(true);
    t.v.event(end("b"));
    t.v.event(end("c"));
    t.v.dispose();
    expect(t.take()).toMatch(/\[3\/3\]\n$/); // nothing running: no status line left behind
    t.advance(5000);
    expect(t.take()).toBe("");
  });

  it("cuts a status line wider than the terminal, which could not be redrawn once wrapped", () => {
    const t = view(true, 20);
    t.v.event({ type: "run_start", runId: "r", plan, resumed: false });
    t.v.event(start("a_long_pair_name"));
    expect(t.take().split("\n")[1]).toBe("0/3 done; running:…");
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

  it("show the provider's counts on the status line and a line as they change, until the batch ends", () => {
    const t = view(true);
    t.v.event({ type: "run_start", runId: "r", plan, resumed: false });
    t.v.event(start("a"));
    t.take();
    t.v.event(batch("submitted", 0));
    expect(t.take()).toBe("\r\x1b[2Kbatch    anthropic msgbatch_01: 3 requests submitted\n0/3 done; batch msgbatch_01 0/3 (3 processing); running: a 0s");
    t.v.event(batch("progress", 2));
    expect(t.take()).toBe(
      "\r\x1b[2Kbatch    anthropic msgbatch_01: 2 succeeded, 1 processing of 3\n0/3 done; batch msgbatch_01 2/3 (2 succeeded, 1 processing); running: a 0s",
    );
    t.v.event(batch("ended", 3));
    expect(t.take()).toBe("\r\x1b[2Kbatch    anthropic msgbatch_01 ended: 3 succeeded\n0/3 done; running: a 0s");
  });
});
