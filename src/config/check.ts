/**
 * The checks `validate` adds to loading: everything a run would reject before or while running a
 * pair, found before any pair runs. Guard and generator names, each built-in guard's and
 * generator's own settings (required keys, types, unknown keys, regular expressions and JSON
 * Schemas that compile, schema files that exist), pairs with no generator, pairs writing the same
 * output, feedback wrappers that drop the feedback.
 *
 * Pure, like the parser: files are reached only through the ConfigFiles given.
 */
import path from "node:path";
import { plain } from "../model/values.js";
import { didYouMean } from "../model/text.js";
import { sortIssues, type ConfigIssue } from "../model/errors.js";
import type { Pair } from "../model/workflow.js";
import { issueAt, namedFileProblem, parseText, quoteList, realRootOf, type ConfigFiles, type Loaded, type SourceFile } from "./parse.js";

type Config = Record<string, unknown>;
type Key = string | number;

/** What a setting must be: checks a present value, returning what is wrong with it or undefined. */
type Rule = (value: unknown) => string | undefined;

const string: Rule = (v) => (typeof v === "string" && v !== "" ? undefined : "a non-empty string");
const bool: Rule = (v) => (typeof v === "boolean" ? undefined : "true or false");
const positive: Rule = (v) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? undefined : "a number greater than 0");
const nonNegative: Rule = (v) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? undefined : "a number of at least 0");
const count: Rule = (v) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? undefined : "a whole number of at least 0");
const atLeastOne: Rule = (v) => (typeof v === "number" && Number.isInteger(v) && v >= 1 ? undefined : "a whole number of at least 1");
const stringMap: Rule = (v) => (isObject(v) && Object.values(v).every((x) => typeof x === "string") ? undefined : "a mapping of names to strings");
const stringOrList: Rule = (v) =>
  typeof v === "string" || (Array.isArray(v) && v.every((x) => typeof x === "string")) ? undefined : "a string or a list of strings";
const list: Rule = (v) => (Array.isArray(v) ? undefined : "a list");
const anything: Rule = () => undefined;
const exitStatus = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 255;
const exitStatuses: Rule = (v) =>
  exitStatus(v) || (Array.isArray(v) && v.length > 0 && v.every(exitStatus)) ? undefined : "an exit status from 1 to 255, or a list of them";

/** Settings every guard and generator takes: files it reads, hashed into configRef. */
const COMMON: Record<string, Rule> = { files: list };

export const GUARD_SETTINGS: Record<string, Record<string, Rule>> = {
  command: { run: string, timeout: positive, env: stringMap, network: bool, reject_exit_codes: exitStatuses, guard_retries: count },
  composite: { policy: string, guards: list },
  contains: { text: stringOrList, absent: stringOrList, all: bool },
  json: {},
  json_schema: { schema: anything, schema_file: string },
  regex: { pattern: string, flags: (v) => (typeof v === "string" ? undefined : "a string"), must_match: bool },
};

const fallback: Rule = (v) => (v === "sync" || v === "fail" ? undefined : '"sync" (call the synchronous endpoint) or "fail"');

const perMinute = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v > 0;
const rateLimit: Rule = (v) =>
  isObject(v) &&
  Object.keys(v).length > 0 &&
  Object.entries(v).every(([key, n]) => (key === "requests_per_minute" || key === "tokens_per_minute") && perMinute(n))
    ? undefined
    : "{requests_per_minute, tokens_per_minute}, either or both a number greater than 0";

const HTTP: Record<string, Rule> = {
  batch: bool,
  rate_limit: rateLimit,
  batch_fallback: fallback,
  base_url: string,
  api_key_env: string,
  headers: stringMap,
  timeout: positive,
  retries: count,
  temperature: nonNegative,
  max_tokens: atLeastOne,
};

export const GENERATOR_SETTINGS: Record<string, Record<string, Rule>> = {
  // api_key_env: a key variable the command keeps (src/app/environment.ts); max_tokens: for estimates.
  command: { run: string, timeout: positive, env: stringMap, network: bool, api_key_env: string, max_tokens: atLeastOne },
  openai: { ...HTTP, api_version: string },
  anthropic: HTTP,
};

const POLICIES = ["all_pass", "any_pass", "majority_pass"];

/** Problems found beyond loading, errors and warnings (severity set on each), in file order. */
export async function checkWorkflow(loaded: Loaded, files: ConfigFiles): Promise<ConfigIssue[]> {
  const { workflow, format, sources } = loaded;
  const reference = format === "reference";
  const file = sources.workflow;
  const issues: ConfigIssue[] = [];
  const ignored: ConfigIssue[] = [];
  const error = (keyPath: readonly Key[], message: string, onKey = false) => issues.push(issueAt(file, keyPath, message, onKey));
  const warn = (f: SourceFile, keyPath: readonly Key[], message: string, onKey = false) =>
    issues.push({ ...issueAt(f, keyPath, message, onKey), severity: "warning" });
  /** An unknown setting: a near miss is an error everywhere; otherwise an error in pairflow's files, a warning in reference ones. */
  const unknownKey = (keyPath: readonly Key[], key: string, known: string[], what: string) => {
    const hint = didYouMean(key, known);
    const message = `unknown key "${key}" for ${what}` + (hint ? `; did you mean "${hint}"?` : "") + `; expected one of: ${known.join(", ")}`;
    if (hint || !reference) error([...keyPath, key], message, true);
    else ignored.push(issueAt(file, [...keyPath, key], message, true));
  };

  const rawPairs = objectOr(objectOr(plain(file.fastValue ?? file.doc.toJS({ maxAliasCount: -1 }))).action_pairs);
  // An instance of a foreach pair is checked as its template is written (its problems shown once, there).
  const raw = (pair: Pair) => {
    const id = pair.template ?? pair.id;
    return objectOr(Object.hasOwn(rawPairs, id) ? rawPairs[id] : undefined);
  };
  /** The json_schema guards' schemas, compiled once every other check is done. */
  const schemas: { schema: object | boolean; at: Key[] }[] = [];
  // By name, the pairs using it and where it is first named.
  const unknownGuards = new Map<string, { pairs: Set<string>; at: Key[] }>();
  const unknownGenerators = new Map<string, { pairs: Set<string>; at: Key[] }>();
  const noGenerator: string[] = [];

  /** Checks a guard name and its settings; returns whether the guard is a built-in one. */
  const checkGuard = (pair: Pair, name: string, config: Config, nameAt: Key[], configAt: Key[], guards?: unknown[], guardsAt?: Key[]) => {
    const settings = GUARD_SETTINGS[name];
    if (!Object.hasOwn(GUARD_SETTINGS, name) || !settings) {
      const hint = didYouMean(name, Object.keys(GUARD_SETTINGS));
      if (hint) error(nameAt, `unknown guard "${name}"; did you mean "${hint}"? pairflow has: ${Object.keys(GUARD_SETTINGS).sort().join(", ")}`);
      else {
        const entry = unknownGuards.get(name) ?? { pairs: new Set<string>(), at: nameAt };
        entry.pairs.add(pair.template ?? pair.id);
        unknownGuards.set(name, entry);
      }
      return;
    }
    const what = `the ${name} guard`;
    // A missing setting is shown at guard_config when there is one, else at the guard's name.
    const needAt = Object.keys(config).length > 0 ? configAt : nameAt;
    checkSettings(config, { ...COMMON, ...settings }, configAt, what, error, unknownKey);
    switch (name) {
      case "regex": {
        if (typeof config.pattern !== "string" || config.pattern === "") {
          if (config.pattern === undefined) error(needAt, `the regex guard needs guard_config.pattern: a regular expression, e.g. "^# "`);
          break;
        }
        try {
          new RegExp(config.pattern, typeof config.flags === "string" ? config.flags : "");
        } catch (err) {
          error(
            [...configAt, typeof config.flags === "string" && !flagsOk(config.flags) ? "flags" : "pattern"],
            `is not a valid regular expression: ${(err as Error).message}`,
          );
        }
        break;
      }
      case "command":
        if (config.run === undefined) error(needAt, `the command guard needs guard_config.run: a shell command, e.g. "npm test"`);
        break;
      case "contains":
        if (config.text === undefined && config.absent === undefined) {
          error(needAt, "the contains guard needs guard_config.text (text that must appear) or guard_config.absent (text that must not)");
        }
        break;
      case "json_schema":
        checkSchema(config, configAt, needAt, workflow, files, error, schemas);
        break;
      case "composite": {
        if (config.policy !== undefined && typeof config.policy === "string" && !POLICIES.includes(config.policy)) {
          const hint = didYouMean(config.policy, POLICIES);
          error(
            [...configAt, "policy"],
            `unknown policy "${config.policy}"` + (hint ? `; did you mean "${hint}"?` : "") + `; expected one of: ${POLICIES.join(", ")}`,
          );
        }
        const [subs, subsAt] = guards !== undefined ? [guards, guardsAt!] : [Array.isArray(config.guards) ? config.guards : [], [...configAt, "guards"]];
        if (subs.length === 0) {
          error(
            guards !== undefined ? guardsAt! : nameAt,
            'the composite guard lists no guards: list them under "guards" on the pair (or guard_config.guards)',
          );
        }
        subs.forEach((item, i) => {
          if (typeof item === "string") checkGuard(pair, item, {}, [...subsAt, i], [...subsAt, i]);
          else if (isObject(item) && typeof item.guard === "string") {
            checkGuard(pair, item.guard, objectOr(item.guard_config), [...subsAt, i, "guard"], [...subsAt, i, "guard_config"]);
          } else error([...subsAt, i], "expected a guard name, or a mapping with guard and optional guard_config");
        });
        break;
      }
    }
  };

  /** Split pairs already checked for a command that names the whole file. */
  const wholeFileSaid = new Set<string>();
  for (const pair of workflow.pairs.values()) {
    const at: Key[] = ["action_pairs", pair.template ?? pair.id];
    const pairRaw = raw(pair);
    if (pair.piece !== undefined && !wholeFileSaid.has(at[1] as string)) {
      wholeFileSaid.add(at[1] as string);
      for (const [setting, config] of [
        ["generator_config", pair.generator === "command" ? pair.generatorConfig : undefined],
        ["guard_config", pair.guard === "command" ? pair.guardConfig : undefined],
      ] as const) {
        const run = (config as Config | undefined)?.run;
        if (typeof run !== "string" || !namesFile(withEnv(run, (config as Config).env), pair.piece.file)) continue;
        const where: Key[] = Object.hasOwn(objectOr(pairRaw[setting]), "run") ? [...at, setting, "run"] : [setting, "run"];
        warn(
          file,
          where,
          `names the whole file being split (${pair.piece.file} for ${pair.id}): a file a command names is part of its reference, ` +
            `so every piece of the file runs again on any edit of it; give the command the piece instead ({piece}, ` +
            `or the prompt's task, which holds it) and leave {file} out of it`,
        );
      }
    }
    // A split pair's file instance: pairflow's own generator, and the template's assembled_guard.
    if (pair.assembly !== undefined) {
      if (pair.guard !== null)
        checkGuard(pair, pair.guard, plain(pair.guardConfig) as Config, [...at, "assembled_guard", "guard"], [...at, "assembled_guard", "guard_config"]);
      continue;
    }
    // The guard, with its settings as a run reads them (plain numbers).
    if (pair.guard !== null) {
      const guards = pair.guards === undefined ? undefined : (plain(pairRaw.guards) as unknown[]);
      checkGuard(pair, pair.guard, plain(pair.guardConfig) as Config, [...at, "guard"], [...at, "guard_config"], guards, [...at, "guards"]);
    }
    if (pair.guards !== undefined && pair.guard !== "composite") {
      error(
        [...at, "guards"],
        `"guards" lists the guards of a composite guard, but this pair's guard is ${pair.guard === null ? "not set" : `"${pair.guard}"`}; set guard: composite, or remove "guards"`,
        true,
      );
    }

    // The generator, named on the pair or the workflow.
    const generatorAt: Key[] = Object.hasOwn(pairRaw, "generator") ? [...at, "generator"] : ["generator"];
    if (pair.generator === null) {
      if (reference) {
        if (!noGenerator.includes(pair.template ?? pair.id)) noGenerator.push(pair.template ?? pair.id);
      } else
        error(
          at,
          `the pair names no generator, and the workflow none for it; set "generator" (${Object.keys(GENERATOR_SETTINGS).sort().join(", ")}) on the pair or the workflow`,
        );
    } else if (!Object.hasOwn(GENERATOR_SETTINGS, pair.generator)) {
      const hint = didYouMean(pair.generator, Object.keys(GENERATOR_SETTINGS));
      if (hint)
        error(generatorAt, `unknown generator "${pair.generator}"; did you mean "${hint}"? pairflow has: ${Object.keys(GENERATOR_SETTINGS).sort().join(", ")}`);
      else {
        const entry = unknownGenerators.get(pair.generator) ?? { pairs: new Set<string>(), at: generatorAt };
        entry.pairs.add(pair.template ?? pair.id);
        unknownGenerators.set(pair.generator, entry);
      }
    } else {
      const config = plain(pair.generatorConfig) as Config;
      const settings = { ...COMMON, ...GENERATOR_SETTINGS[pair.generator]! };
      // Each key is shown where it is written: on the pair, else in the workflow's defaults.
      const own = objectOr(pairRaw.generator_config);
      for (const key of Object.keys(config)) {
        const where: Key[] = Object.hasOwn(own, key) ? [...at, "generator_config"] : ["generator_config"];
        checkSettings({ [key]: config[key] }, settings, where, `the ${pair.generator} generator`, error, unknownKey);
      }
      if (pair.generator === "command" && config.run === undefined) {
        error(
          Object.hasOwn(pairRaw, "generator_config") ? [...at, "generator_config"] : at,
          "the command generator needs generator_config.run: the shell command that prints the artifact",
        );
      }
    }

    const wrapper = pair.prompt?.feedback_wrapper;
    if (typeof wrapper === "string" && !wrapper.includes("{feedback}") && sources.prompts) {
      warn(
        sources.prompts,
        [pair.template ?? pair.id, "feedback_wrapper"],
        "has no {feedback}, so a retry never shows the guard's feedback; add {feedback} where it belongs",
      );
    }
  }

  // Two pairs writing one file: the later would overwrite the earlier's accepted artifact.
  const outputs = new Map<string, string>();
  for (const pair of workflow.pairs.values()) {
    if (pair.output === undefined) continue;
    const target = path.resolve(workflow.dir, pair.output);
    const first = outputs.get(target);
    if (first === undefined) outputs.set(target, pair.id);
    else
      error(
        ["action_pairs", pair.template ?? pair.id, "output"],
        `"${pair.output}" is also the output of pair "${first}"; each pair needs its own output file`,
      );
  }

  for (const [name, { pairs, at }] of unknownGuards) {
    warn(file, at, `guard "${name}" is not one of pairflow's (${Object.keys(GUARD_SETTINGS).sort().join(", ")}); run will fail ${pairList([...pairs])}`);
  }
  for (const [name, { pairs, at }] of unknownGenerators) {
    warn(
      file,
      at,
      `generator "${name}" is not one of pairflow's (${Object.keys(GENERATOR_SETTINGS).sort().join(", ")}); run will fail ${pairList([...pairs])}`,
    );
  }
  if (noGenerator.length > 0) {
    warn(
      file,
      ["action_pairs", noGenerator[0]!],
      `no generator is set for ${pairList(noGenerator).replace(/^for /, "")}; run will fail them until "generator" names one of pairflow's (${Object.keys(GENERATOR_SETTINGS).sort().join(", ")})`,
      true,
    );
  }
  if (ignored.length > 0) {
    const keys = [...new Set(ignored.map((i) => i.key))];
    const shown = keys.length > 8 ? [...keys.slice(0, 8), `and ${keys.length - 8} more`] : keys;
    issues.push({
      ...ignored[0]!,
      key: "",
      severity: "warning",
      message: `settings unknown to pairflow's guards and generators, ignored: ${shown.join(", ")}`,
    });
  }
  // Compiled as the guard compiles them (src/guards/jsonSchema.ts). The compiler is loaded only for
  // a workflow with such a schema: most have none, and it is a good part of what validate loads.
  if (schemas.length > 0) {
    const { compileJsonSchema } = await import("./jsonSchema.js");
    for (const { schema, at } of schemas) {
      try {
        compileJsonSchema(schema);
      } catch (err) {
        error(at, `is not a valid JSON Schema (2020-12): ${(err as Error).message}`);
      }
    }
  }
  return sortIssues(once(issues));
}

/** Each problem once: the instances of a foreach pair share their template's. */
function once(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const id = `${i.file}:${i.line}:${i.column}:${i.message}`;
    return !seen.has(id) && seen.add(id) !== undefined;
  });
}

function pairList(pairs: string[]): string {
  return `for ${pairs.length === 1 ? "pair" : "pairs"} ${quoteList(pairs)}`;
}

function checkSettings(
  config: Config,
  rules: Record<string, Rule>,
  at: Key[],
  what: string,
  error: (keyPath: readonly Key[], message: string) => void,
  unknownKey: (keyPath: readonly Key[], key: string, known: string[], what: string) => void,
): void {
  for (const [key, value] of Object.entries(config)) {
    if (key.startsWith("x-")) continue;
    const rule = rules[key];
    if (!Object.hasOwn(rules, key) || !rule) {
      unknownKey(at, key, Object.keys(rules), what);
      continue;
    }
    if (value === null) continue; // the guards and generators read null as absent
    const expected = rule(value);
    if (expected) error([...at, key], `${key} of ${what} must be ${expected}; found ${describe(value)}`);
  }
}

function flagsOk(flags: string): boolean {
  try {
    new RegExp("", flags);
    return true;
  } catch {
    return false;
  }
}

/** The json_schema guard's schema: one of schema and schema_file, and a JSON Schema that compiles. */
function checkSchema(
  config: Config,
  at: Key[],
  needAt: Key[],
  workflow: Pick<Loaded["workflow"], "dir" | "root">,
  files: ConfigFiles,
  error: (keyPath: readonly Key[], message: string) => void,
  schemas: { schema: object | boolean; at: Key[] }[],
): void {
  const inline = config.schema;
  const file = config.schema_file;
  if (inline !== undefined && inline !== null && file !== undefined && file !== null) {
    error(at, "the json_schema guard takes guard_config.schema or guard_config.schema_file, not both");
    return;
  }
  let schema: unknown = inline;
  let where: Key[] = [...at, "schema"];
  if (typeof file === "string" && file !== "") {
    where = [...at, "schema_file"];
    const absolute = path.resolve(workflow.dir, file);
    // Looked at before it is read: a file outside the repository is never read, nor quoted.
    const problem = namedFileProblem(files, absolute, realRootOf(files, workflow.root));
    if (problem !== undefined) {
      error(where, `"${file}" ${problem}`);
      return;
    }
    if (!files.exists(absolute)) {
      error(where, `"${file}" does not exist (schema_file is relative to the workflow file)`);
      return;
    }
    const json = absolute.endsWith(".json");
    try {
      const text = files.read(absolute);
      schema = json ? JSON.parse(text) : yamlValue(text, file);
    } catch (err) {
      // JSON.parse's message quotes the text around the mistake: only its place is shown.
      const message = err instanceof SyntaxError ? jsonPlace(err, files, absolute) : (err as Error).message;
      error(where, `cannot read "${file}" as ${json ? "JSON" : "YAML"}: ${message}`);
      return;
    }
  } else if (inline === undefined || inline === null) {
    if (file === undefined || file === null) {
      error(
        needAt,
        "the json_schema guard needs a schema: set guard_config.schema to a JSON Schema, or guard_config.schema_file to a JSON or YAML file holding one",
      );
    }
    return;
  }
  if (typeof schema !== "boolean" && !isObject(schema)) {
    error(where, "the schema must be a mapping (a JSON Schema object)");
    return;
  }
  schemas.push({ schema: schema as object | boolean, at: where });
}

/** A YAML schema file's value, read as the configuration is (positions, aliases bounded); throws with the first problem. */
function yamlValue(text: string, shown: string): unknown {
  const issues: Parameters<typeof parseText>[2] = [];
  const parsed = parseText(text, shown, issues);
  if (!parsed) throw new Error(`line ${issues[0]!.line}, column ${issues[0]!.column}: ${issues[0]!.message}`);
  return parsed.doc.toJS({ maxAliasCount: -1 });
}

/** Where JSON.parse stopped, as line and column, without the text there. */
function jsonPlace(err: SyntaxError, files: ConfigFiles, file: string): string {
  const offset = /position (\d+)/.exec(err.message)?.[1];
  if (offset === undefined) return "not valid JSON";
  const before = files.read(file).slice(0, Number(offset)).split("\n");
  return `not valid JSON at line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (isObject(value)) return "a mapping";
  const text = JSON.stringify(value);
  return `${typeof value === "string" ? "the text" : `the ${typeof value}`} ${text.length > 60 ? text.slice(0, 57) + "..." : text}`;
}

/**
 * Whether a shell command names a file (relative to where it runs) as a word of its own, as the
 * analysis of what it reads finds it (src/workspace/reads/): quoted or not, with or without `./`,
 * redirected in or not.
 */
function namesFile(run: string, file: string): boolean {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[\\s<(])["']?(?:\\./)?${escaped}["']?(?=$|[\\s;|&)<>])`).test(run);
}

/** A command with the variables its `env` gives written in (`$IN`, `${IN}`), as the analysis of what it reads takes them. */
function withEnv(run: string, env: unknown): string {
  if (!isObject(env)) return run;
  return run.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (all, braced?: string, bare?: string) => {
    const value = env[(braced ?? bare)!];
    return typeof value === "string" ? value : all;
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function objectOr(v: unknown): Record<string, unknown> {
  return isObject(v) ? v : {};
}
