/**
 * The environment the processes a run starts receive. A guard's command typically executes code a
 * model wrote (the generated tests): it gets no credential at all. A generator's command may call a
 * model itself, so it keeps the provider keys, but neither gets what the CI runner holds for
 * pairflow (the cache service's token and URLs, the action's inputs such as github-token).
 */
import { ANTHROPIC_KEY_VARIABLE } from "../generators/anthropic.js";
import { OPENAI_KEY_VARIABLE } from "../generators/openai.js";
import type { Workflow } from "../model/workflow.js";

/** Variables the GitHub runner sets for the action itself; a child process has no use for them. */
const RUNNER_SECRETS = [
  "ACTIONS_RUNTIME_TOKEN",
  "ACTIONS_RUNTIME_URL",
  "ACTIONS_CACHE_URL",
  "ACTIONS_RESULTS_URL",
  "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
  "ACTIONS_ID_TOKEN_REQUEST_URL",
  "GITHUB_TOKEN",
  "GH_TOKEN",
];

/** The variables providers read keys from by default; a workflow may name others (api_key_env). */
const DEFAULT_KEY_VARIABLES = [OPENAI_KEY_VARIABLE, ANTHROPIC_KEY_VARIABLE];

export interface ChildEnvironments {
  generator: NodeJS.ProcessEnv;
  guard: NodeJS.ProcessEnv;
}

export function childEnvironments(env: NodeJS.ProcessEnv, workflow: Workflow): ChildEnvironments {
  const generator: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    // INPUT_*: the action's inputs, github-token among them.
    if (!RUNNER_SECRETS.includes(name) && !name.startsWith("INPUT_")) generator[name] = value;
  }
  const guard = { ...generator };
  for (const name of keyVariables(workflow)) delete guard[name];
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
