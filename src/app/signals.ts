/**
 * Ctrl-C and SIGTERM during a run: the first starts nothing new and gives pairs in flight a grace
 * period before cancelling them (child processes included); a second SIGINT cancels at once.
 * Either way the run ends through its normal path, so every file it writes stays whole.
 *
 * Without these handlers (outside a run, or once it is over) a signal ends pairflow at once; the
 * registry of process groups (src/processes) then kills every command still running first, as it
 * does whenever pairflow exits.
 */
export interface Interruption {
  /** Aborted on the first signal: start nothing new. */
  stop: AbortSignal;
  /** Aborted when the grace period ends or on a second SIGINT: cancel what is in flight. */
  cancel: AbortSignal;
  /** The signal that stopped the run, if one did. */
  received(): NodeJS.Signals | undefined;
  dispose(): void;
}

export function interruptible(graceMs: number, notice: (message: string) => void): Interruption {
  const stop = new AbortController();
  const cancel = new AbortController();
  let received: NodeJS.Signals | undefined;
  let timer: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received === undefined) {
      received = signal;
      stop.abort();
      notice(
        `${signal}: starting nothing new; pairs in flight have ${Math.round(graceMs / 1000)}s to finish${signal === "SIGINT" ? " (Ctrl-C again to stop now)" : ""}`,
      );
      timer = setTimeout(() => cancel.abort(), graceMs);
      timer.unref();
    } else if (signal === "SIGINT" && !cancel.signal.aborted) {
      notice("SIGINT again: cancelling the pairs in flight now");
      cancel.abort();
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    stop: stop.signal,
    cancel: cancel.signal,
    received: () => received,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      if (timer) clearTimeout(timer);
    },
  };
}

/** 128 + the signal's number, as shells report a process a signal ended. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGTERM" ? 143 : 130;
}
