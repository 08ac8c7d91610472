/**
 * The command guard: runs guard_config.run with /bin/sh in the workflow's directory, with the
 * variables of guard_config.env added to the environment; exit status 0 accepts. The command finds
 * the artifact at $PAIRFLOW_ARTIFACT, and its output becomes the feedback.
 */
import { spawn } from "node:child_process";
import { GuardConfigError, type Guard } from "../model/ports.js";
import { optionalPositiveNumber, optionalStringMap, requiredString } from "./config.js";

const DEFAULT_TIMEOUT_SECONDS = 300;
/** Grace between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;
/** Feedback keeps the end of the output, where test runners and compilers put their verdict. */
const FEEDBACK_LINES = 40;
const FEEDBACK_CHARS = 4000;
/** Bytes of output kept while the command runs; far more than the feedback needs, bounded all the same. */
const KEEP_BYTES = 64 * 1024;

export const commandGuard: Guard = async (request) => {
  const run = requiredString("command", request.config, "run", 'a shell command, e.g. "npm test"');
  const timeout = optionalPositiveNumber("command", request.config, "timeout", DEFAULT_TIMEOUT_SECONDS);
  const env = optionalStringMap("command", request.config, "env");
  request.signal.throwIfAborted();

  const outcome = await runShell(run, {
    cwd: request.cwd,
    // guard_config.env is part of the pair's reference; pairflow's own variables come last.
    env: { ...request.env, ...env, PAIRFLOW_ARTIFACT: request.artifactPath, PAIRFLOW_PAIR: request.pairId },
    timeoutMs: timeout * 1000,
    signal: request.signal,
  });
  const output = tail(outcome.output);
  if (outcome.timedOut) {
    return { accepted: false, feedback: output ? `timed out after ${timeout}s; last output:\n${output}` : `timed out after ${timeout}s` };
  }
  if (outcome.code === 0) return { accepted: true, feedback: "" };
  const status = outcome.code !== null ? `exited with status ${outcome.code}` : `was killed by ${outcome.signal}`;
  return { accepted: false, feedback: output || status };
};

interface Outcome {
  timedOut: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

function runShell(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; signal: AbortSignal }): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    // detached: the shell leads its own process group, so a timeout or cancel can kill everything it started.
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = new OutputTail();
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));

    let stopping: "timeout" | "abort" | undefined;
    const stop = (why: "timeout" | "abort") => {
      if (stopping) return;
      stopping = why;
      killGroup(child.pid, "SIGTERM");
      setTimeout(() => killGroup(child.pid, "SIGKILL"), KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = () => stop("abort");
    options.signal.addEventListener("abort", onAbort, { once: true });
    const cleanUp = () => {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
    };

    // Background processes left by a finished command would hold the output pipes open (and so the
    // run) until they end; the check is over, so they go.
    child.on("exit", () => {
      if (!stopping) killGroup(child.pid, "SIGKILL");
    });
    child.on("error", (err) => {
      cleanUp();
      reject(new GuardConfigError(`the command guard could not start /bin/sh in ${options.cwd}: ${err.message}`));
    });
    child.on("close", (code, signal) => {
      cleanUp();
      if (stopping === "abort") reject(options.signal.reason ?? new Error("cancelled"));
      else resolve({ timedOut: stopping === "timeout", code, signal, output: output.text() });
    });
  });
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** The last KEEP_BYTES or so of what the command wrote to stdout and stderr, in arrival order. */
class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= KEEP_BYTES) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** The end of the output, at most FEEDBACK_LINES lines and FEEDBACK_CHARS characters; "" when it is blank. */
export function tail(output: string): string {
  const trimmed = output.replace(/\s+$/, "");
  if (trimmed.trim() === "") return "";
  const lines = trimmed.split("\n");
  let text = lines.slice(-FEEDBACK_LINES).join("\n");
  let cut = lines.length > FEEDBACK_LINES;
  if (text.length > FEEDBACK_CHARS) {
    text = text.slice(-FEEDBACK_CHARS);
    cut = true;
  }
  return cut ? `[earlier output omitted]\n${text}` : text;
}
