/**
 * The environment the processes a run starts receive. A guard's command typically executes code a
 * model wrote (the generated tests): it gets no credential at all. A generator's command may call a
 * model itself, so it keeps the provider keys its workflow names, but neither gets what the CI
 * runner holds for pairflow (the cache service's token and URLs, the action's inputs such as
 * github-token) nor any other credential, unless a person lets it through by name.
 */
import { ANTHROPIC_KEY_VARIABLE } from "../generators/anthropic.js";
import { OPENAI_KEY_VARIABLE } from "../generators/openai.js";
import type { Workflow } from "../model/workflow.js";

/** Variables the GitHub runner sets for the action itself; a child process has no use for them. */
const RUNNER_SECRETS = ["GITHUB_TOKEN", "GH_TOKEN"];
/**
 * Names that hold credentials by every usual convention (NPM_TOKEN, AWS_SECRET_ACCESS_KEY,
 * DATABASE_PASSWORD, OPENAI_API_KEY, ...): none reaches a child unless it is asked for by name.
 */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE_KEY|API_KEY|ACCESS_KEY|AUTH/i;
/** Names a person lets through, comma-separated: `PAIRFLOW_PASS_ENV=NPM_TOKEN,PGPASSWORD`. */
export const PASS_ENV_VARIABLE = "PAIRFLOW_PASS_ENV";

/** The variables providers read keys from by default; a workflow may name others (api_key_env). */
const DEFAULT_KEY_VARIABLES = [OPENAI_KEY_VARIABLE, ANTHROPIC_KEY_VARIABLE];

export interface ChildEnvironments {
  generator: NodeJS.ProcessEnv;
  guard: NodeJS.ProcessEnv;
}

/**
 * What reaches a child: everything but the runner's own variables (ACTIONS_*, the action's inputs
 * INPUT_*, GITHUB_TOKEN) and anything named like a credential, except the names PAIRFLOW_PASS_ENV
 * lists. A generator also gets the provider keys its workflow names (it may call a model itself).
 */
export function childEnvironments(env: NodeJS.ProcessEnv, workflow: Workflow): ChildEnvironments {
  const passed = new Set(
    (env[PASS_ENV_VARIABLE] ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
  );
  const guard: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    const runners = RUNNER_SECRETS.includes(name) || name.startsWith("ACTIONS_") || name.startsWith("INPUT_");
    if (passed.has(name) || (!runners && !SECRET_NAME.test(name))) guard[name] = value;
  }
  const generator = { ...guard };
  for (const name of keyVariables(workflow)) if (env[name] !== undefined) generator[name] = env[name];
  for (const name of keyVariables(workflow)) if (!passed.has(name)) delete guard[name];
  return { generator, guard };
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
