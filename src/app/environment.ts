/**
 * The environment the processes a run starts receive. A guard's command typically executes code a
 * model wrote (the generated tests): it gets no credential at all. A generator's command may call a
 * model itself, so it keeps the provider keys its workflow names, but neither gets what the CI
 * runner holds for pairflow (the cache service's token and URLs, the action's inputs such as
 * github-token) nor any other credential, unless a person lets it through by name: to generators
 * with PAIRFLOW_PASS_ENV, and to guards too only when PAIRFLOW_PASS_ENV_GUARDS also names it.
 */
import { constants, gunzipSync } from "node:zlib";
import { ANTHROPIC_KEY_VARIABLE } from "../generators/anthropic.js";
import { OPENAI_KEY_VARIABLE } from "../generators/openai.js";
import type { Sandbox } from "../model/ports.js";
import type { Plan } from "../model/plan.js";
import { redactor, type Gunzip, type Redact } from "../model/redact.js";
import type { SandboxState } from "../model/run.js";
import type { Workflow } from "../model/workflow.js";
import { chooseSandbox, runsCommandGuards, runsCommands, sandboxMode } from "./sandbox.js";

/** Variables the GitHub runner sets for the action itself; a child process has no use for them. */
const RUNNER_SECRETS = ["GITHUB_TOKEN", "GH_TOKEN"];
/**
 * The runner's file commands: files a step writes to set variables, PATH, outputs, the job summary
 * and state for every later step of the job. A command holding one could set BASH_ENV for the
 * steps that hold deploy secrets; none gets their names.
 */
const RUNNER_FILES = ["GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE"];
/**
 * Names that hold credentials by every usual convention (NPM_TOKEN, AWS_SECRET_ACCESS_KEY,
 * DATABASE_PASSWORD, OPENAI_API_KEY, ...): none reaches a child unless it is asked for by name.
 */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE_KEY|API_KEY|ACCESS_KEY|AUTH/i;
/** Names a person lets through to generators, comma-separated: `PAIRFLOW_PASS_ENV=NPM_TOKEN,PGPASSWORD`. */
export const PASS_ENV_VARIABLE = "PAIRFLOW_PASS_ENV";
/**
 * Of those, the names guards get too, comma-separated. A guard runs code a model wrote: a value it
 * holds can leave in any encoding (docs/security.md), so guards get one only when asked twice.
 */
export const PASS_ENV_GUARDS_VARIABLE = "PAIRFLOW_PASS_ENV_GUARDS";

/** The variables providers read keys from by default; a workflow may name others (api_key_env). */
const DEFAULT_KEY_VARIABLES = [OPENAI_KEY_VARIABLE, ANTHROPIC_KEY_VARIABLE];

export interface ChildEnvironments {
  generator: NodeJS.ProcessEnv;
  guard: NodeJS.ProcessEnv;
  /**
   * The values of the credentials withheld from children (and of the provider keys, which only
   * generators get): what a command prints is cleaned of them before it goes anywhere.
   */
  secrets: string[];
}

/**
 * What reaches a child: everything but the runner's own variables (ACTIONS_*, the action's inputs
 * INPUT_*, GITHUB_TOKEN, the file commands GITHUB_ENV and the like) and anything named like a
 * credential. Of those, a generator gets the names PAIRFLOW_PASS_ENV lists, and a guard the names
 * both PAIRFLOW_PASS_ENV and PAIRFLOW_PASS_ENV_GUARDS list. A generator also gets the provider keys
 * its workflow names (it may call a model itself); a guard only the ones let through to guards.
 */
export function childEnvironments(env: NodeJS.ProcessEnv, workflow: Workflow): ChildEnvironments {
  const passed = names(env[PASS_ENV_VARIABLE]);
  const toGuards = names(env[PASS_ENV_GUARDS_VARIABLE]);
  const guardPassed = (name: string) => passed.has(name) && toGuards.has(name);
  const generator: NodeJS.ProcessEnv = {};
  const guard: NodeJS.ProcessEnv = {};
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const runners = RUNNER_SECRETS.includes(name) || RUNNER_FILES.includes(name) || name.startsWith("ACTIONS_") || name.startsWith("INPUT_");
    const withheld = runners || SECRET_NAME.test(name);
    if (!withheld || passed.has(name)) generator[name] = value;
    if (!withheld || guardPassed(name)) guard[name] = value;
    // A credential (the runner's tokens and service URLs, a secret action input, anything named
    // like one) is cleaned out of what commands print, also where a person let it through.
    if (RUNNER_SECRETS.includes(name) || name.startsWith("ACTIONS_") || SECRET_NAME.test(name)) secrets.push(value);
  }
  for (const name of keyVariables(workflow)) {
    const value = env[name];
    if (value === undefined) continue;
    generator[name] = value;
    secrets.push(value);
    if (!guardPassed(name)) delete guard[name];
  }
  return { generator, guard, secrets };
}

/** The names of a comma-separated list. */
function names(list: string | undefined): Set<string> {
  return new Set(
    (list ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
  );
}

/** Every variable a provider of this workflow reads a key from. */
export function keyVariables(workflow: Workflow): string[] {
  const names = new Set(DEFAULT_KEY_VARIABLES);
  for (const pair of workflow.pairs.values()) {
    const name = pair.generatorConfig.api_key_env;
    if (typeof name === "string") names.add(name);
  }
  return [...names];
}

/** What a run gives the commands it starts: their environments, the sandbox, and the cleaning of what they print. */
export interface ChildSetup {
  env: { generator: NodeJS.ProcessEnv; guard: NodeJS.ProcessEnv };
  redact: Redact;
  sandbox?: Sandbox;
  /** How the commands run; absent when the plan starts none. */
  state?: SandboxState;
}

/**
 * The setup of a run's children: environments without credentials, secrets to clean out of what
 * they print, and the sandbox by `mode` (when the plan runs any command). Throws
 * SandboxUnavailableError when the sandbox is required and cannot be had.
 */
export function childSetup(request: { env?: NodeJS.ProcessEnv; sandbox?: string }, workflow: Workflow, plan: Plan): ChildSetup {
  const env = request.env ?? {};
  const mode = sandboxMode(request.sandbox, env);
  const { generator, guard, secrets } = childEnvironments(env, workflow);
  const setup: ChildSetup = { env: { generator, guard }, redact: secretRedactor(secrets) };
  if (!runsCommands(plan)) return setup;
  const choice = chooseSandbox(mode, env, workflow.root, runsCommandGuards(plan));
  return { ...setup, sandbox: choice.sandbox, state: choice.state };
}

/** The cleaning of what commands print of `secrets`, gzip data in base64 included. */
export function secretRedactor(secrets: Iterable<string>): Redact {
  return redactor(secrets, gunzip);
}

/**
 * gzip data inflated as far as it goes: data cut short gives what it has; data that goes on after
 * its end, or breaks off in the middle, gives what the longest prefix that inflates gives.
 */
const gunzip: Gunzip = (data, limit) => {
  const inflate = (length: number) => gunzipSync(data.subarray(0, length), { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: limit });
  const tooLarge = (err: unknown) => (err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE";
  try {
    return inflate(data.length);
  } catch (err) {
    if (tooLarge(err)) return "too large";
  }
  let good: Uint8Array = new Uint8Array(0);
  let [ok, failed] = [0, data.length];
  while (failed - ok > 1) {
    const length = Math.floor((ok + failed) / 2);
    try {
      good = inflate(length);
      ok = length;
    } catch (err) {
      if (tooLarge(err)) return "too large";
      failed = length;
    }
  }
  return good;
};
