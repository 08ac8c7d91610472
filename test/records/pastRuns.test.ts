/**
 * Past runs for an estimate are read only for the pairs that will execute. Asking for some pairs
 * gives exactly what reading everything and keeping those pairs gives, whatever the ids and the
 * text around them (quotes, backslashes, a feedback that looks like another pair's event).
 */
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/model/run.js";
import { readRunSamples } from "../../src/records/pastRuns.js";
import { RunRecorder } from "../../src/records/write.js";
import { tempRepo } from "../helpers/fixtures.js";
import { planOf } from "../helpers/state.js";

/** Ids as a fan-out makes them from file names, and text meant to confuse a reader that does not parse. */
const ID = fc.oneof(
  fc.constantFrom("a", "b", "c-1", 'tr["x"]', "tr[\\]", 'tr[docs/"id":"a".md]', "tr[日本]"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 6 }),
);
const FEEDBACK = fc.oneof(fc.constantFrom('"id":"a"', '{"id":"b"}', "\\", ""), fc.string({ maxLength: 12 }));

describe("past runs of some pairs", () => {
  it("are those of reading every pair, kept to the pairs asked for", async () => {
    const dir = tempRepo({ "workflow.yml": "name: r\ngenerator: command\ngenerator_config: {run: echo hi}\naction_pairs:\n  a: {}\n" });
    const { plan } = await planOf(dir, { cwd: dir });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ id: ID, attempts: fc.array(fc.tuple(fc.boolean(), FEEDBACK, fc.nat(5000)), { minLength: 1, maxLength: 3 }), executed: fc.boolean() }),
          {
            maxLength: 8,
          },
        ),
        fc.array(ID, { maxLength: 4 }),
        async (pairs, asked) => {
          const stateDir = path.join(dir, `state-${run}`);
          const recorder = new RunRecorder(stateDir, {}, () => {});
          recorder.record({ type: "run_start", runId: `20260101T000000000Z-${String(run++).padStart(4, "0")}`, plan, resumed: false });
          for (const p of pairs) {
            recorder.record({ type: "pair_start", id: p.id, configRef: "a".repeat(64), reasons: [] });
            p.attempts.forEach(([accepted, feedback, output], i) => {
              recorder.record({ type: "attempt_start", id: p.id, attempt: i + 1 });
              const tokens = { input: 1, output, cached: 0 };
              recorder.record({ type: "attempt_end", id: p.id, attempt: i + 1, of: 3, accepted, feedback, tokens, durationMs: 1 });
            });
            const outcome = {
              id: p.id,
              configRef: "a".repeat(64),
              status: p.executed ? "executed" : "failed",
              attempts: [],
              contentHash: null,
              reasons: [],
              durationMs: 1,
              note: null,
            };
            recorder.record({ type: "pair_end", outcome } as RunEvent);
          }
          const wanted = new Set(asked);
          const all = readRunSamples(stateDir);
          const some = readRunSamples(stateDir, undefined, wanted);
          expect(new Map([...all].filter(([id]) => wanted.has(id)))).toEqual(some);
          // Not vacuous: the pairs asked for whose last end was executed are found.
          const last = new Map(pairs.map((p) => [p.id, p.executed]));
          for (const [id, executed] of last) if (executed && wanted.has(id)) expect(some.has(id)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
