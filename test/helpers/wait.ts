import { existsSync, writeFileSync } from "node:fs";
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

/**
 * For a test of a command's timeout: runs `attempt` with a timeout of `seconds`, the command being
 * one that touches a file `ready` in its directory once it has set up what the test is about (the
 * processes it starts, the output it writes) and then outlives any timeout. On a busy machine a
 * short timeout can stop the command before it got that far, which tells nothing: it is then run
 * again with twice the timeout. The timeout is what is tested, not how fast a shell starts.
 */
export async function pastSetup<T>(
  seconds: number,
  attempt: (timeout: number) => Promise<{ cwd: string; result: T }>,
): Promise<{ cwd: string; result: T; timeout: number }> {
  for (let timeout = seconds; ; timeout *= 2) {
    const { cwd, result } = await attempt(timeout);
    if (existsSync(path.join(cwd, "ready"))) return { cwd, result, timeout };
  }
}
