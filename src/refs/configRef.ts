/**
 * The configuration reference of a pair (Ψ_ref, seeds/004 Definition 33):
 * sha256 of the canonical JSON of the six reference keys, plus one key of pairflow's own for each
 * further thing the pair uses that can change what it produces. A pair that uses only the
 * reference fields gets exactly the reference value.
 */
import type { Pair, Workflow } from "../model/workflow.js";
import { PyFloat, type CanonicalValue } from "../model/values.js";
import { canonicalJsonOfBoth, canonicalJsonOfTextLists, sharedValue } from "./canonical.js";
import { dict, dictOf } from "../model/dict.js";
import { digestOf, sha256Hex } from "./hash.js";
import type { OwnComponents, PairFiles, Upstream } from "../model/plan.js";
import { PROMPT_LAYOUT } from "../prompt/render.js";
import { component, componentKey, type Component, type ComponentKind } from "../model/component.js";

/**
 * Generator settings that change how a request travels, not what it asks: never hashed. A request
 * sent in a provider's batch (batch, batch_fallback) asks the model exactly what the synchronous
 * one asks, and one paced by a rate limit (rate_limit) what one sent at once asks.
 */
export const TRANSPORT_KEYS = new Set(["api_key_env", "timeout", "retries", "batch", "batch_fallback", "rate_limit"]);

/**
 * Header names that carry credentials (Authorization, X-Api-Key, Cookie, ...): such headers are
 * never hashed, so their values reach no lock file, record or log.
 */
const SECRET_HEADER = /key|token|secret|auth|cookie|password|credential/i;

export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

/**
 * The pair's own components. `files` are the files its generator and guards read (from a StateView);
 * absent or empty, none are hashed.
 */
export function ownComponents(workflow: Workflow, pair: Pair, inputs: Record<string, string> | undefined, files?: PairFiles): OwnComponents {
  const own: OwnComponents = {
    prompt: (pair.prompt ?? {}) as CanonicalValue,
    model: pair.model,
    guard: pair.guard,
    guard_config: pair.guardConfig,
  };
  const config = dict<CanonicalValue>();
  for (const [key, value] of Object.entries(pair.generatorConfig)) {
    if (TRANSPORT_KEYS.has(key)) continue;
    if (key === "headers") {
      const headers = publicHeaders(value);
      if (headers !== undefined) config.headers = headers;
    } else config[key] = value;
  }
  if (pair.generator !== null || Object.keys(config).length > 0) own.generator = { name: pair.generator, config };
  // pairflow renders a prompt only to hand it to a generator, so the layout is hashed exactly for
  // the pairs that name one. A pair using only the reference fields names none and so keeps exactly
  // the reference value; a pair that names one differs from the reference by its generator key already.
  if (pair.generator !== null) own.layout = PROMPT_LAYOUT;
  if (pair.guards !== undefined) own.guards = pair.guards as unknown as CanonicalValue;
  if (workflow.specification !== undefined || workflow.constraints !== undefined) own.context = contextOf(workflow);
  if (pair.inputs.length > 0) own.inputs = inputs ?? {};
  if (pair.piece !== undefined) own.piece = sha256Hex(pair.piece.text);
  const read: Partial<PairFiles> = {};
  if (files && Object.keys(files.generator).length > 0) read.generator = files.generator;
  if (files && Object.keys(files.guard).length > 0) read.guard = files.guard;
  if (files?.observed && Object.keys(files.observed).length > 0) read.observed = files.observed;
  if (Object.keys(read).length > 0) own.files = read;
  return own;
}

/** The pair's own components with `observed` as the files traced runs saw it read (none: no such key), as ownComponents makes them. */
export function withObserved(own: OwnComponents, observed: Record<string, string>): OwnComponents {
  const files: Partial<PairFiles> = { ...own.files };
  delete files.observed;
  if (Object.keys(observed).length > 0) files.observed = sortedObject(observed);
  const out: OwnComponents = { ...own };
  delete out.files;
  if (Object.keys(files).length > 0) out.files = files;
  return out;
}

/**
 * The workflow's specification and constraints, as every pair's reference holds them: one object
 * per workflow, its canonical JSON written once (at 10,000 pairs it was a quarter of what the plan
 * hashed).
 */
function contextOf(workflow: Workflow): NonNullable<OwnComponents["context"]> {
  let context = contexts.get(workflow);
  if (!context || context.specification !== workflow.specification || context.constraints !== workflow.constraints) {
    context = {};
    if (workflow.specification !== undefined) context.specification = workflow.specification;
    if (workflow.constraints !== undefined) context.constraints = workflow.constraints;
    contexts.set(workflow, sharedValue(Object.freeze(context)));
  }
  return context;
}

const contexts = new WeakMap<Workflow, NonNullable<OwnComponents["context"]>>();

/**
 * generator_config.headers without the headers that carry credentials, names lower-cased (HTTP
 * names are case-insensitive); undefined when none is left. A value that is not a mapping is kept
 * as it is (the generator rejects it at run time).
 */
function publicHeaders(value: CanonicalValue): CanonicalValue | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof PyFloat) return value;
  const out = dict<CanonicalValue>();
  for (const [name, v] of Object.entries(value)) if (!isSecretHeader(name)) out[name.toLowerCase()] = v;
  return Object.keys(out).length > 0 ? sortedObject(out) : undefined;
}

/** What a pair's reference hashes: configRef is the digest of it (written without making it). */
export function hashInput(own: OwnComponents, upstream: Upstream): Record<string, unknown> {
  return { ...own, upstream_refs: upstream.refs, artifact_hashes: upstream.artifactHashes };
}

export function configRef(own: OwnComponents, upstream: Upstream): string {
  const dependencies = { upstream_refs: upstream.refs, artifact_hashes: upstream.artifactHashes };
  return sha256Hex(canonicalJsonOfBoth(own as unknown as Record<string, unknown>, dependencies));
}

/**
 * Every part of the hash input as a component, with the start of its digest (`prompt.task`,
 * `input:src/a.py`, `upstream:g_test`, ... as the lock file keys them). Kept in the lock file so a
 * later plan can say which part changed, not only that the reference did.
 */
export function referenceComponents(own: OwnComponents, upstream: Upstream): Component[] {
  return keyedComponents(own, upstream).map(([, c]) => c);
}

/** The components as the lock file keeps them: `{key: digest}`, keys in code unit order. */
export function componentDigests(own: OwnComponents, upstream: Upstream): Record<string, string> {
  const out = dict<string>();
  for (const [key, c] of keyedComponents(own, upstream)) out[key] = c.digest;
  return out;
}

/** A component with its lock file key (componentKey), made once. */
type Keyed = readonly [key: string, component: Component];

function keyed(kind: ComponentKind, name: string, digest: string): Keyed {
  const c = component(kind, name, digest);
  return [componentKey(c), c];
}

/** The components with their keys, in the order of the keys, as the lock file writes them. */
function keyedComponents(own: OwnComponents, upstream: Upstream): Keyed[] {
  const out: Keyed[] = [];
  const put = (kind: ComponentKind, name: string, value: unknown) => out.push(keyed(kind, name, digestOf(value).slice(0, 16)));
  const each = (kind: ComponentKind, prefix: string, obj: object | null | undefined) => {
    for (const [k, v] of Object.entries(obj ?? {})) put(kind, `${prefix}${k}`, v);
  };
  // Maps whose entries are independent settings get one component per entry (`generator_config.env.MODE`).
  const config = (kind: ComponentKind, obj: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(obj)) {
      if (MAP_KEYS.includes(k) && isMapping(v) && Object.keys(v).length > 0) each(kind, `${k}.`, v);
      else put(kind, k, v);
    }
  };
  if (isMapping(own.prompt)) {
    // A glossary's entries are one component per term (`prompt.glossary.Widget`), so a plan names the term that changed.
    for (const [k, v] of Object.entries(own.prompt)) {
      if (k === "glossary" && isMapping(v)) each("prompt", "glossary.", v);
      else put("prompt", k, v);
    }
  }
  put("model", "", own.model);
  put("guard", "", own.guard);
  config("guard_config", own.guard_config);
  if (own.guards !== undefined) put("guards", "", own.guards);
  if (own.generator) {
    put("generator", "", own.generator.name);
    config("generator_config", own.generator.config);
  }
  if (own.layout !== undefined) put("layout", "", own.layout);
  if (own.piece !== undefined) out.push(keyed("piece", "", own.piece.slice(0, 16)));
  each("context", "", own.context);
  for (const [file, hash] of Object.entries(own.inputs ?? {})) out.push(keyed("input", file, hash.slice(0, 16)));
  for (const c of fileComponents("generator_file", own.files?.generator)) out.push(c);
  for (const c of fileComponents("guard_file", own.files?.guard)) out.push(c);
  for (const c of fileComponents("observed", own.files?.observed)) out.push(c);
  for (const [dep, ref] of Object.entries(upstream.refs)) out.push(keyed("upstream", dep, ref.slice(0, 16)));
  for (const [dep, hash] of Object.entries(upstream.artifactHashes)) out.push(keyed("artifact", dep, hash.slice(0, 16)));
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * One component per file: `lib/helper.mjs` and the start of its hash. A mapping that many pairs
 * share (the files one command reaches, frozen) is turned into components once.
 */
function fileComponents(kind: ComponentKind, files: Record<string, string> | undefined): readonly Keyed[] {
  if (files === undefined) return [];
  const known = Object.isFrozen(files) ? fileComponentCache.get(files)?.get(kind) : undefined;
  if (known !== undefined) return known;
  const made = Object.entries(files).map(([file, hash]) => keyed(kind, file, hash.slice(0, 16)));
  if (Object.isFrozen(files)) {
    const byKind = fileComponentCache.get(files) ?? new Map<ComponentKind, Keyed[]>();
    byKind.set(kind, made);
    fileComponentCache.set(files, byKind);
  }
  return made;
}

const fileComponentCache = new WeakMap<object, Map<ComponentKind, Keyed[]>>();

/** Keys of generator_config and guard_config whose entries get one component each (`generator_config.env.MODE`). */
const MAP_KEYS: readonly string[] = ["headers", "env"];

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof PyFloat);
}

/** W_ref: the workflow's structure (its pairs and their dependencies). A saved run is resumed only under the same one. */
export function workflowRef(workflow: Workflow): string {
  // digestOf({ action_pairs: { [id]: requires, sorted } }), written without making that mapping.
  const structure = new Map<string, string[]>();
  for (const pair of workflow.pairs.values()) structure.set(pair.id, [...pair.requires].sort());
  return sha256Hex(`{"action_pairs":${canonicalJsonOfTextLists(structure)}}`);
}

/** The mapping with its keys in code unit order, as a dictionary (see src/model/dict.ts). */
export function sortedObject<T>(obj: Record<string, T>): Record<string, T> {
  return dictOf(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
