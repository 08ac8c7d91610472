/**
 * The configuration reference of a pair (Ψ_ref, seeds/004 Definition 33):
 * sha256 of the canonical JSON of the six reference keys, plus one key of pairflow's own for each
 * further thing the pair uses that can change what it produces. A pair that uses only the
 * reference fields gets exactly the reference value.
 */
import type { Pair, Workflow } from "../model/workflow.js";
import type { CanonicalValue } from "../model/values.js";
import { digestOf } from "./hash.js";
import type { OwnComponents, Upstream } from "../model/plan.js";

/** Generator settings that change how a request travels, not what it asks: never hashed. */
export const TRANSPORT_KEYS = new Set(["api_key_env", "headers", "timeout", "retries"]);

export function ownComponents(workflow: Workflow, pair: Pair, inputs: Record<string, string> | undefined): OwnComponents {
  const own: OwnComponents = {
    prompt: (pair.prompt ?? {}) as CanonicalValue,
    model: pair.model,
    guard: pair.guard,
    guard_config: pair.guardConfig,
  };
  const config = Object.fromEntries(Object.entries(pair.generatorConfig).filter(([k]) => !TRANSPORT_KEYS.has(k)));
  if (pair.generator !== null || Object.keys(config).length > 0) own.generator = { name: pair.generator, config };
  if (pair.guards !== undefined) own.guards = pair.guards as unknown as CanonicalValue;
  if (workflow.specification !== undefined || workflow.constraints !== undefined) {
    own.context = {};
    if (workflow.specification !== undefined) own.context.specification = workflow.specification;
    if (workflow.constraints !== undefined) own.context.constraints = workflow.constraints;
  }
  if (pair.inputs.length > 0) own.inputs = inputs ?? {};
  return own;
}

export function hashInput(own: OwnComponents, upstream: Upstream): Record<string, unknown> {
  return { ...own, upstream_refs: upstream.refs, artifact_hashes: upstream.artifactHashes };
}

export function configRef(own: OwnComponents, upstream: Upstream): string {
  return digestOf(hashInput(own, upstream));
}

/**
 * A short digest of every part of the hash input, by name (`prompt.task`, `guard_config.min_tests`,
 * `input:src/a.py`, `upstream:g_test`, ...). Kept in the lock file so a later plan can say which
 * part changed, not only that the reference did.
 */
export function componentDigests(own: OwnComponents, upstream: Upstream): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (name: string, value: unknown) => (out[name] = digestOf(value).slice(0, 16));
  const each = (prefix: string, obj: object | null | undefined) => {
    for (const [k, v] of Object.entries(obj ?? {})) put(`${prefix}${k}`, v);
  };
  if (own.prompt !== null && typeof own.prompt === "object" && !Array.isArray(own.prompt)) each("prompt.", own.prompt);
  put("model", own.model);
  put("guard", own.guard);
  each("guard_config.", own.guard_config);
  if (own.guards !== undefined) put("guards", own.guards);
  if (own.generator) {
    put("generator", own.generator.name);
    each("generator_config.", own.generator.config);
  }
  each("context.", own.context);
  for (const [file, hash] of Object.entries(own.inputs ?? {})) out[`input:${file}`] = hash.slice(0, 16);
  for (const [dep, ref] of Object.entries(upstream.refs)) out[`upstream:${dep}`] = ref.slice(0, 16);
  for (const [dep, hash] of Object.entries(upstream.artifactHashes)) out[`artifact:${dep}`] = hash.slice(0, 16);
  return sortedObject(out);
}

/** W_ref: the workflow's structure (its pairs and their dependencies). A saved run is resumed only under the same one. */
export function workflowRef(workflow: Workflow): string {
  const structure: Record<string, string[]> = {};
  for (const pair of workflow.pairs.values()) structure[pair.id] = [...pair.requires].sort();
  return digestOf({ action_pairs: structure });
}

export function sortedObject<T>(obj: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
