/** What every command gets: where to write, where it runs, and how to set the exit status. */
import { statSync } from "node:fs";
import path from "node:path";
import { InvalidArgumentError, Option, type Command } from "commander";
import { UsageError } from "../model/errors.js";
import { findRepoRoot } from "../workspace/load.js";

/** Where a command writes: a stream, or anything with a write (tests). */
export interface Output {
  write(s: string): unknown;
  isTTY?: boolean;
  /** A terminal's width. */
  columns?: number;
  /** A stream's events: with them, a long output waits for "drain" whenever write says its buffer is full. */
  once?(event: "drain" | "error" | "close", listener: () => void): unknown;
  off?(event: "drain" | "error" | "close", listener: () => void): unknown;
}

export interface Io {
  stdout: Output;
  stderr: { write(s: string): unknown; isTTY?: boolean };
  /** Standard input, for commands that ask a question; absent when there is none. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The width reports are cut to: the terminal's, and none where the output is not one (a file, a pipe, a log). */
export function terminalColumns(out: Output): number | undefined {
  return out.isTTY ? out.columns : undefined;
}

/** `changes`: `plan --check` found pairs that would run or outputs that are stale. */
export const EXIT = { ok: 0, failed: 1, usage: 2, changes: 3 } as const;

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
 * Before a command that keeps state runs: its state directory must be a directory, or a path where
 * one can be made. A file there (or on the way) is a usage error naming it, before anything is
 * written. The default, .pairflow/ at the repository root, is checked from where the command runs.
 */
export function checkStateDir(command: Command, io: Pick<Io, "cwd" | "env">): void {
  if (!command.options.some((o) => o.attributeName() === "stateDir")) return;
  const given = (command.opts() as { stateDir?: string }).stateDir ?? io.env.PAIRFLOW_STATE_DIR;
  const dir = given ? path.resolve(io.cwd, given) : path.join(findRepoRoot(io.cwd), ".pairflow");
  const problem = stateDirProblem(dir);
  if (problem === undefined) return;
  if (given) throw new UsageError(`--state-dir ${given}: ${problem}; give a directory (it is made when missing)`);
  throw new UsageError(`${dir}, the default state directory, ${problem}; remove it, or give --state-dir`);
}

/** Why dir cannot be a state directory, or undefined when it is one or can be made. */
export function stateDirProblem(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(d).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === "ENOENT" || code === "ENOTDIR") && path.dirname(d) !== d) continue;
      return `cannot be used (${code ?? (err as Error).message})`;
    }
    if (isDirectory) return undefined;
    return d === dir ? "is a file, not a directory" : `is under ${d}, which is a file, not a directory`;
  }
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

/**
 * Writes the pieces in turn, waiting whenever the stream's buffer is full: written to a pipe read
 * more slowly than pairflow writes (`plan --json | jq`), a long output is otherwise queued whole in
 * memory (170 MB more at 50,000 pairs). A stream that fails or closes ends the wait.
 */
export async function writePieces(out: Output, pieces: Iterable<string>): Promise<void> {
  for (const piece of pieces) {
    if (out.write(piece) !== false || out.once === undefined) continue;
    await new Promise<void>((resolve) => {
      const done = () => {
        for (const event of ["drain", "error", "close"] as const) out.off?.(event, done);
        resolve();
      };
      for (const event of ["drain", "error", "close"] as const) out.once!(event, done);
    });
  }
}
