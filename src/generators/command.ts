/**
 * The `command` generator: a shell command that reads the prompt and prints the artifact.
 * The prompt travels on stdin and in a file, never on the command line, so it cannot inject shell code.
 * generator_config.env adds variables to the command's environment. The dependencies' accepted
 * artifacts are also files, one per pair id, in the directory PAIRFLOW_DEPENDENCIES_DIR names.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { GeneratorError, type Generator, type GenerateRequest, type GenerateResult } from "../model/ports.js";

const DEFAULT_TIMEOUT_SECONDS = 600;
/** Time between SIGTERM and SIGKILL when stopping a command. */
const KILL_GRACE_MS = 2000;
/** How much of stderr is kept while the command runs; only the tail is ever shown. */
const STDERR_KEEP_CHARS = 64 * 1024;
const TAIL_LINES = 20;
const TAIL_CHARS = 2000;
/** Node timers overflow (and fire at once) beyond this. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const commandGenerator: Generator = async (request) => {
  const run = request.config.run;
  if (typeof run !== "string" || run.trim() === "") {
    throw new GeneratorError("command: set generator_config.run to the shell command that prints the artifact");
  }
  const timeout = request.config.timeout ?? DEFAULT_TIMEOUT_SECONDS;
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) {
    throw new GeneratorError("command: generator_config.timeout must be a number of seconds > 0");
  }
  const env = request.config.env ?? {};
  if (typeof env !== "object" || env === null || Array.isArray(env) || !Object.values(env).every((v) => typeof v === "string")) {
    throw new GeneratorError("command: generator_config.env must map variable names to strings");
  }
  if (request.signal.aborted) throw new GeneratorError("command: cancelled");

  const dir = await mkdtemp(path.join(tmpdir(), "pairflow-prompt-"));
  try {
    const promptFile = path.join(dir, "prompt.txt");
    await writeFile(promptFile, request.prompt, { mode: 0o600 });
    // The dependencies' accepted artifacts, one file each, named by pair id (see docs/prompts.md).
    const dependencies = path.join(dir, "dependencies");
    await mkdir(dependencies, { mode: 0o700 });
    for (const dep of request.dependencies ?? []) await writeFile(path.join(dependencies, dependencyFileName(dep.id)), dep.content, { mode: 0o600 });
    return await runCommand(run, timeout, promptFile, { ...(env as Record<string, string>), PAIRFLOW_DEPENDENCIES_DIR: dependencies }, request);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/**
 * A dependency's file name in PAIRFLOW_DEPENDENCIES_DIR: its pair id, with every character other
 * than letters, digits, "_", "-" and "." percent-encoded as in a URL (so `translate[docs/a.md]` is
 * `translate%5Bdocs%2Fa.md%5D`), and "." and ".." encoded whole.
 */
export function dependencyFileName(id: string): string {
  const name = [...id]
    .map((c) => (/^[A-Za-z0-9_.-]$/.test(c) ? c : [...Buffer.from(c, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("")))
    .join("");
  return name === "." || name === ".." ? name.replaceAll(".", "%2E") : name;
}

function runCommand(run: string, timeoutSeconds: number, promptFile: string, env: Record<string, string>, request: GenerateRequest): Promise<GenerateResult> {
  return new Promise((resolve, reject) => {
    // detached: the command gets its own process group, so stopping it also stops what it started.
    const child = spawn("/bin/sh", ["-c", run], {
      cwd: request.cwd,
      // generator_config.env is part of the pair's reference; pairflow's own variables come last.
      env: {
        ...request.env,
        ...env,
        PAIRFLOW_PAIR: request.pairId,
        PAIRFLOW_ATTEMPT: String(request.attempt),
        PAIRFLOW_MODEL: request.model ?? "",
        PAIRFLOW_PROMPT_FILE: promptFile,
      },
      detached: true,
      stdio: "pipe",
    });

    const stdout: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP_CHARS);
    });
    // A command may exit without reading its stdin; the EPIPE that follows is no failure.
    child.stdin.on("error", () => {});
    child.stdin.end(request.prompt);

    let stopReason: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // the group is already gone
      }
    };
    const stop = (reason: string) => {
      if (stopReason !== undefined) return;
      stopReason = reason;
      signalGroup("SIGTERM");
      killTimer = setTimeout(() => {
        signalGroup("SIGKILL");
        // A process that left the group may still hold the pipes open; stop waiting for it.
        child.stdout.destroy();
        child.stderr.destroy();
      }, KILL_GRACE_MS);
    };
    const timeoutMs = Math.min(timeoutSeconds * 1000, MAX_TIMER_MS);
    const timer = setTimeout(() => stop(`timed out after ${timeoutSeconds}s`), timeoutMs);
    const onAbort = () => stop("cancelled");
    request.signal.addEventListener("abort", onAbort, { once: true });

    let settled = false;
    const finish = (error: GeneratorError | undefined, result?: GenerateResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal.removeEventListener("abort", onAbort);
      // Keep the SIGKILL pending only while something in the group still runs.
      if (killTimer !== undefined && !groupAlive(child.pid)) clearTimeout(killTimer);
      if (error) reject(error);
      else resolve(result!);
    };

    child.on("error", (error) => {
      finish(new GeneratorError(`command: could not start /bin/sh in ${request.cwd}: ${error.message}`));
    });
    child.on("close", (code, signal) => {
      const tail = stderrTail(stderr);
      const withTail = (reason: string) => new GeneratorError(`command: ${reason}${tail ? `; stderr:\n${tail}` : ""}`);
      if (stopReason !== undefined) finish(withTail(stopReason));
      else if (code === 0) finish(undefined, { content: Buffer.concat(stdout).toString("utf8"), ...(tail ? { stderr: tail } : {}) });
      else if (code !== null) finish(withTail(`exited with code ${code}`));
      else finish(withTail(`killed by ${signal}`));
    });
  });
}

function groupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The last lines of stderr, short enough to show in a log line or a job summary. */
export function stderrTail(stderr: string): string {
  const tail = stderr.trimEnd().split("\n").slice(-TAIL_LINES).join("\n");
  return tail.length > TAIL_CHARS ? `…${tail.slice(-TAIL_CHARS)}` : tail;
}
