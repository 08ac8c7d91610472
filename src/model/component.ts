/**
 * One part of a pair's reference, as a typed value: what it is (kind), which one (name), the start
 * of its digest and the words people read for it. The reference computation (src/refs) makes them,
 * the lock file keeps them under the keys it always had (`prompt.task`, `input:src/a.py`, ...), and
 * the plan's reasons name them. componentKey and componentOfKey are the one way between the two.
 */
import { dict } from "./dict.js";

/** Every kind of part a reference hashes. */
export const COMPONENT_KINDS = [
  "prompt",
  "context",
  "model",
  "guard",
  "guards",
  "guard_config",
  "generator",
  "generator_config",
  "layout",
  "piece",
  "input",
  "generator_file",
  "guard_file",
  "observed",
  "upstream",
  "artifact",
  "other",
] as const;

export type ComponentKind = (typeof COMPONENT_KINDS)[number];

export interface Component {
  kind: ComponentKind;
  /** Which one of its kind: the prompt field, the config key, the file, the dependency; "" for a kind there is one of. */
  name: string;
  /** The first 16 hex digits of its digest, as the lock file keeps it. */
  digest: string;
  /** What people read for it: `prompt.task`, `lib/helper.mjs`, `g_test's reference`. */
  label: string;
}

/** A component without its digest: which part of a reference is meant. */
export type ComponentId = Pick<Component, "kind" | "name">;

/** Kinds of which a reference has at most one: their key is the kind itself. */
const SINGLE: ReadonlySet<ComponentKind> = new Set(["model", "guard", "guards", "generator", "layout", "piece"]);

/** Kinds whose key is a prefix and the name: `prompt.task`, `input:src/a.py`. */
const PREFIXES: readonly [ComponentKind, string][] = [
  ["prompt", "prompt."],
  ["context", "context."],
  ["guard_config", "guard_config."],
  ["generator_config", "generator_config."],
  ["input", "input:"],
  ["generator_file", "generator_file:"],
  ["guard_file", "guard_file:"],
  ["observed", "observed:"],
  ["upstream", "upstream:"],
  ["artifact", "artifact:"],
];

const PREFIX_OF = new Map(PREFIXES);

/** The lock file's key for a component: `prompt.task`, `model`, `input:src/a.py`; an `other` one's key is its name. */
export function componentKey(c: ComponentId): string {
  if (c.kind === "other") return c.name;
  if (SINGLE.has(c.kind)) return c.kind;
  return PREFIX_OF.get(c.kind)! + c.name;
}

/**
 * The component a lock file's key and digest stand for. A key of no known form (a lock file written
 * by hand or by another version) is an `other` component named by the whole key.
 */
export function componentOfKey(key: string, digest: string): Component {
  const id = componentIdOfKey(key);
  return { kind: id.kind, name: id.name, digest, label: componentLabel(id) };
}

export function componentIdOfKey(key: string): ComponentId {
  if (SINGLE.has(key as ComponentKind)) return { kind: key as ComponentKind, name: "" };
  for (const [kind, prefix] of PREFIXES) if (key.startsWith(prefix)) return { kind, name: key.slice(prefix.length) };
  return { kind: "other", name: key };
}

/** A component made by the reference computation. */
export function component(kind: ComponentKind, name: string, digest: string): Component {
  return { kind, name, digest, label: componentLabel({ kind, name }) };
}

/** The words for a component, as the plan's reasons use them (`<label> changed`). */
export function componentLabel(c: ComponentId): string {
  switch (c.kind) {
    case "context":
      return `workflow ${c.name}`;
    case "layout":
      return "pairflow's prompt layout";
    case "piece":
      return "its piece of the file";
    case "observed":
      return `observed read: ${c.name}`;
    case "upstream":
      return `${c.name}'s reference`;
    case "artifact":
      return `${c.name}'s accepted content`;
    case "input":
    case "generator_file":
    case "guard_file":
    case "other":
      return c.name;
    default:
      return componentKey(c);
  }
}

/** A dependency's parts of a reference (its reference and its accepted content), not the pair's own. */
export function isUpstream(c: ComponentId): boolean {
  return c.kind === "upstream" || c.kind === "artifact";
}

/** Components as the lock file keeps them: `{key: digest}`, in the order given. */
export function lockComponents(components: readonly Component[]): Record<string, string> {
  const out = dict<string>();
  for (const c of components) out[componentKey(c)] = c.digest;
  return out;
}

/** A lock file's `{key: digest}` as components, in its order. */
export function componentsOfLock(digests: Record<string, string>): Component[] {
  return Object.entries(digests).map(([key, digest]) => componentOfKey(key, digest));
}
