/** What every command gets: where to write, where it runs, and how to set the exit status. */
import { InvalidArgumentError, Option } from "commander";

export interface Io {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  /** Standard input, for commands that ask a question; absent when there is none. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export interface CliContext {
  io: Io;
  setStatus(status: number): void;
}

export const PATH_HELP = "a workflow file, or a directory holding workflow.yml|yaml|json (default: .)";

export function examples(lines: string[]): string {
  return "\nExamples:\n" + lines.map((l) => `  $ ${l}`).join("\n") + "\n";
}

export function stateDirOption(): Option {
  return new Option("--state-dir <dir>", "where run records and the local store live (default: .pairflow/ at the repository root)").env("PAIRFLOW_STATE_DIR");
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a whole number of at least 1");
  return n;
}

/**
 * `--only a,b` or a repeated `--only a --only b`: one value per occurrence, so that a path after
 * it stays the command's argument (`run --only g_impl examples/tdd-stack`).
 */
export function onlyOption(description: string): Option {
  return new Option("--only <ids>", `${description}; comma-separated, or repeat the option`).argParser((value: string, previous: string[] | undefined) => {
    const ids = value
      .split(",")
      .map((id) => id.trim())
      .filter((id) => id !== "");
    if (ids.length === 0) throw new InvalidArgumentError("expected one or more pair ids, such as g_impl or g_test,g_impl");
    return [...(previous ?? []), ...ids];
  });
}
