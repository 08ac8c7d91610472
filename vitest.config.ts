import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The package and the action the end-to-end tests run, built from the sources first.
    globalSetup: ["test/setup/package.ts"],
    testTimeout: 30_000,
    // Most test time is spent waiting (child processes, signals, a client's backoff), not computing:
    // more workers than the two cores CI has keep both busy. The default would be one.
    maxWorkers: 4,
  },
});
