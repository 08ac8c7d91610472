/**
 * What resuming an interrupted run carries over, from the trace the run recorder writes: the
 * attempts already spent, never an accepted attempt whose acceptance was not recorded, and all of
 * them however often the run was interrupted.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/model/run.js";
import { readRun, resumeState } from "../../src/records/read.js";
import { RunRecorder } from "../../src/records/write.js";
import { tempRepo } from "../helpers/fixtures.js";
import { planOf } from "../helpers/state.js";

const REF = "a".repeat(64);

async function recorded(segments: RunEvent[][]) {
  const dir = tempRepo({ "workflow.yml": "name: r\ngenerator: command\ngenerator_config: {run: echo hi}\naction_pairs:\n  a: {rmax: 2}\n" });
  const { plan } = await planOf(dir, { cwd: dir });
  const stateDir = path.join(dir, ".pairflow");
  // Each segment is one process: the first run, then each resume, killed where the segment ends.
  segments.forEach((events, i) => {
    const recorder = new RunRecorder(stateDir, {}, () => {});
    recorder.record({ type: "run_start", runId: "20260101T000000000Z-0001", plan, resumed: i > 0 });
    for (const e of events) recorder.record(e);
  });
  return resumeState(readRun(stateDir, "20260101T000000000Z-0001").events);
}

const start = (): RunEvent => ({ type: "pair_start", id: "a", configRef: REF, reasons: [] });
const attempt = (n: number, accepted: boolean): RunEvent[] => [
  { type: "attempt_start", id: "a", attempt: n },
  { type: "attempt_end", id: "a", attempt: n, of: 3, accepted, feedback: accepted ? "" : `feedback ${n}`, tokens: null, durationMs: 1 },
];

describe("resuming an interrupted run", () => {
  it("makes again an accepted attempt whose acceptance was never recorded, instead of counting it spent", async () => {
    const state = await recorded([[start(), ...attempt(1, false), ...attempt(2, true)]]);
    expect(state.attempts.get("a")!.attempts.map((a) => [a.attempt, a.accepted, a.feedback])).toEqual([[1, false, "feedback 1"]]);
    expect(state.finished.has("a")).toBe(false);
  });

  it("keeps every earlier attempt and its feedback across a second interruption", async () => {
    const state = await recorded([
      [start(), ...attempt(1, false)],
      [start(), ...attempt(2, false)],
    ]);
    expect(state.attempts.get("a")!.attempts.map((a) => [a.attempt, a.feedback])).toEqual([
      [1, "feedback 1"],
      [2, "feedback 2"],
    ]);
  });
});
