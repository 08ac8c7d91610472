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
