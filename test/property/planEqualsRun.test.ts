/**
 * The rule "plan = run", as a property: on random workflows, after random sequences of the changes
 * people make (prompts, models, guard settings, input files, hand edits, lost outputs, a lost
 * store or lock file, a fresh runner with only the remote store) and random selections, the pairs
 * `pairflow plan` says will run are exactly those `pairflow run` executes, under the same
 * references; outputs hold what the run reports; and right after, nothing is left to run.
 *
 *   PAIRFLOW_PROPERTY_RUNS=1000   sequences to try (default 20, sized for npm test)
 *   PAIRFLOW_PROPERTY_SEED=123    another seed (default fixed, so every run tries the same ones)
 *   PAIRFLOW_PROPERTY_PATH=...    with the seed, replay the counterexample fast-check printed
 *   PAIRFLOW_PROPERTY_SURVEY=1    instead: run every sequence to its end, shrink nothing, and print
 *                                 how often each check failed, with the shortest report of each
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { scenarioArb } from "./scenario.js";
import { runSequence } from "./sequence.js";
import { scaled } from "../helpers/time.js";

const RUNS = Number(process.env.PAIRFLOW_PROPERTY_RUNS ?? 20);
const SEED = Number(process.env.PAIRFLOW_PROPERTY_SEED ?? 20260101);
const PATH = process.env.PAIRFLOW_PROPERTY_PATH;

const SURVEY = process.env.PAIRFLOW_PROPERTY_SURVEY === "1";

describe("plan = run", () => {
  it.skipIf(SURVEY)(`holds over ${RUNS} random workflows and sequences of changes`, { timeout: scaled(30 * 60_000) }, async () => {
    delete process.env.PAIRFLOW_STATE_DIR; // the state directory is the default one, inside each repository
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        await runSequence(scenario);
      }),
      { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: false, verbose: 0 },
    );
  });

  it.runIf(SURVEY)(`survey: which checks fail over ${RUNS} sequences`, { timeout: scaled(60 * 60_000) }, async () => {
    delete process.env.PAIRFLOW_STATE_DIR;
    const started = Date.now();
    const byCheck = new Map<string, { sequences: number; shortest: string }>();
    const scenarios = fc.sample(scenarioArb, { numRuns: RUNS, seed: SEED });
    let failing = 0;
    for (const scenario of scenarios) {
      const failures = await runSequence(scenario, { keepGoing: true });
      if (failures.length > 0) failing++;
      const seen = new Set<string>();
      for (const f of failures) {
        for (const check of f.checks.map((c) => c.replace(/ \(.*$/, "").replace(/: \d+ pairs? differ$/, ""))) {
          const entry = byCheck.get(check) ?? { sequences: 0, shortest: f.report };
          if (!seen.has(check)) entry.sequences++;
          seen.add(check);
          if (f.report.length < entry.shortest.length) entry.shortest = f.report;
          byCheck.set(check, entry);
        }
      }
    }
    const lines = [`${RUNS} sequences in ${((Date.now() - started) / 1000).toFixed(1)} s; ${failing} with a failing step`];
    for (const [check, { sequences, shortest }] of [...byCheck].sort((a, b) => b[1].sequences - a[1].sequences)) {
      lines.push("", `== ${check}: in ${sequences} sequences; the shortest report:`, shortest);
    }
    console.log(lines.join("\n"));
  });
});
