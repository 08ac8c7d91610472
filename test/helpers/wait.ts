import { writeFileSync } from "node:fs";
import path from "node:path";

/** A child process as far as waiting on it goes: running while it has neither exit code nor signal. */
interface Child {
  exitCode: number | null;
  signalCode: NodeJS.Signals | null;
}

/**
 * Waits until `check` holds, for as long as the test may take: a test waits for an event, never
 * for an amount of time. Given the process that is to make it hold, a process that ends first
 * fails the wait at once, with what it wrote to stderr when `err` gives it.
 */
export async function until(check: () => boolean, what: string, run?: Child & { err?: () => string }): Promise<void> {
  while (!check()) {
    if (run && (run.exitCode !== null || run.signalCode !== null) && !check()) {
      throw new Error(`the process ended (${run.exitCode ?? run.signalCode}) before ${what}${run.err ? `:\n${run.err()}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Lets a held generator call answer. The generator scripts in the tests hold a call by waiting
 * for a file `release.<name>` in their working directory, so a test acts while the call is in
 * flight for sure, rather than hoping a delay outlasts what it does.
 */
export function release(dir: string, name: string): void {
  writeFileSync(path.join(dir, `release.${name}`), "");
}
