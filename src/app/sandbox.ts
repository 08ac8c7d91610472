/**
 * Whether a run's commands run confined (src/processes/sandbox.ts), chosen once per run:
 *
 * - `auto` (the default): in the sandbox where bubblewrap works; otherwise unconfined, and the run
 *   says so once, plainly.
 * - `required`: in the sandbox, or the run refuses to start.
 * - `off`: unconfined.
 *
 * The mode comes from whoever starts pairflow (`--sandbox`, the action's `sandbox` input, or
 * PAIRFLOW_SANDBOX), never from the workflow file: a pull request could change that file.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { UsageError } from "../model/errors.js";
import type { Sandbox } from "../model/ports.js";
import type { Plan } from "../model/plan.js";
import type { Pair } from "../model/workflow.js";
import type { SandboxState } from "../model/run.js";
import { bubblewrap, gitConfigFiles, probeLayer, probeSandbox, runnerDirectories, SANDBOX_MODES, toolHomes, type SandboxMode } from "../processes/sandbox.js";

export const SANDBOX_VARIABLE = "PAIRFLOW_SANDBOX";

/** The sandbox is required and cannot be had here: nothing was executed. */
export class SandboxUnavailableError extends UsageError {
  override name = "SandboxUnavailableError";
}

export interface SandboxChoice {
  state: SandboxState;
  /** Present when commands run confined. */
  sandbox?: Sandbox;
}

/** The mode asked for: the caller's, else PAIRFLOW_SANDBOX, else auto. */
export function sandboxMode(asked: string | undefined, env: NodeJS.ProcessEnv): SandboxMode {
  const mode = asked ?? env[SANDBOX_VARIABLE] ?? "auto";
  if ((SANDBOX_MODES as readonly string[]).includes(mode)) return mode as SandboxMode;
  const where = asked !== undefined ? "the sandbox mode" : SANDBOX_VARIABLE;
  throw new UsageError(`${where} is "${mode}"; expected one of: ${SANDBOX_MODES.join(", ")}`);
}

/** The pairs this plan runs. */
function pairsToRun(plan: Plan): Pair[] {
  return plan.pairs.filter((p) => p.action === "run").map((p) => plan.workflow.pairs.get(p.id)!);
}

const judgedByCommand = (pair: Pair) => pair.guard === "command" || (pair.guards ?? []).some((g) => g.guard === "command");

/** How many commands this plan starts at the least: one per command generator or guard of a pair it runs. */
export function commandsToStart(plan: Plan): number {
  let commands = 0;
  for (const pair of pairsToRun(plan)) commands += (pair.generator === "command" ? 1 : 0) + (judgedByCommand(pair) ? 1 : 0);
  return commands;
}

/** Whether any pair this plan runs starts a command (a command generator or guard). */
export function runsCommands(plan: Plan): boolean {
  return commandsToStart(plan) > 0;
}

/** Whether any pair this plan runs has a command guard: the commands that have a writable layer. */
export function runsCommandGuards(plan: Plan): boolean {
  return pairsToRun(plan).some(judgedByCommand);
}

/**
 * The sandbox of a run of `root`'s workflow, by the mode asked for; a SandboxUnavailableError when
 * required and not to be had. `layers`: whether a guard will want its writable layer, which is
 * probed only then (a run of command generators alone spares a start of bubblewrap and a mount).
 */
export function chooseSandbox(mode: SandboxMode, env: NodeJS.ProcessEnv, root: string, layers = true): SandboxChoice {
  if (mode === "off") return { state: { mode, confined: false, reason: "the sandbox is off" } };
  const probe = probeSandbox(env);
  if (probe.available) {
    const hide = runnerDirectories(env).filter((dir) => existsSync(dir));
    // The home directory, with its credentials, is an empty one of the sandbox's own; the tools on
    // PATH that live there are shown again.
    const home = env.HOME !== undefined && path.isAbsolute(env.HOME) && existsSync(env.HOME) ? path.resolve(env.HOME) : undefined;
    const empty = emptyFile();
    // A guard's writable layer, where it can be made: otherwise guards see the repository read-only.
    const layer = layers ? probeLayer(probe.bwrap, empty) : undefined;
    const layout = {
      root,
      hide,
      empty: gitConfigFiles(root),
      emptyFile: empty,
      ...(typeof layer === "object" ? { layer } : {}),
      ...(home ? { home, show: toolHomes(home, env.PATH ?? "") } : {}),
    };
    const state: SandboxState = { mode, confined: true, by: "bubblewrap", ...(typeof layer === "string" ? { layer: layer } : {}) };
    return { state, sandbox: bubblewrap(probe.bwrap, layout) };
  }
  if (mode === "required") {
    throw new SandboxUnavailableError(
      `the sandbox is required and cannot be had here: ${probe.reason}; install bubblewrap (on Ubuntu 24.04 also allow it user namespaces), or see docs/security.md; nothing was executed`,
    );
  }
  return { state: { mode, confined: false, reason: probe.reason } };
}

/** What a run says once when it looked for a sandbox and found none: its commands run unconfined. */
export function unconfinedWarning(state: SandboxState | undefined): string | undefined {
  if (state === undefined || state.confined || state.mode !== "auto") return undefined;
  return (
    `commands run without a sandbox (${state.reason}): a guard running code a model wrote can read the job's tokens from pairflow's process; ` +
    `install bubblewrap to confine them, or see docs/security.md`
  );
}

let empty: string | undefined;

/**
 * An empty file, read-only, that the sandbox shows in place of the files it empties (a device such
 * as /dev/null cannot be read there): made once per process, removed when it exits.
 */
function emptyFile(): string {
  if (empty !== undefined && existsSync(empty)) return empty;
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-empty-"));
  chmodSync(dir, 0o755);
  empty = path.join(dir, "empty");
  writeFileSync(empty, "", { mode: 0o444 });
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return empty;
}
