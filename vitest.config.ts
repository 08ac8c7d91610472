import { defineConfig } from "vitest/config";
import LongestFirst from "./test/setup/sequencer.js";
import { scaled } from "./test/helpers/time.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The package and the action the end-to-end tests run, built from the sources first.
    globalSetup: ["test/setup/package.ts"],
    // PAIRFLOW_TEST_CPU=<file>: each test file's processor time, its processes' included (test/setup/cpu.ts).
    setupFiles: process.env.PAIRFLOW_TEST_CPU ? ["test/setup/cpu.ts"] : [],
    // Tests wait for events, not for time: these only decide when a test that hangs is given up on.
    // PAIRFLOW_TEST_TIME_FACTOR scales them, and every budget a test sets itself (test/helpers/time.ts).
    testTimeout: scaled(30_000),
    hookTimeout: scaled(30_000),
    // Much of the test time is spent waiting (child processes, signals, a client's backoff), not
    // computing: more workers than the two cores CI has keep both busy. With four, the files that
    // wait out a client's backoff for half a minute (started first, test/setup/sequencer.ts) held
    // three of them, and a third of both cores was idle for the first 40 s; with six, none is.
    maxWorkers: 6,
    // The test files of a worker share its loaded modules instead of loading src/ again for each
    // file, a third of the in-process tests' time. No test file may rely on a fresh process: what
    // one changes in process.env or a module's state it puts back.
    isolate: false,
    // The longest files first, also where Vitest has no record of an earlier run (test/setup/sequencer.ts).
    sequence: { sequencer: LongestFirst },
  },
});
