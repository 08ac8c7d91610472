#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  didYouMean,
  issueAt,
  namedFileProblem,
  parseText,
  plain,
  quoteList,
  realRootOf,
  sortIssues
} from "./cli-chunk-BXCSBTXN.js";

// src/config/check.ts
import path from "node:path";
var string = (v) => typeof v === "string" && v !== "" ? void 0 : "a non-empty string";
var bool = (v) => typeof v === "boolean" ? void 0 : "true or false";
var positive = (v) => typeof v === "number" && Number.isFinite(v) && v > 0 ? void 0 : "a number greater than 0";
var nonNegative = (v) => typeof v === "number" && Number.isFinite(v) && v >= 0 ? void 0 : "a number of at least 0";
var count = (v) => typeof v === "number" && Number.isInteger(v) && v >= 0 ? void 0 : "a whole number of at least 0";
var atLeastOne = (v) => typeof v === "number" && Number.isInteger(v) && v >= 1 ? void 0 : "a whole number of at least 1";
var stringMap = (v) => isObject(v) && Object.values(v).every((x) => typeof x === "string") ? void 0 : "a mapping of names to strings";
var stringOrList = (v) => typeof v === "string" || Array.isArray(v) && v.every((x) => typeof x === "string") ? void 0 : "a string or a list of strings";
var list = (v) => Array.isArray(v) ? void 0 : "a list";
var anything = () => void 0;
var exitStatus = (v) => typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 255;
var exitStatuses = (v) => exitStatus(v) || Array.isArray(v) && v.length > 0 && v.every(exitStatus) ? void 0 : "an exit status from 1 to 255, or a list of them";
var COMMON = { files: list };
var GUARD_SETTINGS = {
  command: { run: string, timeout: positive, env: stringMap, network: bool, reject_exit_codes: exitStatuses, guard_retries: count },
  composite: { policy: string, guards: list },
  contains: { text: stringOrList, absent: stringOrList, all: bool },
  json: {},
  json_schema: { schema: anything, schema_file: string },
  regex: { pattern: string, flags: (v) => typeof v === "string" ? void 0 : "a string", must_match: bool }
};
var fallback = (v) => v === "sync" || v === "fail" ? void 0 : '"sync" (call the synchronous endpoint) or "fail"';
var perMinute = (v) => typeof v === "number" && Number.isFinite(v) && v > 0;
var rateLimit = (v) => isObject(v) && Object.keys(v).length > 0 && Object.entries(v).every(([key, n]) => (key === "requests_per_minute" || key === "tokens_per_minute") && perMinute(n)) ? void 0 : "{requests_per_minute, tokens_per_minute}, either or both a number greater than 0";
var HTTP = {
  batch: bool,
  rate_limit: rateLimit,
  batch_fallback: fallback,
  base_url: string,
  api_key_env: string,
  headers: stringMap,
  timeout: positive,
  retries: count,
  temperature: nonNegative,
  max_tokens: atLeastOne
};
var GENERATOR_SETTINGS = {
  // api_key_env: a key variable the command keeps (src/app/environment.ts); max_tokens: for estimates.
  command: { run: string, timeout: positive, env: stringMap, network: bool, api_key_env: string, max_tokens: atLeastOne },
  openai: { ...HTTP, api_version: string },
  anthropic: HTTP
};
var POLICIES = ["all_pass", "any_pass", "majority_pass"];
async function checkWorkflow(loaded, files) {
  const { workflow, format, sources } = loaded;
  const reference = format === "reference";
  const file = sources.workflow;
  const issues = [];
  const ignored = [];
  const error = (keyPath, message, onKey = false) => issues.push(issueAt(file, keyPath, message, onKey));
  const warn = (f, keyPath, message, onKey = false) => issues.push({ ...issueAt(f, keyPath, message, onKey), severity: "warning" });
  const unknownKey = (keyPath, key, known, what) => {
    const hint = didYouMean(key, known);
    const message = `unknown key "${key}" for ${what}` + (hint ? `; did you mean "${hint}"?` : "") + `; expected one of: ${known.join(", ")}`;
    if (hint || !reference) error([...keyPath, key], message, true);
    else ignored.push(issueAt(file, [...keyPath, key], message, true));
  };
  const rawPairs = objectOr(objectOr(plain(file.fastValue ?? file.doc.toJS({ maxAliasCount: -1 }))).action_pairs);
  const raw = (pair) => {
    const id = pair.template ?? pair.id;
    return objectOr(Object.hasOwn(rawPairs, id) ? rawPairs[id] : void 0);
  };
  const schemas = [];
  const unknownGuards = /* @__PURE__ */ new Map();
  const unknownGenerators = /* @__PURE__ */ new Map();
  const noGenerator = [];
  const checkGuard = (pair, name, config, nameAt, configAt, guards, guardsAt) => {
    const settings = GUARD_SETTINGS[name];
    if (!Object.hasOwn(GUARD_SETTINGS, name) || !settings) {
      const hint = didYouMean(name, Object.keys(GUARD_SETTINGS));
      if (hint) error(nameAt, `unknown guard "${name}"; did you mean "${hint}"? pairflow has: ${Object.keys(GUARD_SETTINGS).sort().join(", ")}`);
      else {
        const entry = unknownGuards.get(name) ?? { pairs: /* @__PURE__ */ new Set(), at: nameAt };
        entry.pairs.add(pair.template ?? pair.id);
        unknownGuards.set(name, entry);
      }
      return;
    }
    const what = `the ${name} guard`;
    const needAt = Object.keys(config).length > 0 ? configAt : nameAt;
    checkSettings(config, { ...COMMON, ...settings }, configAt, what, error, unknownKey);
    switch (name) {
      case "regex": {
        if (typeof config.pattern !== "string" || config.pattern === "") {
          if (config.pattern === void 0) error(needAt, `the regex guard needs guard_config.pattern: a regular expression, e.g. "^# "`);
          break;
        }
        try {
          new RegExp(config.pattern, typeof config.flags === "string" ? config.flags : "");
        } catch (err) {
          error(
            [...configAt, typeof config.flags === "string" && !flagsOk(config.flags) ? "flags" : "pattern"],
            `is not a valid regular expression: ${err.message}`
          );
        }
        break;
      }
      case "command":
        if (config.run === void 0) error(needAt, `the command guard needs guard_config.run: a shell command, e.g. "npm test"`);
        break;
      case "contains":
        if (config.text === void 0 && config.absent === void 0) {
          error(needAt, "the contains guard needs guard_config.text (text that must appear) or guard_config.absent (text that must not)");
        }
        break;
      case "json_schema":
        checkSchema(config, configAt, needAt, workflow, files, error, schemas);
        break;
      case "composite": {
        if (config.policy !== void 0 && typeof config.policy === "string" && !POLICIES.includes(config.policy)) {
          const hint = didYouMean(config.policy, POLICIES);
          error(
            [...configAt, "policy"],
            `unknown policy "${config.policy}"` + (hint ? `; did you mean "${hint}"?` : "") + `; expected one of: ${POLICIES.join(", ")}`
          );
        }
        const [subs, subsAt] = guards !== void 0 ? [guards, guardsAt] : [Array.isArray(config.guards) ? config.guards : [], [...configAt, "guards"]];
        if (subs.length === 0) {
          error(
            guards !== void 0 ? guardsAt : nameAt,
            'the composite guard lists no guards: list them under "guards" on the pair (or guard_config.guards)'
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
  const wholeFileSaid = /* @__PURE__ */ new Set();
  for (const pair of workflow.pairs.values()) {
    const at = ["action_pairs", pair.template ?? pair.id];
    const pairRaw = raw(pair);
    if (pair.piece !== void 0 && !wholeFileSaid.has(at[1])) {
      wholeFileSaid.add(at[1]);
      for (const [setting, config] of [
        ["generator_config", pair.generator === "command" ? pair.generatorConfig : void 0],
        ["guard_config", pair.guard === "command" ? pair.guardConfig : void 0]
      ]) {
        const run = config?.run;
        if (typeof run !== "string" || !namesFile(withEnv(run, config.env), pair.piece.file)) continue;
        const where = Object.hasOwn(objectOr(pairRaw[setting]), "run") ? [...at, setting, "run"] : [setting, "run"];
        warn(
          file,
          where,
          `names the whole file being split (${pair.piece.file} for ${pair.id}): a file a command names is part of its reference, so every piece of the file runs again on any edit of it; give the command the piece instead ({piece}, or the prompt's task, which holds it) and leave {file} out of it`
        );
      }
    }
    if (pair.assembly !== void 0) {
      if (pair.guard !== null)
        checkGuard(pair, pair.guard, plain(pair.guardConfig), [...at, "assembled_guard", "guard"], [...at, "assembled_guard", "guard_config"]);
      continue;
    }
    if (pair.guard !== null) {
      const guards = pair.guards === void 0 ? void 0 : plain(pairRaw.guards);
      checkGuard(pair, pair.guard, plain(pair.guardConfig), [...at, "guard"], [...at, "guard_config"], guards, [...at, "guards"]);
    }
    if (pair.guards !== void 0 && pair.guard !== "composite") {
      error(
        [...at, "guards"],
        `"guards" lists the guards of a composite guard, but this pair's guard is ${pair.guard === null ? "not set" : `"${pair.guard}"`}; set guard: composite, or remove "guards"`,
        true
      );
    }
    const generatorAt = Object.hasOwn(pairRaw, "generator") ? [...at, "generator"] : ["generator"];
    if (pair.generator === null) {
      if (reference) {
        if (!noGenerator.includes(pair.template ?? pair.id)) noGenerator.push(pair.template ?? pair.id);
      } else
        error(
          at,
          `the pair names no generator, and the workflow none for it; set "generator" (${Object.keys(GENERATOR_SETTINGS).sort().join(", ")}) on the pair or the workflow`
        );
    } else if (!Object.hasOwn(GENERATOR_SETTINGS, pair.generator)) {
      const hint = didYouMean(pair.generator, Object.keys(GENERATOR_SETTINGS));
      if (hint)
        error(generatorAt, `unknown generator "${pair.generator}"; did you mean "${hint}"? pairflow has: ${Object.keys(GENERATOR_SETTINGS).sort().join(", ")}`);
      else {
        const entry = unknownGenerators.get(pair.generator) ?? { pairs: /* @__PURE__ */ new Set(), at: generatorAt };
        entry.pairs.add(pair.template ?? pair.id);
        unknownGenerators.set(pair.generator, entry);
      }
    } else {
      const config = plain(pair.generatorConfig);
      const settings = { ...COMMON, ...GENERATOR_SETTINGS[pair.generator] };
      const own = objectOr(pairRaw.generator_config);
      for (const key of Object.keys(config)) {
        const where = Object.hasOwn(own, key) ? [...at, "generator_config"] : ["generator_config"];
        checkSettings({ [key]: config[key] }, settings, where, `the ${pair.generator} generator`, error, unknownKey);
      }
      if (pair.generator === "command" && config.run === void 0) {
        error(
          Object.hasOwn(pairRaw, "generator_config") ? [...at, "generator_config"] : at,
          "the command generator needs generator_config.run: the shell command that prints the artifact"
        );
      }
    }
    const wrapper = pair.prompt?.feedback_wrapper;
    if (typeof wrapper === "string" && !wrapper.includes("{feedback}") && sources.prompts) {
      warn(
        sources.prompts,
        [pair.template ?? pair.id, "feedback_wrapper"],
        "has no {feedback}, so a retry never shows the guard's feedback; add {feedback} where it belongs"
      );
    }
  }
  const outputs = /* @__PURE__ */ new Map();
  for (const pair of workflow.pairs.values()) {
    if (pair.output === void 0) continue;
    const target = path.resolve(workflow.dir, pair.output);
    const first = outputs.get(target);
    if (first === void 0) outputs.set(target, pair.id);
    else
      error(
        ["action_pairs", pair.template ?? pair.id, "output"],
        `"${pair.output}" is also the output of pair "${first}"; each pair needs its own output file`
      );
  }
  for (const [name, { pairs, at }] of unknownGuards) {
    warn(file, at, `guard "${name}" is not one of pairflow's (${Object.keys(GUARD_SETTINGS).sort().join(", ")}); run will fail ${pairList([...pairs])}`);
  }
  for (const [name, { pairs, at }] of unknownGenerators) {
    warn(
      file,
      at,
      `generator "${name}" is not one of pairflow's (${Object.keys(GENERATOR_SETTINGS).sort().join(", ")}); run will fail ${pairList([...pairs])}`
    );
  }
  if (noGenerator.length > 0) {
    warn(
      file,
      ["action_pairs", noGenerator[0]],
      `no generator is set for ${pairList(noGenerator).replace(/^for /, "")}; run will fail them until "generator" names one of pairflow's (${Object.keys(GENERATOR_SETTINGS).sort().join(", ")})`,
      true
    );
  }
  if (ignored.length > 0) {
    const keys = [...new Set(ignored.map((i) => i.key))];
    const shown = keys.length > 8 ? [...keys.slice(0, 8), `and ${keys.length - 8} more`] : keys;
    issues.push({
      ...ignored[0],
      key: "",
      severity: "warning",
      message: `settings unknown to pairflow's guards and generators, ignored: ${shown.join(", ")}`
    });
  }
  if (schemas.length > 0) {
    const { compileJsonSchema } = await import("./cli-jsonSchema-JIFBOQ6K.js");
    for (const { schema, at } of schemas) {
      try {
        compileJsonSchema(schema);
      } catch (err) {
        error(at, `is not a valid JSON Schema (2020-12): ${err.message}`);
      }
    }
  }
  return sortIssues(once(issues));
}
function once(issues) {
  const seen = /* @__PURE__ */ new Set();
  return issues.filter((i) => {
    const id = `${i.file}:${i.line}:${i.column}:${i.message}`;
    return !seen.has(id) && seen.add(id) !== void 0;
  });
}
function pairList(pairs) {
  return `for ${pairs.length === 1 ? "pair" : "pairs"} ${quoteList(pairs)}`;
}
function checkSettings(config, rules, at, what, error, unknownKey) {
  for (const [key, value] of Object.entries(config)) {
    if (key.startsWith("x-")) continue;
    const rule = rules[key];
    if (!Object.hasOwn(rules, key) || !rule) {
      unknownKey(at, key, Object.keys(rules), what);
      continue;
    }
    if (value === null) continue;
    const expected = rule(value);
    if (expected) error([...at, key], `${key} of ${what} must be ${expected}; found ${describe(value)}`);
  }
}
function flagsOk(flags) {
  try {
    new RegExp("", flags);
    return true;
  } catch {
    return false;
  }
}
function checkSchema(config, at, needAt, workflow, files, error, schemas) {
  const inline = config.schema;
  const file = config.schema_file;
  if (inline !== void 0 && inline !== null && file !== void 0 && file !== null) {
    error(at, "the json_schema guard takes guard_config.schema or guard_config.schema_file, not both");
    return;
  }
  let schema = inline;
  let where = [...at, "schema"];
  if (typeof file === "string" && file !== "") {
    where = [...at, "schema_file"];
    const absolute = path.resolve(workflow.dir, file);
    const problem = namedFileProblem(files, absolute, realRootOf(files, workflow.root));
    if (problem !== void 0) {
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
      const message = err instanceof SyntaxError ? jsonPlace(err, files, absolute) : err.message;
      error(where, `cannot read "${file}" as ${json ? "JSON" : "YAML"}: ${message}`);
      return;
    }
  } else if (inline === void 0 || inline === null) {
    if (file === void 0 || file === null) {
      error(
        needAt,
        "the json_schema guard needs a schema: set guard_config.schema to a JSON Schema, or guard_config.schema_file to a JSON or YAML file holding one"
      );
    }
    return;
  }
  if (typeof schema !== "boolean" && !isObject(schema)) {
    error(where, "the schema must be a mapping (a JSON Schema object)");
    return;
  }
  schemas.push({ schema, at: where });
}
function yamlValue(text, shown) {
  const issues = [];
  const parsed = parseText(text, shown, issues);
  if (!parsed) throw new Error(`line ${issues[0].line}, column ${issues[0].column}: ${issues[0].message}`);
  return parsed.doc.toJS({ maxAliasCount: -1 });
}
function jsonPlace(err, files, file) {
  const offset = /position (\d+)/.exec(err.message)?.[1];
  if (offset === void 0) return "not valid JSON";
  const before = files.read(file).slice(0, Number(offset)).split("\n");
  return `not valid JSON at line ${before.length}, column ${before[before.length - 1].length + 1}`;
}
function describe(value) {
  if (Array.isArray(value)) return "a list";
  if (isObject(value)) return "a mapping";
  const text = JSON.stringify(value);
  return `${typeof value === "string" ? "the text" : `the ${typeof value}`} ${text.length > 60 ? text.slice(0, 57) + "..." : text}`;
}
function namesFile(run, file) {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[\\s<(])["']?(?:\\./)?${escaped}["']?(?=$|[\\s;|&)<>])`).test(run);
}
function withEnv(run, env) {
  if (!isObject(env)) return run;
  return run.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (all, braced, bare) => {
    const value = env[braced ?? bare];
    return typeof value === "string" ? value : all;
  });
}
function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
function objectOr(v) {
  return isObject(v) ? v : {};
}

export {
  checkWorkflow
};
