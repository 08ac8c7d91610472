import type { CanonicalValue } from "./values.js";

/** A pair's entry in the prompts file. */
export interface PromptEntry {
  role?: string;
  constraints?: string;
  task?: string;
  feedback_wrapper?: string;
  /** The glossary entries whose terms occur in a piece or file (`foreach: {glossary}`), term -> translation. */
  glossary?: Record<string, string>;
}

/** One guard of a composite guard. */
export interface GuardRef {
  guard: string;
  guard_config: Record<string, CanonicalValue>;
}

/**
 * An action pair as pairflow uses it: workflow-level defaults applied, paths not yet resolved.
 * Objects that reach a configRef keep the source's number forms (see PyFloat).
 */
export interface Pair {
  id: string;
  description?: string;
  requires: string[];
  guard: string | null;
  guardConfig: Record<string, CanonicalValue>;
  /** Sub-guards of a composite guard, when the pair lists them. */
  guards?: GuardRef[];
  /** Generator name; null when neither the pair nor the workflow names one. */
  generator: string | null;
  generatorConfig: Record<string, CanonicalValue>;
  model: string | null;
  rmax: number;
  /** An artifact larger than this many bytes fails the attempt (default DEFAULT_MAX_OUTPUT_BYTES); never hashed. */
  maxOutputBytes?: number;
  /** Every generator call is made anew: no artifact generated for the same request answers it (`fresh: true`); never hashed. */
  fresh?: true;
  /** Output file, relative to the workflow file's directory. */
  output?: string;
  /** Globs of input files, relative to the workflow file's directory. */
  inputs: string[];
  prompt: PromptEntry | undefined;
  /**
   * For an instance of a `foreach` pair (docs/foreach.md): the id of the pair as written, which
   * reports group its instances under. Absent for ordinary pairs.
   */
  template?: string;
  /** For an instance: its item, a file path relative to the workflow file's directory or a value. */
  item?: string;
  /** For an instance of a foreach over files and values together: its value (`fr`); its item is `fr:docs/a.md`. */
  value?: string;
  /** For an instance over files: true, and its file is its first input (inputs[0], glob characters escaped). */
  itemFile?: boolean;
  /**
   * For an instance over a piece of a file (`foreach: {split}`): the piece; its text is part of the
   * reference. `file` is the file's item (`docs/a.md`, or `fr:docs/a.md` over files and values), so
   * `template[file]` is the instance that puts the pieces together.
   */
  piece?: { file: string; id: string; text: string };
  /** For the instance that puts a file's pieces back together, in order (`requires`), into the template's output. */
  assembly?: { split: SplitSpec; file: string };
  /** Carry a person's edit of the output forward when its sources change (`carry_edits: true`). */
  carryEdits?: true;
  /** An output that exists with no record is a person's, adopted, not replaced (`adopt_existing: true`). */
  adoptExisting?: true;
}

/** How `foreach: {files, split}` cuts a file into pieces (src/config/split.ts). */
export interface SplitSpec {
  kind: "markdown" | "json" | "yaml" | "regex";
  /** For `regex`: a piece starts at each match (multiline). */
  regex?: string;
  /** Pieces much smaller than this join the next; larger ones are cut at content-defined line boundaries. */
  maxChars?: number;
}

export interface Workflow {
  name: string;
  description?: string;
  specification?: string;
  constraints?: string;
  /** Absolute path of the workflow file. */
  path: string;
  /** Absolute path of its directory: where relative paths start and commands run. */
  dir: string;
  /** The repository holding it (nearest ancestor with .git, else dir): paths never reach outside. */
  root: string;
  /** Absolute path of the prompts file, or null when there is none. */
  promptsPath: string | null;
  /** Pairs in file order. */
  pairs: Map<string, Pair>;
  /** `pricing:` — USD per million tokens by model name, for cost estimates; never hashed. */
  pricing: Record<string, ModelPrice>;
}

/** What a model costs, in US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Input tokens read from the provider's prompt cache; absent: priced as `input`. */
  cachedInput?: number;
  /** Input tokens written to the prompt cache (Anthropic charges extra for them); absent: priced as `input`. */
  cacheWrite?: number;
  /** The share taken off every price above for a request made through the provider's batch API (0.5: half price); absent: none. */
  batchDiscount?: number;
}

export const DEFAULT_RMAX = 3;

/** The default limit on an artifact's size: 8 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 8 * 2 ** 20;

/**
 * Which of a pair's commands have the network in the sandbox: a command generator unless its
 * config says `network: false`, a command guard (also one of a composite's) only where its config
 * says `network: true`. Empty for a pair that starts no command.
 */
export function commandNetwork(
  pair: Pick<Pair, "generator" | "generatorConfig" | "guard" | "guardConfig" | "guards">,
): { command: "generator" | "guard"; network: boolean }[] {
  const found: { command: "generator" | "guard"; network: boolean }[] = [];
  if (pair.generator === "command") found.push({ command: "generator", network: pair.generatorConfig.network !== false });
  const guards = [...(pair.guard !== null ? [{ guard: pair.guard, guard_config: pair.guardConfig }] : []), ...(pair.guards ?? [])];
  for (const g of guards) if (g.guard === "command") found.push({ command: "guard", network: g.guard_config.network === true });
  return found;
}
