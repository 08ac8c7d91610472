/**
 * Reads files as they are at another commit, with the git command-line tool: how `pairflow diff`
 * sees the base's workflow, prompts and lock file without touching the working tree.
 */
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../model/errors.js";

export interface GitRepo {
  /** The repository's top-level directory (a real path). */
  root: string;
  /** The commit a ref names, fetching it from `origin` first when allowed and missing. */
  resolve(ref: string, options?: { fetch?: FetchOptions | boolean }): string;
  /** The path of a file relative to the top level, with forward slashes. */
  relative(file: string): string;
  /** A file's text at a commit, or null when the commit has no such file. */
  read(commit: string, relPath: string): string | null;
}

/**
 * How to fetch a missing ref: `auth` is a token for the server at `server` (the action's), given to
 * that one git process in its environment (never on its command line, never in .git/config), so a
 * checkout made with `persist-credentials: false` still fetches a private repository's base.
 */
export interface FetchOptions {
  auth?: { server: string; token: string };
}

/** A ref this clone does not have; `fetchError` is what git said when fetching it failed. */
export class UnknownRefError extends UsageError {
  constructor(
    message: string,
    readonly ref: string,
    readonly fetchError: string | null,
  ) {
    super(message);
  }
}

/** The repository holding `dir`; `display` names it in messages. */
export function openRepo(dir: string, display = dir): GitRepo {
  const top = git(dir, ["rev-parse", "--show-toplevel"]);
  if (top.error)
    throw new UsageError(`git could not be started (${top.error.message}); pairflow diff reads the base revision with git, so install it or put it on PATH`);
  if (top.status !== 0) throw new UsageError(`${display} is not inside a git repository; pairflow diff reads the base revision with git`);
  const root = realpathSync.native(top.stdout.trim());

  return {
    root,
    resolve(ref, options = {}) {
      if (ref === "" || ref.startsWith("-")) throw new UsageError(`--base "${ref}" is not a git ref; give a branch, tag or commit`);
      let found = revParse(root, ref);
      let fetchError: string | null = null;
      if (found === null && options.fetch) {
        const auth = typeof options.fetch === "object" ? options.fetch.auth : undefined;
        const fetched = git(root, ["fetch", "--no-tags", "--depth=1", "origin", ref], auth && authEnv(auth.server, auth.token));
        if (fetched.status !== 0) fetchError = fetched.error?.message ?? (fetched.stderr.trim() || `git fetch exited with ${fetched.status}`);
        found = revParse(root, ref);
      }
      if (found === null) {
        throw new UnknownRefError(
          `unknown git ref "${ref}" in ${root}; give a branch, tag or commit that exists here (fetch it first, e.g. git fetch origin ${ref})`,
          ref,
          fetchError,
        );
      }
      return found;
    },
    relative(file) {
      return path.relative(root, realpathSync.native(file)).split(path.sep).join("/");
    },
    read(commit, relPath) {
      const spec = `${commit}:${relPath}`;
      if (git(root, ["cat-file", "-t", spec]).stdout.trim() !== "blob") return null;
      const shown = git(root, ["cat-file", "blob", spec]);
      if (shown.status !== 0) throw new UsageError(`cannot read ${spec} with git: ${firstLine(shown.stderr)}`);
      return shown.stdout;
    },
  };
}

function revParse(root: string, ref: string): string | null {
  const r = git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  return r.status === 0 ? r.stdout.trim() : null;
}

/** git's configuration from the environment: an authorization header sent to `server` only. */
export function authEnv(server: string, token: string): NodeJS.ProcessEnv {
  const basic = Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");
  const count = Number(process.env.GIT_CONFIG_COUNT ?? 0) || 0;
  return {
    GIT_CONFIG_COUNT: String(count + 1),
    [`GIT_CONFIG_KEY_${count}`]: `http.${server.replace(/\/+$/, "")}/.extraheader`,
    [`GIT_CONFIG_VALUE_${count}`]: `AUTHORIZATION: basic ${basic}`,
  };
}

function git(cwd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string; error?: Error } {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", maxBuffer: 512 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...extraEnv } });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", error: r.error };
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}
