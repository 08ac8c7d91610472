/**
 * A trace read back gives every attempt and outcome the run recorder was given, whatever fields
 * it leaves out of a line (no feedback, no tokens, no note).
 */
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AttemptRecord, PairOutcome } from "../../src/model/run.js";
import { outcomesFromTrace, readRun } from "../../src/records/read.js";
import { RunRecorder } from "../../src/records/write.js";
import { tempRepo } from "../helpers/fixtures.js";
import { planOf } from "../helpers/state.js";

const RUN = "20260101T000000000Z-0001";

describe("the trace", () => {
  it("reads back each pair's attempts and outcome as they were recorded", async () => {
    const dir = tempRepo({ "workflow.yml": "name: r\ngenerator: command\ngenerator_config: {run: echo hi}\naction_pairs:\n  a: {rmax: 9}\n" });
    const { plan } = await planOf(dir, { cwd: dir });
    const attempt = fc.record({
      accepted: fc.boolean(),
      feedback: fc.oneof(fc.constant(""), fc.string()),
      tokens: fc.oneof(fc.constant(null), fc.record({ input: fc.nat(), output: fc.nat() })),
      durationMs: fc.nat(),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(attempt, { minLength: 1, maxLength: 4 }), fc.option(fc.string(), { nil: null }), async (attempts, note) => {
        const stateDir = path.join(dir, `.pairflow-${run++}`);
        const recorder = new RunRecorder(stateDir, {}, () => {});
        recorder.record({ type: "run_start", runId: RUN, plan, resumed: false });
        recorder.record({ type: "pair_start", id: "a", configRef: "a".repeat(64), reasons: [] });
        const made: AttemptRecord[] = attempts.map((a, i) => ({ attempt: i + 1, ...a }));
        for (const a of made) {
          recorder.record({ type: "attempt_start", id: "a", attempt: a.attempt });
          recorder.record({ type: "attempt_end", id: "a", of: 10, ...a });
        }
        const outcome: PairOutcome = {
          id: "a",
          configRef: "a".repeat(64),
          status: "failed",
          attempts: made,
          contentHash: null,
          reasons: [],
          durationMs: 5,
          note,
        };
        recorder.record({ type: "pair_end", outcome });
        expect(outcomesFromTrace(readRun(stateDir, RUN).events).get("a")).toEqual(outcome);
      }),
      { numRuns: 100 },
    );
  });
});
