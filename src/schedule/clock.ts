/**
 * The time the scheduler reads and the timers it sets, handed to it: the system's in a run, a
 * simulated one in tests, where minutes of paced traffic pass in milliseconds.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once, `ms` from now; the function returned cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** Node timers overflow (and fire at once) beyond this: a longer wait is set again when it ends. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    return () => clearTimeout(timer);
  },
};
