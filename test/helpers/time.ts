/**
 * The one factor every time budget in the tests is scaled by. A test waits for events, never for
 * time; what budgets remain (test timeouts, an upper bound on a wait, a run's own waiting period)
 * only decide when a test that hangs is given up on. A machine shared with other work, or slower
 * than most, sets PAIRFLOW_TEST_TIME_FACTOR (default 1) to give them all more room at once.
 */
export const TIME_FACTOR = factor(process.env.PAIRFLOW_TEST_TIME_FACTOR);

function factor(text: string | undefined): number {
  if (text === undefined || text.trim() === "") return 1;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`PAIRFLOW_TEST_TIME_FACTOR=${text}: expected a number greater than 0, e.g. 3`);
  return value;
}

/** A time budget in milliseconds, scaled by PAIRFLOW_TEST_TIME_FACTOR. */
export function scaled(ms: number): number {
  return Math.ceil(ms * TIME_FACTOR);
}

/** A time budget in whole seconds (for a command-line flag), scaled by PAIRFLOW_TEST_TIME_FACTOR. */
export function scaledSeconds(seconds: number): number {
  return Math.ceil(seconds * TIME_FACTOR);
}
