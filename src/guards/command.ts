/**
 * The command guard: runs guard_config.run with /bin/sh in the workflow's directory, with the
 * variables of guard_config.env added to the environment; exit status 0 accepts. The command finds
 * the artifact at $PAIRFLOW_ARTIFACT. Its exit status is the verdict: 0 accepts, 1 (or the statuses
 * guard_config.reject_exit_codes lists) rejects, and what it printed becomes the feedback; anything
 * else (another status, a signal, a timeout, a program not found, a limit) is a guard error: the
 * guard could not judge, and the pair fails without asking the generator again. In the sandbox it
 * has no network unless guard_config.network is true.
 */
import { GuardConfigError, GuardError, type CommandLimits, type Guard } from "../model/ports.js";
import { CommandStartError, runCommand, type CommandOutcome } from "../processes/children.js";
import { limitMessage } from "../processes/limits.js";
import { LAYER_FAILED } from "../processes/sandbox.js";
import { startCommand } from "../processes/trace.js";
import { optionalBoolean, optionalCount, optionalPositiveNumber, optionalStringMap, requiredString } from "./config.js";
import { feedbackOf, tail } from "./feedback.js";

const DEFAULT_TIMEOUT_SECONDS = 300;
/** Bytes of output kept while the command runs; far more than the feedback needs, bounded all the same. */
const KEEP_BYTES = 64 * 1024;

export const commandGuard: Guard = async (request) => {
  const run = requiredString("command", request.config, "run", 'a shell command, e.g. "npm test"');
  const timeout = optionalPositiveNumber("command", request.config, "timeout", DEFAULT_TIMEOUT_SECONDS);
  const env = optionalStringMap("command", request.config, "env");
  const network = optionalBoolean("command", request.config, "network", false);
  const rejectCodes = exitCodes(request.config.reject_exit_codes);
  const retries = optionalCount("command", request.config, "guard_retries", 0);
  request.signal.throwIfAborted();
  // The workflow's timeout, cut to the limit whoever started pairflow set.
  const seconds = Math.min(timeout, request.limits?.timeSeconds ?? Infinity);

  for (let tries = 0; ; tries++) {
    let outcome;
    try {
      // Confined, it reads the artifact's file, and writes to a layer over the repository that goes
      // with it, where the candidate is at its output path.
      const place = request.place !== undefined && !request.staged ? { candidate: request.artifactPath, at: request.place } : undefined;
      const own = { cwd: request.cwd, readable: [request.artifactPath], network, layer: place ? { place } : {} };
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
    const text = outcome.tail.toString("utf8");
    if (outcome.code === LAYER_FAILED && request.sandbox?.layered) {
      throw new GuardError("guard error: the writable layer over the repository could not be made for the command guard", tail(text));
    }
    // Exit 0 accepts; a rejecting status (1, or reject_exit_codes) rejects, with what it printed.
    if (outcome.code === 0 && outcome.limit === undefined) return { accepted: true, feedback: "" };
    if (outcome.code !== null && rejectCodes.includes(outcome.code) && outcome.limit === undefined && outcome.stopped === undefined) {
      return { accepted: false, feedback: feedbackOf(text) || `exited with status ${outcome.code}` };
    }
    // Anything else is no verdict on the artifact: the guard could not judge. It may be run again
    // (guard_retries); the generator is never asked again for it.
    if (tries < retries) continue;
    throw new GuardError(`guard error: the command guard ${guardErrorCause(outcome, rejectCodes, seconds, request.limits)}`, tail(text));
  }
};

/** The statuses that reject: guard_config.reject_exit_codes, by default 1. */
function exitCodes(value: unknown): number[] {
  if (value === undefined || value === null) return [1];
  const codes = Array.isArray(value) ? value : [value];
  if (codes.length === 0 || !codes.every((c) => typeof c === "number" && Number.isInteger(c) && c >= 1 && c <= 255)) {
    throw new GuardConfigError("the command guard's guard_config.reject_exit_codes must be an exit status from 1 to 255, or a list of them (default: 1)");
  }
  return codes as number[];
}

/** Why a command guard could not judge, in a few words. */
function guardErrorCause(outcome: CommandOutcome, rejectCodes: readonly number[], seconds: number, limits: CommandLimits | undefined): string {
  if (outcome.limit && limits) return `was ${limitMessage(outcome.limit, limits)}`;
  if (outcome.stopped === "timeout") return `timed out after ${seconds}s`;
  if (outcome.code === 127) return "could not find a program it runs (exit status 127: command not found)";
  if (outcome.code === 126) return "could not run a program (exit status 126: not executable)";
  if (outcome.code !== null) {
    const rejects = rejectCodes.length === 1 ? `only ${rejectCodes[0]} rejects` : `only ${rejectCodes.join(", ")} reject`;
    return `exited with status ${outcome.code}, which is neither an acceptance (0) nor a rejection (${rejects}; reject_exit_codes)`;
  }
  return `was killed by ${outcome.signal}`;
}
