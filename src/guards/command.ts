/**
 * The command guard: runs guard_config.run with /bin/sh in the workflow's directory, with the
 * variables of guard_config.env added to the environment; exit status 0 accepts. The command finds
 * the artifact at $PAIRFLOW_ARTIFACT, and its output becomes the feedback. In the sandbox it has no
 * network unless guard_config.network is true.
 */
import { GuardConfigError, type Guard } from "../model/ports.js";
import { CommandStartError, runCommand } from "../processes/children.js";
import { limitMessage } from "../processes/limits.js";
import { startCommand } from "../processes/trace.js";
import { optionalBoolean, optionalPositiveNumber, optionalStringMap, requiredString } from "./config.js";

const DEFAULT_TIMEOUT_SECONDS = 300;
/** Feedback keeps the end of the output, where test runners and compilers put their verdict. */
const FEEDBACK_LINES = 40;
const FEEDBACK_CHARS = 4000;
/** Bytes of output kept while the command runs; far more than the feedback needs, bounded all the same. */
const KEEP_BYTES = 64 * 1024;

export const commandGuard: Guard = async (request) => {
  const run = requiredString("command", request.config, "run", 'a shell command, e.g. "npm test"');
  const timeout = optionalPositiveNumber("command", request.config, "timeout", DEFAULT_TIMEOUT_SECONDS);
  const env = optionalStringMap("command", request.config, "env");
  const network = optionalBoolean("command", request.config, "network", false);
  request.signal.throwIfAborted();
  // The workflow's timeout, cut to the limit whoever started pairflow set.
  const seconds = Math.min(timeout, request.limits?.timeSeconds ?? Infinity);

  let outcome;
  try {
    // Confined, it reads the artifact's file and nothing else it could write.
    const own = { cwd: request.cwd, readable: [request.artifactPath], network };
    outcome = await startCommand(request, own, (start) =>
      runCommand({
        command: run,
        cwd: request.cwd,
        // guard_config.env is part of the pair's reference; pairflow's own variables come last.
        env: { ...request.env, ...env, PAIRFLOW_ARTIFACT: request.artifactPath, PAIRFLOW_PAIR: request.pairId },
        timeoutMs: seconds * 1000,
        signal: request.signal,
        collectStdout: false,
        tailBytes: KEEP_BYTES,
        onStart: request.onProcess,
        ...start,
      }),
    );
  } catch (err) {
    if (err instanceof CommandStartError) throw new GuardConfigError(`the command guard ${err.message}`);
    throw err;
  }
  if (outcome.stopped === "abort") throw request.signal.reason ?? new Error("cancelled");
  const output = tail(outcome.tail.toString("utf8"));
  // A limit is no verdict on the artifact: the pair fails, saying which.
  if (outcome.limit && request.limits)
    throw new GuardConfigError(`the command guard was ${limitMessage(outcome.limit, request.limits)}${output ? `; last output:\n${output}` : ""}`);
  if (outcome.stopped === "timeout") {
    return { accepted: false, feedback: output ? `timed out after ${seconds}s; last output:\n${output}` : `timed out after ${seconds}s` };
  }
  if (outcome.code === 0) return { accepted: true, feedback: "" };
  const status = outcome.code !== null ? `exited with status ${outcome.code}` : `was killed by ${outcome.signal}`;
  return { accepted: false, feedback: output || status };
};

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
