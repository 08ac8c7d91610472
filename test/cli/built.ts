/** The command line of the installed package (test/setup/package.ts), run as a user runs it: a child process. */
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { REPO } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";

export { CLI };

export interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `pairflow ARGS` in `cwd`, no color, with the environment of the tests less pairflow's own variables.
 * With `stderrFile`, its stderr goes to that file as it writes it (a command it runs can read it there).
 */
export function pairflow(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; cli?: string; stderrFile?: string } = {}): Result {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...options.env };
  delete env.PAIRFLOW_STATE_DIR;
  delete env.CI;
  const stderr = options.stderrFile === undefined ? "pipe" : openSync(options.stderrFile, "w");
  try {
    const r = spawnSync(process.execPath, [options.cli ?? CLI, ...args], { cwd: options.cwd ?? REPO, env, encoding: "utf8", stdio: ["pipe", "pipe", stderr] });
    return { status: r.status, stdout: r.stdout, stderr: typeof stderr === "number" ? readFileSync(options.stderrFile!, "utf8") : r.stderr };
  } finally {
    if (typeof stderr === "number") closeSync(stderr);
  }
}
