import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCli } from "../../src/cli/program.js";
import { copySources, writeFiles } from "../helpers/fixtures.js";

/** git in a test repository, untouched by the machine's own git configuration. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Test",
      GIT_AUTHOR_EMAIL: "test@example.com",
      GIT_COMMITTER_NAME: "Test",
      GIT_COMMITTER_EMAIL: "test@example.com",
    },
  }).trim();
}

/** A real git repository (branch main) in a fresh temporary directory, with the given files committed. */
export function gitRepo(files: Record<string, string> = {}, copyFrom?: { source: string; into: string }): string {
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-git-"));
  git(dir, "init", "-q", "-b", "main");
  if (copyFrom) copySources(copyFrom.source, path.join(dir, copyFrom.into));
  writeFiles(dir, { ".gitignore": ".pairflow/\n", ...files });
  commitAll(dir, "base");
  return dir;
}

export function commitAll(dir: string, message: string): string {
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", message);
  return git(dir, "rev-parse", "HEAD");
}

export function removeFiles(dir: string, ...names: string[]): void {
  for (const name of names) rmSync(path.join(dir, name), { force: true });
}

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export async function cli(args: string[], cwd: string): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const status = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    cwd,
    // No PATH: the commands these runs start are plain ones, unconfined as without bubblewrap.
    env: { PAIRFLOW_SANDBOX: "off" },
  });
  return { status, stdout, stderr };
}
