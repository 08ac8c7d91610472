/** The command line of the installed package (test/setup/package.ts), run as a user runs it: a child process. */
import { spawnSync } from "node:child_process";
import { REPO } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";

export { CLI };

export interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `pairflow ARGS` in `cwd`, no color, with the environment of the tests less pairflow's own variables. */
export function pairflow(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; cli?: string } = {}): Result {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...options.env };
  delete env.PAIRFLOW_STATE_DIR;
  delete env.CI;
  const r = spawnSync(process.execPath, [options.cli ?? CLI, ...args], { cwd: options.cwd ?? REPO, env, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
