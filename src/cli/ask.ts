/** Asking the person at the terminal before a run spends anything. */
import { createInterface } from "node:readline";

/** Both ends are a terminal: only then is anybody there to answer. */
export function canAsk(stdin: { isTTY?: boolean } | undefined, stdout: { isTTY?: boolean }): boolean {
  return Boolean(stdin?.isTTY) && Boolean(stdout.isTTY);
}

/**
 * Writes the question and reads one line: "y" or "yes" (any case) is yes; anything else, end of
 * input, or `signal` aborting (Ctrl-C) is no.
 */
export function askYesNo(stdin: NodeJS.ReadableStream, write: (s: string) => void, question: string, signal?: AbortSignal): Promise<boolean> {
  write(question);
  return new Promise((resolve) => {
    const rl = createInterface({ input: stdin, terminal: false });
    let answered = false;
    const onAbort = () => rl.close();
    signal?.addEventListener("abort", onAbort, { once: true });
    rl.once("line", (line) => {
      answered = true;
      rl.close();
      resolve(/^\s*y(es)?\s*$/i.test(line));
    });
    rl.once("close", () => {
      signal?.removeEventListener("abort", onAbort);
      if (answered) return;
      write("\n");
      resolve(false);
    });
  });
}
