#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  componentsOf,
  lockEntry
} from "./cli-chunk-7NHSQKXA.js";
import {
  PyFloat,
  UsageError,
  canonicalJsonOfBoth,
  canonicalJsonOfTextLists,
  dict,
  dictOf,
  didYouMean,
  digestOf,
  downstreamOf,
  grouped,
  own,
  plain,
  sha256Hex,
  sharedValue
} from "./cli-chunk-BXCSBTXN.js";

// src/estimate/prices.ts
var BUILT_IN_PRICES_AS_OF = "2026-03";
var openai = (input, cachedInput, output) => ({ input, output, cachedInput, batchDiscount: 0.5 });
var anthropic = (input, output) => ({
  input,
  output,
  cachedInput: round(input * 0.1),
  cacheWrite: round(input * 1.25),
  batchDiscount: 0.5
});
function round(n) {
  return Math.round(n * 1e6) / 1e6;
}
var BUILT_IN_PRICES = {
  // OpenAI: cached input is a tenth of input for the gpt-5 family, a quarter for gpt-4.1, o3 and
  // o4-mini, a half for gpt-4o and o3-mini.
  "gpt-5": openai(1.25, 0.125, 10),
  "gpt-5-mini": openai(0.25, 0.025, 2),
  "gpt-5-nano": openai(0.05, 5e-3, 0.4),
  "gpt-4.1": openai(2, 0.5, 8),
  "gpt-4.1-mini": openai(0.4, 0.1, 1.6),
  "gpt-4.1-nano": openai(0.1, 0.025, 0.4),
  "gpt-4o": openai(2.5, 1.25, 10),
  "gpt-4o-mini": openai(0.15, 0.075, 0.6),
  o3: openai(2, 0.5, 8),
  "o3-mini": openai(1.1, 0.55, 4.4),
  "o4-mini": openai(1.1, 0.275, 4.4),
  // Anthropic (Sonnet's price for prompts up to 200K tokens)
  "claude-opus-4-5": anthropic(5, 25),
  "claude-opus-4-1": anthropic(15, 75),
  "claude-opus-4-0": anthropic(15, 75),
  "claude-opus-4": anthropic(15, 75),
  "claude-sonnet-4-5": anthropic(3, 15),
  "claude-sonnet-4-0": anthropic(3, 15),
  "claude-sonnet-4": anthropic(3, 15),
  "claude-3-7-sonnet": anthropic(3, 15),
  "claude-haiku-4-5": anthropic(1, 5),
  "claude-3-5-haiku": anthropic(0.8, 4),
  // Claude 3 Haiku's cache prices are its own, not 0.1x and 1.25x of input.
  "claude-3-haiku": { ...anthropic(0.25, 1.25), cachedInput: 0.03, cacheWrite: 0.3 }
};
function cacheMinTokens(model) {
  const base = model === null ? "" : baseModelName(model);
  if (base === "claude-opus-4-5" || base === "claude-haiku-4-5") return 4096;
  if (base === "claude-3-5-haiku" || base === "claude-3-haiku") return 2048;
  return 1024;
}
function priceFor(model, pricing = {}) {
  if (model === null) return null;
  const own2 = Object.hasOwn(pricing, model) ? pricing[model] : void 0;
  if (own2) return { ...own2, source: "workflow" };
  const base = baseModelName(model);
  const builtIn = Object.hasOwn(BUILT_IN_PRICES, base) ? BUILT_IN_PRICES[base] : void 0;
  return builtIn ? { ...builtIn, source: "built-in" } : null;
}
function baseModelName(model) {
  return model.slice(model.lastIndexOf("/") + 1).toLowerCase().replace(/-(latest|\d{4}-\d{2}-\d{2}|\d{8})$/, "");
}
function costOf(tokens, price) {
  const read = Math.min(Math.max(tokens.cacheRead ?? 0, 0), tokens.input);
  const write = Math.min(Math.max(tokens.cacheWrite ?? 0, 0), tokens.input - read);
  const fresh = tokens.input - read - write;
  const usd2 = fresh * price.input + read * (price.cachedInput ?? price.input) + write * (price.cacheWrite ?? price.input) + tokens.output * price.output;
  return usd2 / 1e6 * (tokens.batch ? 1 - (price.batchDiscount ?? 0) : 1);
}
function usd(amount) {
  if (amount === 0) return "$0.00";
  if (amount >= 1) return `$${amount.toFixed(2)}`;
  if (amount < 1e-6) return "<$0.000001";
  return `$${amount.toPrecision(2)}`;
}
function parseUsd(text2) {
  const value = text2.trim().replace(/^\$/, "");
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(value)) return void 0;
  return Number(value);
}

// src/model/component.ts
var SINGLE = /* @__PURE__ */ new Set(["model", "guard", "guards", "generator", "layout", "piece"]);
var PREFIXES = [
  ["prompt", "prompt."],
  ["context", "context."],
  ["guard_config", "guard_config."],
  ["generator_config", "generator_config."],
  ["input", "input:"],
  ["generator_file", "generator_file:"],
  ["guard_file", "guard_file:"],
  ["observed", "observed:"],
  ["upstream", "upstream:"],
  ["artifact", "artifact:"]
];
var PREFIX_OF = new Map(PREFIXES);
function componentKey(c) {
  if (c.kind === "other") return c.name;
  if (SINGLE.has(c.kind)) return c.kind;
  return PREFIX_OF.get(c.kind) + c.name;
}
function componentOfKey(key, digest) {
  const id = componentIdOfKey(key);
  return { kind: id.kind, name: id.name, digest, label: componentLabel(id) };
}
function componentIdOfKey(key) {
  if (SINGLE.has(key)) return { kind: key, name: "" };
  for (const [kind, prefix] of PREFIXES) if (key.startsWith(prefix)) return { kind, name: key.slice(prefix.length) };
  return { kind: "other", name: key };
}
function component(kind, name, digest) {
  return { kind, name, digest, label: componentLabel({ kind, name }) };
}
function componentLabel(c) {
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
function isUpstream(c) {
  return c.kind === "upstream" || c.kind === "artifact";
}
function componentsOfLock(digests) {
  return Object.entries(digests).map(([key, digest]) => componentOfKey(key, digest));
}

// src/prompt/render.ts
var PROMPT_LAYOUT = 1;
var FEEDBACK_TOKEN = "{feedback}";
var DEFAULT_FEEDBACK_WRAPPER = "Your previous attempt was rejected:\n{feedback}\n\nAddress this and try again.";
function renderPrompt(input) {
  return renderPromptParts(input).text;
}
var UNIT_SEPARATOR = "\n\n";
function renderPromptParts(input) {
  const { units, prefixUnits } = renderPromptUnits(input);
  const lengthOf = (n) => {
    let length = n > 0 ? (n - 1) * UNIT_SEPARATOR.length : 0;
    for (let i = 0; i < n; i++) length += units[i].length;
    return length;
  };
  return { text: units.join(UNIT_SEPARATOR), prefixEnds: prefixUnits.map(lengthOf) };
}
function renderPromptUnits(input) {
  const prompt = input.prompt ?? {};
  const units = [];
  const add = (title, body) => {
    if (body !== void 0) units.push(`# ${title}

${body}`);
  };
  add("Role", text(prompt.role));
  add("Constraints", text(prompt.constraints));
  const own2 = units.length;
  const context = contextUnit(input.specification, input.constraints);
  if (context !== void 0) units.push(context);
  const prefixUnits = [units.length];
  const blocks2 = dependencyBlocks(input.dependencies);
  if (blocks2.length > 0) {
    units.push("# Dependencies");
    for (const block of blocks2) {
      units.push(block);
      prefixUnits.push(units.length);
    }
  }
  const shared = [own2, units.length];
  add("History", history(input.history, prompt.feedback_wrapper));
  if (input.revision !== void 0) add("Revision", revision(input.revision));
  add("Glossary", glossary(prompt.glossary));
  add("Task", text(prompt.task));
  return { units, prefixUnits, shared };
}
var byProviderAndModel = (pair) => JSON.stringify([pair.generator, pair.model]);
function sharedPrefixes(pairs, context, group = () => "") {
  const contextText = contextSection(context.specification, context.constraints);
  const root = /* @__PURE__ */ new Map();
  const step = (level, key) => {
    let node = level.get(key);
    if (node === void 0) level.set(key, node = { count: 0, next: /* @__PURE__ */ new Map() });
    node.count++;
    return node;
  };
  const numbers = /* @__PURE__ */ new Map();
  const numberOf = (value) => {
    let n = numbers.get(value);
    if (n === void 0) numbers.set(value, n = numbers.size);
    return n;
  };
  const walked = [];
  for (const pair of pairs) {
    const role = text(pair.prompt?.role);
    const constraints = text(pair.prompt?.constraints);
    const deps = [...pair.requires].sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
    let node = step(root, `${numberOf(group(pair))} ${numberOf(role)} ${numberOf(constraints)}`);
    const path = [node];
    for (const dep of deps) path.push(node = step(node.next, dep));
    walked.push({ id: pair.id, path, empty: role === void 0 && constraints === void 0 && contextText === void 0 });
  }
  const shared = /* @__PURE__ */ new Map();
  for (const { id, path, empty } of walked) {
    let depth = path.length - 1;
    while (depth >= 0 && path[depth].count < 2) depth--;
    if (depth > 0 || depth === 0 && !empty) shared.set(id, depth);
  }
  return shared;
}
var REVISION_INTRO = "A person revised the previous output like this; keep their changes where they still apply:";
function revision(edit) {
  const fence = fenceFor(edit);
  return `${REVISION_INTRO}

${fence}
${edit}${edit.endsWith("\n") ? "" : "\n"}${fence}`;
}
var GLOSSARY_INTRO = "Translate these terms as given:";
function glossary(entries) {
  if (entries === void 0 || Object.keys(entries).length === 0) return void 0;
  return `${GLOSSARY_INTRO}

${Object.entries(entries).map(([term, translation]) => `- ${term}: ${translation}`).join("\n")}`;
}
function wrapFeedback(wrapper, feedback) {
  return wrapper.split(FEEDBACK_TOKEN).join(feedback);
}
function fenceFor(content) {
  let longest = 0;
  for (const run of content.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(3, longest + 1));
}
function text(value) {
  if (value === void 0) return void 0;
  const trimmed = value.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd();
  return trimmed === "" ? void 0 : trimmed;
}
function contextSection(specification, constraints) {
  const spec = text(specification);
  const cons = text(constraints);
  const parts = [];
  if (spec !== void 0) parts.push(`## Specification

${spec}`);
  if (cons !== void 0) parts.push(`## Workflow constraints

${cons}`);
  return parts.length === 0 ? void 0 : parts.join("\n\n");
}
function contextUnit(specification, constraints) {
  if (lastContext === void 0 || lastContext.specification !== specification || lastContext.constraints !== constraints) {
    const body = contextSection(specification, constraints);
    lastContext = { specification, constraints, unit: body === void 0 ? void 0 : `# Context

${body}` };
  }
  return lastContext.unit;
}
var lastContext;
function dependencyBlocks(deps) {
  return [...deps].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0).map(({ id, content }) => blockOf(id, content));
}
function blockOf(id, content) {
  const known = blocks.get(id);
  if (known !== void 0 && known.content === content) return known.block;
  const fence = fenceFor(content);
  const body = content === "" || content.endsWith("\n") ? content : `${content}
`;
  const block = `## ${id}

${fence}
${body}${fence}`;
  if (blockChars + block.length > BLOCK_CHARS) {
    blocks.clear();
    blockChars = 0;
  }
  blocks.set(id, { content, block });
  blockChars += block.length;
  return block;
}
var blocks = /* @__PURE__ */ new Map();
var blockChars = 0;
var BLOCK_CHARS = 1 << 22;
function history(attempts, wrapper) {
  if (attempts.length === 0) return void 0;
  const template = wrapper !== void 0 && wrapper.trim() !== "" ? wrapper : DEFAULT_FEEDBACK_WRAPPER;
  return attempts.map(({ feedback }, i) => {
    const body = text(wrapFeedback(template, feedback));
    return body === void 0 ? `## Attempt ${i + 1}` : `## Attempt ${i + 1}

${body}`;
  }).join("\n\n");
}

// src/refs/configRef.ts
var TRANSPORT_KEYS = /* @__PURE__ */ new Set(["api_key_env", "timeout", "retries", "batch", "batch_fallback", "rate_limit"]);
var SECRET_HEADER = /key|token|secret|auth|cookie|password|credential/i;
function isSecretHeader(name) {
  return SECRET_HEADER.test(name);
}
function ownComponents(workflow, pair, inputs, files) {
  const own2 = {
    prompt: pair.prompt ?? {},
    model: pair.model,
    guard: pair.guard,
    guard_config: pair.guardConfig
  };
  const config = dict();
  for (const [key, value] of Object.entries(pair.generatorConfig)) {
    if (TRANSPORT_KEYS.has(key)) continue;
    if (key === "headers") {
      const headers = publicHeaders(value);
      if (headers !== void 0) config.headers = headers;
    } else config[key] = value;
  }
  if (pair.generator !== null || Object.keys(config).length > 0) own2.generator = { name: pair.generator, config };
  if (pair.generator !== null) own2.layout = PROMPT_LAYOUT;
  if (pair.guards !== void 0) own2.guards = pair.guards;
  if (workflow.specification !== void 0 || workflow.constraints !== void 0) own2.context = contextOf(workflow);
  if (pair.inputs.length > 0) own2.inputs = inputs ?? {};
  if (pair.piece !== void 0) own2.piece = sha256Hex(pair.piece.text);
  const read = {};
  if (files && Object.keys(files.generator).length > 0) read.generator = files.generator;
  if (files && Object.keys(files.guard).length > 0) read.guard = files.guard;
  if (files?.observed && Object.keys(files.observed).length > 0) read.observed = files.observed;
  if (Object.keys(read).length > 0) own2.files = read;
  return own2;
}
function withObserved(own2, observed) {
  const files = { ...own2.files };
  delete files.observed;
  if (Object.keys(observed).length > 0) files.observed = sortedObject(observed);
  const out = { ...own2 };
  delete out.files;
  if (Object.keys(files).length > 0) out.files = files;
  return out;
}
function contextOf(workflow) {
  let context = contexts.get(workflow);
  if (!context || context.specification !== workflow.specification || context.constraints !== workflow.constraints) {
    context = {};
    if (workflow.specification !== void 0) context.specification = workflow.specification;
    if (workflow.constraints !== void 0) context.constraints = workflow.constraints;
    contexts.set(workflow, sharedValue(Object.freeze(context)));
  }
  return context;
}
var contexts = /* @__PURE__ */ new WeakMap();
function publicHeaders(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof PyFloat) return value;
  const out = dict();
  for (const [name, v] of Object.entries(value)) if (!isSecretHeader(name)) out[name.toLowerCase()] = v;
  return Object.keys(out).length > 0 ? sortedObject(out) : void 0;
}
function configRef(own2, upstream) {
  const dependencies = { upstream_refs: upstream.refs, artifact_hashes: upstream.artifactHashes };
  return sha256Hex(canonicalJsonOfBoth(own2, dependencies));
}
function componentDigests(own2, upstream) {
  const out = dict();
  for (const [key, c] of keyedComponents(own2, upstream)) out[key] = c.digest;
  return out;
}
function keyed(kind, name, digest) {
  const c = component(kind, name, digest);
  return [componentKey(c), c];
}
function keyedComponents(own2, upstream) {
  const out = [];
  const put = (kind, name, value) => out.push(keyed(kind, name, digestOf(value).slice(0, 16)));
  const each = (kind, prefix, obj) => {
    for (const [k, v] of Object.entries(obj ?? {})) put(kind, `${prefix}${k}`, v);
  };
  const config = (kind, obj) => {
    for (const [k, v] of Object.entries(obj)) {
      if (MAP_KEYS.includes(k) && isMapping(v) && Object.keys(v).length > 0) each(kind, `${k}.`, v);
      else put(kind, k, v);
    }
  };
  if (isMapping(own2.prompt)) {
    for (const [k, v] of Object.entries(own2.prompt)) {
      if (k === "glossary" && isMapping(v)) each("prompt", "glossary.", v);
      else put("prompt", k, v);
    }
  }
  put("model", "", own2.model);
  put("guard", "", own2.guard);
  config("guard_config", own2.guard_config);
  if (own2.guards !== void 0) put("guards", "", own2.guards);
  if (own2.generator) {
    put("generator", "", own2.generator.name);
    config("generator_config", own2.generator.config);
  }
  if (own2.layout !== void 0) put("layout", "", own2.layout);
  if (own2.piece !== void 0) out.push(keyed("piece", "", own2.piece.slice(0, 16)));
  each("context", "", own2.context);
  for (const [file, hash] of Object.entries(own2.inputs ?? {})) out.push(keyed("input", file, hash.slice(0, 16)));
  for (const c of fileComponents("generator_file", own2.files?.generator)) out.push(c);
  for (const c of fileComponents("guard_file", own2.files?.guard)) out.push(c);
  for (const c of fileComponents("observed", own2.files?.observed)) out.push(c);
  for (const [dep, ref] of Object.entries(upstream.refs)) out.push(keyed("upstream", dep, ref.slice(0, 16)));
  for (const [dep, hash] of Object.entries(upstream.artifactHashes)) out.push(keyed("artifact", dep, hash.slice(0, 16)));
  return out.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
}
function fileComponents(kind, files) {
  if (files === void 0) return [];
  const known = Object.isFrozen(files) ? fileComponentCache.get(files)?.get(kind) : void 0;
  if (known !== void 0) return known;
  const made = Object.entries(files).map(([file, hash]) => keyed(kind, file, hash.slice(0, 16)));
  if (Object.isFrozen(files)) {
    const byKind = fileComponentCache.get(files) ?? /* @__PURE__ */ new Map();
    byKind.set(kind, made);
    fileComponentCache.set(files, byKind);
  }
  return made;
}
var fileComponentCache = /* @__PURE__ */ new WeakMap();
var MAP_KEYS = ["headers", "env"];
function isMapping(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof PyFloat);
}
function workflowRef(workflow) {
  const structure = /* @__PURE__ */ new Map();
  for (const pair of workflow.pairs.values()) structure.set(pair.id, [...pair.requires].sort());
  return sha256Hex(`{"action_pairs":${canonicalJsonOfTextLists(structure)}}`);
}
function sortedObject(obj) {
  return dictOf(Object.entries(obj).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

// src/refs/request.ts
var HTTP_GENERATORS = /* @__PURE__ */ new Set(["openai", "anthropic"]);
var REQUEST_KEY_VERSION = 1;
function requestKey(input) {
  const { pair, own: own2 } = input;
  const call = {
    v: REQUEST_KEY_VERSION,
    generator: own2.generator ?? { name: pair.generator, config: {} },
    model: pair.model,
    prompt: input.prompt
  };
  if (pair.generator === null || !HTTP_GENERATORS.has(pair.generator)) {
    call.pair = pair.id;
    call.attempt = input.attempt;
    call.dependencies = input.dependencies.map((d) => [d.id, sha256Hex(d.content)]);
    call.files = own2.files?.generator ?? {};
    call.inputs = own2.inputs ?? {};
    if (own2.piece !== void 0) call.piece = own2.piece;
    if (own2.files?.observed !== void 0) call.observed = own2.files.observed;
  }
  return digestOf(call);
}
function guardKey(pair, own2) {
  const identity = {
    pair,
    guard: own2.guard,
    guard_config: own2.guard_config,
    guards: own2.guards ?? null,
    files: own2.files?.guard ?? {}
  };
  if (own2.files?.observed !== void 0) identity.observed = own2.files.observed;
  return digestOf(identity).slice(0, 32);
}

// src/plan/selection.ts
function onlyPairs(workflow, selection) {
  if (selection.only === void 0 || selection.force) return void 0;
  return new Set(selection.only.flatMap((id) => pairsNamed(workflow, id, "--only")));
}
function forceRule(workflow, graph, selection) {
  const chosen = [selection.force && "--force", selection.only && "--only", selection.from !== void 0 && "--from"].filter(Boolean);
  if (chosen.length > 1) throw new UsageError(`${chosen.join(" and ")} cannot be combined; choose one`);
  if (selection.force) return () => ({ kind: "forced", detail: "--force" });
  if (selection.from !== void 0) {
    const from = selection.from;
    const start = pairsNamed(workflow, from, "--from");
    const forced = /* @__PURE__ */ new Set([...start, ...downstreamOf(graph, start)]);
    return (id) => forced.has(id) ? { kind: "forced", detail: `--from ${from}` } : void 0;
  }
  const only = onlyPairs(workflow, selection);
  if (only !== void 0) return (id) => only.has(id) ? { kind: "forced", detail: "--only" } : void 0;
  return () => void 0;
}
function scopeOf(workflow, graph, selection) {
  const only = onlyPairs(workflow, selection);
  return only === void 0 ? new Set(graph.order) : withDependencies(graph, only);
}
function withDependencies(graph, pairs) {
  const scope = new Set(pairs);
  const stack = [...scope];
  while (stack.length > 0) {
    for (const dep of graph.requires.get(stack.pop())) {
      if (!scope.has(dep)) {
        scope.add(dep);
        stack.push(dep);
      }
    }
  }
  return scope;
}
function pairsNamed(workflow, id, flag) {
  if (workflow.pairs.has(id)) return [id];
  const instances = [...workflow.pairs.values()].filter((p) => p.template === id || inSlice(p, id)).map((p) => p.id);
  if (instances.length > 0) return instances;
  const names = [...new Set([...workflow.pairs.values()].map((p) => p.template ?? p.id))];
  const hint = didYouMean(id, names);
  throw new UsageError(`${flag} ${id}: no such pair in ${workflow.name}` + (hint ? `; did you mean "${hint}"?` : `; pairs are: ${names.join(", ")}`));
}
function inSlice(pair, id) {
  if (pair.template === void 0 || pair.value === void 0 || !id.startsWith(`${pair.template}[`) || !id.endsWith("]")) return false;
  const part = id.slice(pair.template.length + 1, -1);
  const item = `${pair.value}:${part}`;
  return part === pair.value || pair.item === item || pair.item.startsWith(`${item}#`);
}

// src/model/plan.ts
var REASON_KINDS = [
  "new",
  "prompt",
  "model",
  "guard",
  "guard_config",
  "generator",
  "inputs",
  "upstream",
  "upstream_artifact",
  "rejected",
  "carried",
  "forced"
];

// node_modules/diff/libesm/diff/base.js
var Diff = class {
  diff(oldStr, newStr, options = {}) {
    let callback;
    if (typeof options === "function") {
      callback = options;
      options = {};
    } else if ("callback" in options) {
      callback = options.callback;
    }
    const oldString = this.castInput(oldStr, options);
    const newString = this.castInput(newStr, options);
    const oldTokens = this.removeEmpty(this.tokenize(oldString, options));
    const newTokens = this.removeEmpty(this.tokenize(newString, options));
    return this.diffWithOptionsObj(oldTokens, newTokens, options, callback);
  }
  diffWithOptionsObj(oldTokens, newTokens, options, callback) {
    var _a;
    const done = (value) => {
      value = this.postProcess(value, options);
      if (callback) {
        setTimeout(function() {
          callback(value);
        }, 0);
        return void 0;
      } else {
        return value;
      }
    };
    const newLen = newTokens.length, oldLen = oldTokens.length;
    let editLength = 1;
    let maxEditLength = newLen + oldLen;
    if (options.maxEditLength != null) {
      maxEditLength = Math.min(maxEditLength, options.maxEditLength);
    }
    const maxExecutionTime = (_a = options.timeout) !== null && _a !== void 0 ? _a : Infinity;
    const abortAfterTimestamp = Date.now() + maxExecutionTime;
    const bestPath = [{ oldPos: -1, lastComponent: void 0 }];
    let newPos = this.extractCommon(bestPath[0], newTokens, oldTokens, 0, options);
    if (bestPath[0].oldPos + 1 >= oldLen && newPos + 1 >= newLen) {
      return done(this.buildValues(bestPath[0].lastComponent, newTokens, oldTokens));
    }
    let minDiagonalToConsider = -Infinity, maxDiagonalToConsider = Infinity;
    const execEditLength = () => {
      for (let diagonalPath = Math.max(minDiagonalToConsider, -editLength); diagonalPath <= Math.min(maxDiagonalToConsider, editLength); diagonalPath += 2) {
        let basePath;
        const removePath = bestPath[diagonalPath - 1], addPath = bestPath[diagonalPath + 1];
        if (removePath) {
          bestPath[diagonalPath - 1] = void 0;
        }
        let canAdd = false;
        if (addPath) {
          const addPathNewPos = addPath.oldPos - diagonalPath;
          canAdd = addPath && 0 <= addPathNewPos && addPathNewPos < newLen;
        }
        const canRemove = removePath && removePath.oldPos + 1 < oldLen;
        if (!canAdd && !canRemove) {
          bestPath[diagonalPath] = void 0;
          continue;
        }
        if (!canRemove || canAdd && removePath.oldPos < addPath.oldPos) {
          basePath = this.addToPath(addPath, true, false, 0, options);
        } else {
          basePath = this.addToPath(removePath, false, true, 1, options);
        }
        newPos = this.extractCommon(basePath, newTokens, oldTokens, diagonalPath, options);
        if (basePath.oldPos + 1 >= oldLen && newPos + 1 >= newLen) {
          return done(this.buildValues(basePath.lastComponent, newTokens, oldTokens)) || true;
        } else {
          bestPath[diagonalPath] = basePath;
          if (basePath.oldPos + 1 >= oldLen) {
            maxDiagonalToConsider = Math.min(maxDiagonalToConsider, diagonalPath - 1);
          }
          if (newPos + 1 >= newLen) {
            minDiagonalToConsider = Math.max(minDiagonalToConsider, diagonalPath + 1);
          }
        }
      }
      editLength++;
    };
    if (callback) {
      (function exec() {
        setTimeout(function() {
          if (editLength > maxEditLength || Date.now() > abortAfterTimestamp) {
            return callback(void 0);
          }
          if (!execEditLength()) {
            exec();
          }
        }, 0);
      })();
    } else {
      while (editLength <= maxEditLength && Date.now() <= abortAfterTimestamp) {
        const ret = execEditLength();
        if (ret) {
          return ret;
        }
      }
    }
  }
  addToPath(path, added, removed, oldPosInc, options) {
    const last = path.lastComponent;
    if (last && !options.oneChangePerToken && last.added === added && last.removed === removed) {
      return {
        oldPos: path.oldPos + oldPosInc,
        lastComponent: { count: last.count + 1, added, removed, previousComponent: last.previousComponent }
      };
    } else {
      return {
        oldPos: path.oldPos + oldPosInc,
        lastComponent: { count: 1, added, removed, previousComponent: last }
      };
    }
  }
  extractCommon(basePath, newTokens, oldTokens, diagonalPath, options) {
    const newLen = newTokens.length, oldLen = oldTokens.length;
    let oldPos = basePath.oldPos, newPos = oldPos - diagonalPath, commonCount = 0;
    while (newPos + 1 < newLen && oldPos + 1 < oldLen && this.equals(oldTokens[oldPos + 1], newTokens[newPos + 1], options)) {
      newPos++;
      oldPos++;
      commonCount++;
      if (options.oneChangePerToken) {
        basePath.lastComponent = { count: 1, previousComponent: basePath.lastComponent, added: false, removed: false };
      }
    }
    if (commonCount && !options.oneChangePerToken) {
      basePath.lastComponent = { count: commonCount, previousComponent: basePath.lastComponent, added: false, removed: false };
    }
    basePath.oldPos = oldPos;
    return newPos;
  }
  equals(left, right, options) {
    if (options.comparator) {
      return options.comparator(left, right);
    } else {
      return left === right || !!options.ignoreCase && left.toLowerCase() === right.toLowerCase();
    }
  }
  removeEmpty(array) {
    const ret = [];
    for (let i = 0; i < array.length; i++) {
      if (array[i]) {
        ret.push(array[i]);
      }
    }
    return ret;
  }
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  castInput(value, options) {
    return value;
  }
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  tokenize(value, options) {
    return Array.from(value);
  }
  join(chars) {
    return chars.join("");
  }
  postProcess(changeObjects, options) {
    return changeObjects;
  }
  get useLongestToken() {
    return false;
  }
  buildValues(lastComponent, newTokens, oldTokens) {
    const components = [];
    let nextComponent;
    while (lastComponent) {
      components.push(lastComponent);
      nextComponent = lastComponent.previousComponent;
      delete lastComponent.previousComponent;
      lastComponent = nextComponent;
    }
    components.reverse();
    const componentLen = components.length;
    let componentPos = 0, newPos = 0, oldPos = 0;
    for (; componentPos < componentLen; componentPos++) {
      const component2 = components[componentPos];
      if (!component2.removed) {
        if (!component2.added && this.useLongestToken) {
          let value = newTokens.slice(newPos, newPos + component2.count);
          value = value.map(function(value2, i) {
            const oldValue = oldTokens[oldPos + i];
            return oldValue.length > value2.length ? oldValue : value2;
          });
          component2.value = this.join(value);
        } else {
          component2.value = this.join(newTokens.slice(newPos, newPos + component2.count));
        }
        newPos += component2.count;
        if (!component2.added) {
          oldPos += component2.count;
        }
      } else {
        component2.value = this.join(oldTokens.slice(oldPos, oldPos + component2.count));
        oldPos += component2.count;
      }
    }
    return components;
  }
};

// node_modules/diff/libesm/diff/line.js
var LineDiff = class extends Diff {
  constructor() {
    super(...arguments);
    this.tokenize = tokenize;
  }
  equals(left, right, options) {
    if (options.ignoreWhitespace) {
      if (!options.newlineIsToken || !left.includes("\n")) {
        left = left.trim();
      }
      if (!options.newlineIsToken || !right.includes("\n")) {
        right = right.trim();
      }
    } else if (options.ignoreNewlineAtEof && !options.newlineIsToken) {
      if (left.endsWith("\n")) {
        left = left.slice(0, -1);
      }
      if (right.endsWith("\n")) {
        right = right.slice(0, -1);
      }
    }
    return super.equals(left, right, options);
  }
};
var lineDiff = new LineDiff();
function diffLines(oldStr, newStr, options) {
  return lineDiff.diff(oldStr, newStr, options);
}
function tokenize(value, options) {
  if (options.stripTrailingCr) {
    value = value.replace(/\r\n/g, "\n");
  }
  const retLines = [], linesAndNewlines = value.split(/(\n|\r\n)/);
  if (!linesAndNewlines[linesAndNewlines.length - 1]) {
    linesAndNewlines.pop();
  }
  for (let i = 0; i < linesAndNewlines.length; i++) {
    const line = linesAndNewlines[i];
    if (i % 2 && !options.newlineIsToken) {
      retLines[retLines.length - 1] += line;
    } else {
      retLines.push(line);
    }
  }
  return retLines;
}

// node_modules/diff/libesm/patch/create.js
function needsQuoting(s) {
  for (let i = 0; i < s.length; i++) {
    if (s[i] < " " || s[i] > "~" || s[i] === '"' || s[i] === "\\") {
      return true;
    }
  }
  return false;
}
function quoteFileNameIfNeeded(s) {
  if (!needsQuoting(s)) {
    return s;
  }
  let result = '"';
  const bytes = new TextEncoder().encode(s);
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b === 7) {
      result += "\\a";
    } else if (b === 8) {
      result += "\\b";
    } else if (b === 9) {
      result += "\\t";
    } else if (b === 10) {
      result += "\\n";
    } else if (b === 11) {
      result += "\\v";
    } else if (b === 12) {
      result += "\\f";
    } else if (b === 13) {
      result += "\\r";
    } else if (b === 34) {
      result += '\\"';
    } else if (b === 92) {
      result += "\\\\";
    } else if (b >= 32 && b <= 126) {
      result += String.fromCharCode(b);
    } else {
      result += "\\" + b.toString(8).padStart(3, "0");
    }
    i++;
  }
  result += '"';
  return result;
}
var INCLUDE_HEADERS = {
  includeIndex: true,
  includeUnderline: true,
  includeFileHeaders: true
};
var FILE_HEADERS_ONLY = {
  includeIndex: false,
  includeUnderline: false,
  includeFileHeaders: true
};
function structuredPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, options) {
  let optionsObj;
  if (!options) {
    optionsObj = {};
  } else if (typeof options === "function") {
    optionsObj = { callback: options };
  } else {
    optionsObj = options;
  }
  if (typeof optionsObj.context === "undefined") {
    optionsObj.context = 4;
  }
  const context = optionsObj.context;
  if (optionsObj.newlineIsToken) {
    throw new Error("newlineIsToken may not be used with patch-generation functions, only with diffing functions");
  }
  if (!optionsObj.callback) {
    return diffLinesResultToPatch(diffLines(oldStr, newStr, optionsObj));
  } else {
    const { callback } = optionsObj;
    diffLines(oldStr, newStr, Object.assign(Object.assign({}, optionsObj), { callback: (diff) => {
      const patch = diffLinesResultToPatch(diff);
      callback(patch);
    } }));
  }
  function diffLinesResultToPatch(diff) {
    if (!diff) {
      return;
    }
    diff.push({ value: "", lines: [] });
    function contextLines(lines) {
      return lines.map(function(entry) {
        return " " + entry;
      });
    }
    const hunks = [];
    let oldRangeStart = 0, newRangeStart = 0, curRange = [], oldLine = 1, newLine = 1;
    for (let i = 0; i < diff.length; i++) {
      const current = diff[i], lines = current.lines || splitLines(current.value);
      current.lines = lines;
      if (current.added || current.removed) {
        if (!oldRangeStart) {
          const prev = diff[i - 1];
          oldRangeStart = oldLine;
          newRangeStart = newLine;
          if (prev) {
            curRange = context > 0 ? contextLines(prev.lines.slice(-context)) : [];
            oldRangeStart -= curRange.length;
            newRangeStart -= curRange.length;
          }
        }
        for (const line of lines) {
          curRange.push((current.added ? "+" : "-") + line);
        }
        if (current.added) {
          newLine += lines.length;
        } else {
          oldLine += lines.length;
        }
      } else {
        if (oldRangeStart) {
          if (lines.length <= context * 2 && i < diff.length - 2) {
            for (const line of contextLines(lines)) {
              curRange.push(line);
            }
          } else {
            const contextSize = Math.min(lines.length, context);
            for (const line of contextLines(lines.slice(0, contextSize))) {
              curRange.push(line);
            }
            const hunk = {
              oldStart: oldRangeStart,
              oldLines: oldLine - oldRangeStart + contextSize,
              newStart: newRangeStart,
              newLines: newLine - newRangeStart + contextSize,
              lines: curRange
            };
            hunks.push(hunk);
            oldRangeStart = 0;
            newRangeStart = 0;
            curRange = [];
          }
        }
        oldLine += lines.length;
        newLine += lines.length;
      }
    }
    for (const hunk of hunks) {
      for (let i = 0; i < hunk.lines.length; i++) {
        if (hunk.lines[i].endsWith("\n")) {
          hunk.lines[i] = hunk.lines[i].slice(0, -1);
        } else {
          hunk.lines.splice(i + 1, 0, "\\ No newline at end of file");
          i++;
        }
      }
    }
    return {
      oldFileName,
      newFileName,
      oldHeader,
      newHeader,
      hunks
    };
  }
}
function formatPatch(patch, headerOptions) {
  var _a, _b, _c, _d, _e, _f;
  if (!headerOptions) {
    headerOptions = INCLUDE_HEADERS;
  }
  if (Array.isArray(patch)) {
    if (patch.length > 1 && !headerOptions.includeFileHeaders && !patch.every((p) => p.isGit)) {
      throw new Error("Cannot omit file headers on a multi-file patch. (The result would be unparseable; how would a tool trying to apply the patch know which changes are to which file?)");
    }
    return patch.map((p) => formatPatch(p, headerOptions)).join("\n");
  }
  const ret = [];
  if (patch.isGit) {
    headerOptions = INCLUDE_HEADERS;
    if (!patch.oldFileName) {
      throw new Error("oldFileName must be specified for Git patches");
    }
    if (!patch.newFileName) {
      throw new Error("newFileName must be specified for Git patches");
    }
    let gitOldName = patch.oldFileName;
    let gitNewName = patch.newFileName;
    if (patch.isCreate && gitOldName === "/dev/null") {
      gitOldName = gitNewName.replace(/^b\//, "a/");
    } else if (patch.isDelete && gitNewName === "/dev/null") {
      gitNewName = gitOldName.replace(/^a\//, "b/");
    }
    ret.push("diff --git " + quoteFileNameIfNeeded(gitOldName) + " " + quoteFileNameIfNeeded(gitNewName));
    if (patch.isDelete) {
      ret.push("deleted file mode " + ((_a = patch.oldMode) !== null && _a !== void 0 ? _a : "100644"));
    }
    if (patch.isCreate) {
      ret.push("new file mode " + ((_b = patch.newMode) !== null && _b !== void 0 ? _b : "100644"));
    }
    if (patch.oldMode && patch.newMode && !patch.isDelete && !patch.isCreate) {
      ret.push("old mode " + patch.oldMode);
      ret.push("new mode " + patch.newMode);
    }
    if (patch.isRename) {
      ret.push("rename from " + quoteFileNameIfNeeded(((_c = patch.oldFileName) !== null && _c !== void 0 ? _c : "").replace(/^a\//, "")));
      ret.push("rename to " + quoteFileNameIfNeeded(((_d = patch.newFileName) !== null && _d !== void 0 ? _d : "").replace(/^b\//, "")));
    }
    if (patch.isCopy) {
      ret.push("copy from " + quoteFileNameIfNeeded(((_e = patch.oldFileName) !== null && _e !== void 0 ? _e : "").replace(/^a\//, "")));
      ret.push("copy to " + quoteFileNameIfNeeded(((_f = patch.newFileName) !== null && _f !== void 0 ? _f : "").replace(/^b\//, "")));
    }
  } else {
    if (headerOptions.includeIndex && patch.oldFileName == patch.newFileName && patch.oldFileName !== void 0) {
      ret.push("Index: " + patch.oldFileName);
    }
    if (headerOptions.includeUnderline) {
      ret.push("===================================================================");
    }
  }
  const hasHunks = patch.hunks.length > 0;
  if (headerOptions.includeFileHeaders && patch.oldFileName !== void 0 && patch.newFileName !== void 0 && (!patch.isGit || hasHunks)) {
    ret.push("--- " + quoteFileNameIfNeeded(patch.oldFileName) + (patch.oldHeader ? "	" + patch.oldHeader : ""));
    ret.push("+++ " + quoteFileNameIfNeeded(patch.newFileName) + (patch.newHeader ? "	" + patch.newHeader : ""));
  }
  for (let i = 0; i < patch.hunks.length; i++) {
    const hunk = patch.hunks[i];
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    ret.push("@@ -" + oldStart + "," + hunk.oldLines + " +" + newStart + "," + hunk.newLines + " @@");
    for (const line of hunk.lines) {
      ret.push(line);
    }
  }
  return ret.join("\n") + "\n";
}
function createTwoFilesPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, options) {
  if (typeof options === "function") {
    options = { callback: options };
  }
  if (!(options === null || options === void 0 ? void 0 : options.callback)) {
    const patchObj = structuredPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, options);
    if (!patchObj) {
      return;
    }
    return formatPatch(patchObj, options === null || options === void 0 ? void 0 : options.headerOptions);
  } else {
    const { callback } = options;
    structuredPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, Object.assign(Object.assign({}, options), { callback: (patchObj) => {
      if (!patchObj) {
        callback(void 0);
      } else {
        callback(formatPatch(patchObj, options.headerOptions));
      }
    } }));
  }
}
function splitLines(text2) {
  const hasTrailingNl = text2.endsWith("\n");
  const result = text2.split("\n").map((line) => line + "\n");
  if (hasTrailingNl) {
    result.pop();
  } else {
    result.push(result.pop().slice(0, -1));
  }
  return result;
}

// src/plan/edits.ts
function editedPieces(pieces, edited) {
  const parts = pieces.map((p) => p === "" || p.endsWith("\n") ? p : `${p}
`);
  const generated = parts.join("");
  if (generated === edited) return pieces.map(() => void 0);
  const bounds = [0];
  for (const p of parts) bounds.push(bounds.at(-1) + p.length);
  const same = [];
  let g = 0;
  let e = 0;
  for (const change of diffLines(generated, edited)) {
    const n = change.value.length;
    if (change.added) e += n;
    else if (change.removed) g += n;
    else {
      same.push({ g, e, length: n });
      g += n;
      e += n;
    }
  }
  const at = (offset) => {
    let mapped = 0;
    for (const run of same) {
      if (offset < run.g) break;
      mapped = offset <= run.g + run.length ? run.e + (offset - run.g) : run.e + run.length;
    }
    return offset === generated.length ? edited.length : mapped;
  };
  return parts.map((part, i) => {
    const text2 = edited.slice(at(bounds[i]), at(bounds[i + 1]));
    return text2 === part ? void 0 : text2;
  });
}

// src/plan/plan.ts
var LOST = { kind: "new", detail: "accepted content is not available here; running again to restore it" };
async function planWorkflow(workflow, graph, view, options = {}) {
  const selection = options.selection ?? {};
  const selected = forceRule(workflow, graph, selection);
  const force = (id) => options.finished?.has(id) ? void 0 : selected(id);
  const scope = scopeOf(workflow, graph, selection);
  const only = onlyPairs(workflow, selection);
  const lost = /* @__PURE__ */ new Set();
  for (; ; ) {
    const byId = await decideAll({ workflow, graph, view, force, lost, fresh: selection.force, edits: /* @__PURE__ */ new Map() }, scope);
    const more = [...byId.values()].filter(
      (p) => !lost.has(p.id) && p.action === "skip" && p.artifact.content === null && contentNeeded(workflow, graph, byId, p.id)
    );
    if (more.length === 0) {
      if (only !== void 0) checkOnly(selection.only, only, byId);
      const pairs = graph.waves.flat().filter((id) => scope.has(id)).map((id) => byId.get(id));
      const removed = Object.keys(view.lock?.pairs ?? {}).filter((id) => !workflow.pairs.has(id)).sort();
      return { workflow, graph, workflowRef: workflowRef(workflow), selection, pairs, byId, removed };
    }
    for (const p of more) lost.add(p.id);
  }
}
async function decideAll(ctx, scope) {
  const byId = /* @__PURE__ */ new Map();
  for (const wave of ctx.graph.waves) {
    const ids = wave.filter((id) => scope.has(id));
    const decided = await Promise.all(ids.map((id) => decidePair(ctx, id, byId)));
    for (const d of decided) byId.set(d.id, d);
  }
  return byId;
}
function contentNeeded(workflow, graph, byId, id) {
  if (workflow.pairs.get(id).output !== void 0) return true;
  return graph.dependents.get(id).some((d) => byId.get(d)?.action === "run");
}
function checkOnly(only, selected, byId) {
  const missing = [...byId.values()].filter((p) => !selected.has(p.id) && p.action === "run");
  if (missing.length === 0) return;
  const needs = missing.map((p) => `${p.id} (${p.reasons.map((r) => r.detail).join("; ")})`).join(", ");
  throw new UsageError(
    `--only ${only.join(" ")}: these dependencies cannot be reused as they are and would have to run first: ${needs}; add them to --only, or run without it`
  );
}
async function decidePair(ctx, id, decided) {
  const { workflow, graph, view } = ctx;
  const pair = workflow.pairs.get(id);
  const own2 = ownComponents(workflow, pair, pair.inputs.length > 0 ? view.inputHashes(pair) : void 0, view.fileHashes(pair));
  const previous = lockEntry(view.lock, id);
  const deps = pair.requires.map((d) => decided.get(d));
  const base = { id, wave: graph.waveOf.get(id) + 1, requires: pair.requires, own: own2 };
  const forced = ctx.force(id) ?? (ctx.lost.has(id) ? LOST : void 0);
  const output = judgeOutput(view, pair, previous);
  const unknown = deps.filter((d) => d.configRef === null || d.action === "run");
  if (pair.piece || output.kind === "human" || output.kind === "unknown") return decideKept(ctx, base, pair, previous, forced, deps, unknown, output);
  if (unknown.length > 0) return waiting(ctx, base, pair, previous, forced, deps, unknown, NO_REASONS);
  const ref = configRef(own2, upstreamOf(deps));
  if (!forced) {
    const found = acceptedArtifact(view, id, ref, previous, output);
    const artifact = found instanceof Promise ? await found : found;
    if (artifact) return decision(base, ref, "skip", [], artifact, void 0, deps);
  }
  return toRun(ctx, base, pair, previous, forced, deps, ref, output, NO_REASONS);
}
var NO_REASONS = Object.freeze([]);
async function decideKept(ctx, base, pair, previous, forced, deps, unknown, output) {
  const { view } = ctx;
  const { id, own: own2 } = base;
  const unknownOutput = output.kind === "unknown" ? [
    newReason(
      `${pair.output} exists but pairflow has no record of producing it; running replaces it (to keep it instead, commit the lock file that records it)`
    )
  ] : NO_REASONS;
  const pieceEdit = pair.piece ? pieceEdits(ctx, `${pair.template}[${pair.piece.file}]`).get(pair.piece.id) : void 0;
  const edit = pair.piece ? pieceEdit?.text : output.kind === "human" && !pair.assembly ? view.outputText?.(pair) : void 0;
  const keptWhole = output.kind === "human" && (pair.assembly === void 0 || pieceEdits(ctx, id).size === 0);
  const carry = (ref2, reasons) => {
    const carried = { kind: "carried", detail: "a person's edit of its output is carried forward: its sources changed since" };
    return {
      ...decision(base, ref2, "run", sortReasons([...reasons, carried]), null, ref2 === null ? null : componentDigests(own2, upstreamOf(deps))),
      revision: edit
    };
  };
  const stale = (kept) => ({ ...kept, revision: edit, stale: true });
  if (output.kind === "unknown" && pair.adoptExisting && pair.assembly === void 0)
    return keptOutput(base, unknown.length > 0 ? null : configRef(own2, upstreamOf(deps)), output.hash, deps);
  if (unknown.length > 0) {
    if (edit !== void 0 && pair.carryEdits)
      return carry(
        null,
        unknown.map((d) => ({ kind: "upstream", detail: `${d.id} will run`, component: { kind: "upstream", name: d.id } }))
      );
    if (keptWhole) return stale(keptOutput(base, null, output.hash, deps));
    if (pieceEdit !== void 0) return stale(keptPiece(base, null, pieceEdit.from, deps));
    return waiting(ctx, base, pair, previous, forced, deps, unknown, unknownOutput);
  }
  const ref = configRef(own2, upstreamOf(deps));
  const changedSince = previous !== void 0 && previous.configRef !== ref;
  if (output.kind === "human") {
    if (!changedSince) return keptOutput(base, ref, output.hash, deps);
    if (pair.assembly === void 0 && pair.carryEdits)
      return carry(ref, ownChanges(previous, componentsOf(previous), componentDigests(own2, upstreamOf(deps))));
    if (keptWhole) return stale(keptOutput(base, ref, output.hash, deps));
  }
  if (pair.piece && previous?.source === "human" && edit === void 0) {
    if (!changedSince) return keptPiece(base, ref, previous, deps);
    const written = view.storedText?.(previous.contentHash);
    if (pair.carryEdits && written !== void 0)
      return { ...carry(ref, ownChanges(previous, componentsOf(previous), componentDigests(own2, upstreamOf(deps)))), revision: written };
    return { ...keptPiece(base, ref, previous, deps), revision: written, stale: true };
  }
  const keptEdit = (e) => pair.carryEdits ? carry(ref, ownChanges(e.from, componentsOf(e.from), componentDigests(own2, upstreamOf(deps)))) : stale(keptPiece(base, ref, e.from, deps));
  if (pieceEdit !== void 0 && (forced || pieceEdit.from.configRef !== ref)) return keptEdit(pieceEdit);
  if (!forced) {
    const found = pair.assembly !== void 0 && output.kind === "human" ? void 0 : acceptedArtifact(view, id, ref, previous, output);
    const artifact = (found instanceof Promise ? await found : found) ?? (pair.piece ? await siblingArtifact(view, pair, ref, output) : void 0);
    if (artifact)
      return edit !== void 0 ? { ...decision(base, ref, "skip", [], artifact, void 0, deps), revision: edit } : decision(base, ref, "skip", [], artifact, void 0, deps);
  }
  if (pieceEdit !== void 0) return keptEdit(pieceEdit);
  return toRun(ctx, base, pair, previous, forced, deps, ref, output, unknownOutput);
}
function waiting(ctx, base, pair, previous, forced, deps, unknown, unknownOutput) {
  const reasons = [];
  if (forced) reasons.push(forced);
  if (previous) reasons.push(...ownChanges(previous, componentsOf(previous), componentDigests(base.own, { refs: dict(), artifactHashes: dict() })));
  else reasons.push(newReason());
  for (const r of unknownOutput) reasons.push(r);
  for (const d of unknown) {
    reasons.push({
      kind: "upstream",
      // A dependency new to requires is an edit of this pair's own, as the run will find it.
      detail: previous && !Object.hasOwn(componentsOf(previous), componentKey({ kind: "upstream", name: d.id })) ? `${d.id} added to requires` : d.action === "run" ? `${d.id} will run` : `${d.id}'s reference is not known yet`,
      component: { kind: "upstream", name: d.id }
    });
  }
  if (previous) reasons.push(...requiresChanges(componentsOf(previous), deps, new Set(unknown.map((d) => d.id))));
  const reuse = previous && previous.source === "generated" && previous.attempts <= 1 && !ctx.fresh && pair.fresh !== true ? { kind: "unless", deps: unknown.map((d) => d.id) } : void 0;
  return decision(base, null, "run", sortReasons(reasons), null, null, void 0, reuse);
}
function toRun(ctx, base, pair, previous, forced, deps, ref, output, unknownOutput) {
  const { own: own2 } = base;
  const components = componentDigests(own2, upstreamOf(deps));
  const reasons = [];
  if (forced) reasons.push(forced);
  if (previous) {
    const before = componentsOf(previous);
    reasons.push(...ownChanges(previous, before, components));
    reasons.push(...upstreamChanges(before, components, deps));
    if (reasons.length === 0) reasons.push(newReason("no accepted artifact for this reference"));
  } else if (!forced && output.kind !== "unknown") {
    reasons.push(newReason());
  }
  reasons.push(...unknownOutput);
  const last = ctx.view.record(base.id, ref);
  if (last?.status === "rejected") {
    reasons.push({ kind: "rejected", detail: `last attempt rejected${last.feedback ? `: ${firstLine(last.feedback)}` : ""}` });
  }
  return decision(base, ref, "run", sortReasons(reasons), null, components, void 0, ctx.fresh ? void 0 : forecast(ctx, pair, own2, deps));
}
function forecast(ctx, pair, own2, deps) {
  const { view, workflow } = ctx;
  if (pair.fresh === true || view.requests === void 0 || view.text === void 0) return void 0;
  const dependencies = [];
  for (const d of deps) {
    const text2 = view.text(workflow.pairs.get(d.id), d.artifact.contentHash);
    if (text2 === void 0) return void 0;
    dependencies.push({ id: d.id, content: text2 });
  }
  const prompt = renderPrompt({ prompt: pair.prompt, specification: workflow.specification, constraints: workflow.constraints, dependencies, history: [] });
  const entries = view.requests(requestKey({ pair, own: own2, prompt, dependencies, attempt: 1 }));
  const judge = guardKey(pair.id, own2);
  for (const entry of entries) {
    const verdict = Object.hasOwn(entry.verdicts, judge) ? entry.verdicts[judge] : void 0;
    if (verdict === "rejected") continue;
    return { kind: verdict === "accepted" ? "request" : "rejudge", from: entry.pair, at: entry.at };
  }
  return void 0;
}
function keptOutput(base, ref, contentHash, deps) {
  const artifact = { source: "workspace", contentHash, edited: true, content: "output" };
  return decision(base, ref, "skip", [], artifact, ref === null ? null : void 0, deps);
}
function keptPiece(base, ref, previous, deps) {
  const artifact = { source: "lock", contentHash: previous.contentHash, edited: false, content: "store" };
  return decision(base, ref, "skip", [], artifact, ref === null ? null : void 0, deps);
}
function pieceEdits(ctx, assemblyId) {
  const known = ctx.edits?.get(assemblyId);
  if (known) return known;
  const found = /* @__PURE__ */ new Map();
  ctx.edits?.set(assemblyId, found);
  const { view, workflow } = ctx;
  const assembly = workflow.pairs.get(assemblyId);
  const made = lockEntry(view.lock, assemblyId);
  const kind = assembly?.assembly?.split.kind;
  const text2 = assembly && made && (kind === "markdown" || kind === "regex") ? view.outputText?.(assembly) : void 0;
  if (!assembly || !made || text2 === void 0 || view.text === void 0) return found;
  const generated = made.source === "generated" ? made.contentHash : generatedUnder(view, assemblyId, made.configRef);
  if (generated === void 0 || sha256Hex(text2) === generated) return found;
  const base = view.storedText?.(generated);
  if (base === void 0) return found;
  const starts = /* @__PURE__ */ new Map();
  for (let at = 0; at < base.length; ) {
    const eol = base.indexOf("\n", at);
    const end = eol === -1 ? base.length : eol + 1;
    const line = base.slice(at, end);
    const known2 = starts.get(line);
    if (known2) known2.push(at);
    else starts.set(line, [at]);
    at = end;
  }
  const prefix = `${assembly.template}[${assembly.assembly.file}#`;
  const located = [];
  const taken = /* @__PURE__ */ new Set();
  for (const [id, entry] of Object.entries(view.lock.pairs)) {
    if (!id.startsWith(prefix) || entry.source !== "generated") continue;
    const content = view.storedText?.(entry.contentHash);
    if (content === void 0 || content === "") continue;
    const part = content.endsWith("\n") ? content : `${content}
`;
    const first = part.slice(0, part.indexOf("\n") + 1);
    const at = starts.get(first)?.find((a) => !taken.has(a) && base.startsWith(part, a));
    if (at === void 0) continue;
    taken.add(at);
    located.push({ at, end: at + part.length, id, entry });
  }
  located.sort((a, b) => a.at - b.at);
  const regions = [];
  let cursor = 0;
  for (const l of located) {
    if (l.at < cursor) continue;
    if (l.at > cursor) regions.push({ text: base.slice(cursor, l.at) });
    regions.push({ text: base.slice(l.at, l.end), made: l });
    cursor = l.end;
  }
  if (cursor < base.length) regions.push({ text: base.slice(cursor) });
  const edited = editedPieces(
    regions.map((r) => r.text),
    text2
  );
  const pieceKey = componentKey({ kind: "piece", name: "" });
  const byText = /* @__PURE__ */ new Map();
  for (const id of assembly.requires) {
    const digest = sha256Hex(workflow.pairs.get(id).piece.text).slice(0, 16);
    const ids = byText.get(digest);
    if (ids) ids.push(id);
    else byText.set(digest, [id]);
  }
  const today = new Set(assembly.requires);
  const claimed = /* @__PURE__ */ new Set();
  const owners = /* @__PURE__ */ new Map();
  const order = [...regions.keys()].sort((a, b) => Number(edited[b] !== void 0) - Number(edited[a] !== void 0));
  for (const i of order) {
    const made2 = regions[i].made;
    if (made2 === void 0) continue;
    const digest = own(componentsOf(made2.entry), pieceKey);
    const same = (digest !== void 0 ? byText.get(digest) : void 0)?.filter((p) => !claimed.has(p)) ?? [];
    const owner = same.includes(made2.id) ? made2.id : same[0];
    if (owner === void 0) continue;
    claimed.add(owner);
    owners.set(i, owner);
  }
  for (const i of order) {
    const made2 = regions[i].made;
    if (made2 === void 0 || owners.has(i) || !today.has(made2.id) || claimed.has(made2.id)) continue;
    claimed.add(made2.id);
    owners.set(i, made2.id);
  }
  if (edited.some((e, i) => e !== void 0 && !owners.has(i))) return found;
  edited.forEach((e, i) => {
    if (e !== void 0) found.set(workflow.pairs.get(owners.get(i)).piece.id, { text: e, from: regions[i].made.entry });
  });
  return found;
}
function generatedUnder(view, id, ref) {
  const record = view.record(id, ref);
  return record?.status === "accepted" && record.source !== "human" ? record.contentHash ?? void 0 : void 0;
}
function siblingArtifact(view, piece, ref, output) {
  if (!view.lock) return void 0;
  const prefix = `${piece.template}[${piece.piece.file}#`;
  for (const id of lockIdsByRef(view.lock).get(ref) ?? []) {
    const entry = lockEntry(view.lock, id);
    if (id !== piece.id && id.startsWith(prefix) && entry.source === "generated") return withContent(view, id, ref, "lock", entry.contentHash, output);
  }
  return void 0;
}
function lockIdsByRef(lock) {
  const known = idsByRef.get(lock);
  if (known) return known;
  const made = /* @__PURE__ */ new Map();
  for (const [id, entry] of Object.entries(lock.pairs)) {
    const ids = made.get(entry.configRef);
    if (ids) ids.push(id);
    else made.set(entry.configRef, [id]);
  }
  idsByRef.set(lock, made);
  return made;
}
var idsByRef = /* @__PURE__ */ new WeakMap();
function decision(base, configRef2, action, reasons, artifact, components, dependencies, reuse) {
  return {
    id: base.id,
    wave: base.wave,
    requires: base.requires,
    own: base.own,
    configRef: configRef2,
    action,
    reasons,
    artifact,
    components,
    dependencies: action === "skip" && components === void 0 ? dependencies : void 0,
    reuse
  };
}
function upstreamOf(deps) {
  const upstream = { refs: dict(), artifactHashes: dict() };
  for (const d of deps) {
    upstream.refs[d.id] = d.configRef;
    upstream.artifactHashes[d.id] = d.artifact.contentHash;
  }
  return upstream;
}
function plannedComponents(p) {
  if (p.components !== void 0) return p.components;
  return p.dependencies === void 0 || p.configRef === null ? null : componentDigests(p.own, upstreamOf(p.dependencies));
}
function judgeOutput(view, pair, previous) {
  const file = view.outputHash(pair);
  if (file === void 0) return { kind: "absent" };
  const same = (hash) => hash !== void 0 && (hash === file.raw || hash === file.text);
  if (previous?.source !== "human" && same(previous?.contentHash)) return { kind: "generated", hash: previous.contentHash };
  const generated = view.generatedHashes(pair.id);
  const match = [file.raw, file.text].find((h) => generated.has(h));
  if (match !== void 0) return { kind: "generated", hash: match };
  if (previous?.source === "human" && same(previous.contentHash)) return { kind: "human", hash: previous.contentHash };
  return { kind: previous !== void 0 || generated.size > 0 ? "human" : "unknown", hash: file.raw };
}
function acceptedArtifact(view, id, ref, previous, output) {
  const local = previous?.configRef === ref && previous.source !== "human" ? void 0 : view.record(id, ref);
  if (local === void 0 && previous?.configRef === ref && previous.source !== "human")
    return withContent(view, id, ref, "lock", previous.contentHash, output);
  if (local?.status === "accepted" && local.source !== "human" && local.contentHash) return withContent(view, id, ref, "store", local.contentHash, output);
  if (view.remote === void 0) return void 0;
  return (async () => {
    const record = await view.remote(id, ref);
    return !record?.contentHash || record.source === "human" ? void 0 : withContent(view, id, ref, "remote", record.contentHash, output);
  })();
}
function withContent(view, id, ref, source, contentHash, output) {
  const artifact = (content) => ({ source, contentHash, edited: false, content });
  if (output.kind === "generated" && output.hash === contentHash) return artifact("output");
  if (view.hasContent(contentHash)) return artifact("store");
  if (view.remote === void 0) return artifact(null);
  return (async () => artifact((await view.remote(id, ref))?.contentHash === contentHash ? "remote" : null))();
}
function newReason(detail = "never accepted") {
  return { kind: "new", detail };
}
function ownChanges(previous, components, current) {
  const reasons = [];
  const keys = /* @__PURE__ */ new Set([...Object.keys(components), ...Object.keys(current)]);
  for (const key of [...keys].sort()) {
    const before = own(components, key);
    const after = own(current, key);
    if (before === after) continue;
    const changed = componentIdOfKey(key);
    if (isUpstream(changed)) continue;
    reasons.push(describeChange(changed, before === void 0 ? "added" : after === void 0 ? "removed" : "changed", previous));
  }
  return reasons;
}
var REASON_OF = {
  prompt: "prompt",
  context: "prompt",
  layout: "prompt",
  model: "model",
  guard: "guard",
  guards: "guard",
  guard_file: "guard",
  guard_config: "guard_config",
  generator: "generator",
  generator_config: "generator",
  generator_file: "generator",
  input: "inputs",
  observed: "inputs",
  piece: "inputs",
  // Only a lock file written by hand or by another version has other keys.
  other: "new"
};
function describeChange(changed, change, previous) {
  const kind = REASON_OF[changed.kind];
  const component2 = { kind: changed.kind, name: changed.name };
  if (changed.kind === "model") return { kind, detail: `model changed${previous.model !== null ? ` (was ${previous.model})` : ""}`, component: component2 };
  return { kind, detail: `${componentLabel(changed)} ${change}`, component: component2 };
}
function upstreamChanges(previous, current, deps) {
  const reasons = [];
  for (const d of deps) {
    const upstream = { kind: "upstream", name: d.id };
    const artifact = { kind: "artifact", name: d.id };
    const refBefore = own(previous, componentKey(upstream));
    if (refBefore === void 0) {
      reasons.push({ kind: "upstream", detail: `${d.id} added to requires`, component: upstream });
      continue;
    }
    if (refBefore !== own(current, componentKey(upstream))) reasons.push({ kind: "upstream", detail: `${d.id}'s reference changed`, component: upstream });
    if (own(previous, componentKey(artifact)) !== own(current, componentKey(artifact))) {
      reasons.push({
        kind: "upstream_artifact",
        detail: d.artifact?.edited ? `${d.id}'s output was edited by hand` : `${d.id}'s accepted content changed`,
        component: artifact
      });
    }
  }
  const requires = new Set(deps.map((d) => d.id));
  for (const key of Object.keys(previous)) {
    const was = componentIdOfKey(key);
    if (was.kind === "upstream" && !requires.has(was.name)) reasons.push({ kind: "upstream", detail: `${was.name} removed from requires`, component: was });
  }
  return reasons;
}
function requiresChanges(previous, deps, named) {
  return upstreamChanges(previous, previous, [...deps]).filter((r) => / (added to|removed from) requires$/.test(r.detail) && !named.has(r.component.name));
}
function sortReasons(reasons) {
  for (let i = 1; i < reasons.length; i++) {
    if (rankOf(reasons[i - 1].kind) > rankOf(reasons[i].kind)) return [...reasons].sort((a, b) => rankOf(a.kind) - rankOf(b.kind));
  }
  return reasons;
}
var REASON_RANK = new Map(REASON_KINDS.map((kind, i) => [kind, i]));
var rankOf = (kind) => REASON_RANK.get(kind) ?? -1;
function firstLine(text2) {
  const line = text2.trim().split("\n")[0] ?? "";
  return line.length > 120 ? line.slice(0, 117) + "..." : line;
}
function totals(plan) {
  const run = plan.pairs.filter((p) => p.action === "run").length;
  return { pairs: plan.pairs.length, run, skip: plan.pairs.length - run };
}
function decider(plan, view, finished) {
  const { workflow, graph } = plan;
  const edits = /* @__PURE__ */ new Map();
  const selected = forceRule(workflow, graph, plan.selection);
  const force = (id) => finished?.has(id) ? void 0 : selected(id);
  return (id, decided, options) => decidePair({ workflow, graph, view, force, lost: new Set(options?.lost ? [id] : []), fresh: plan.selection.force, edits }, id, decided);
}

// src/estimate/history.ts
function pairHistory(lock, samples) {
  for (const [id, entry] of Object.entries(lock?.pairs ?? {})) {
    if (entry.source !== "generated" || !(entry.attempts >= 1)) continue;
    const list = samples.get(id) ?? [];
    if (list.some((s) => s.configRef === entry.configRef)) continue;
    const input = entry.tokens?.input ?? 0;
    const output = entry.tokens?.output ?? 0;
    const reported = input + output > 0;
    const perAttempt = output / entry.attempts;
    list.push({ configRef: entry.configRef, attempts: entry.attempts, outputs: reported ? Array(entry.attempts).fill(perAttempt) : [] });
    samples.set(id, list);
  }
  const history2 = /* @__PURE__ */ new Map();
  for (const [id, list] of samples) {
    history2.set(id, { outputs: list.flatMap((s) => s.outputs), attempts: list.map((s) => s.attempts) });
  }
  return history2;
}
function median(values) {
  if (values.length === 0) return void 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// src/estimate/rankTable.ts
var MAGIC = 827606608;
var HEADER_BYTES = 24;
function encodeRankTable(source) {
  const tokens = [];
  const ranks = [];
  for (const line of source.bpe_ranks.split("\n")) {
    const fields = line.split(" ");
    if (fields.length < 3) continue;
    let rank = Number.parseInt(fields[1], 10);
    for (const token of fields.slice(2)) {
      if (token === "") continue;
      const bytes = Buffer.from(token, "base64");
      if (bytes.length === 0 || bytes.length > 255) throw new Error(`o200k_base: a token of ${bytes.length} bytes does not fit the table`);
      tokens.push(bytes);
      ranks.push(rank++);
    }
  }
  const count = tokens.length;
  let slotCount = 1;
  while (slotCount < count * 2) slotCount *= 2;
  const text2 = Buffer.concat(tokens);
  const pattern = Buffer.from(source.pat_str, "utf8");
  const layout = layoutOf(count, slotCount, text2.length);
  const block = Buffer.alloc(layout.patternAt + pattern.length);
  const header = new DataView(block.buffer, block.byteOffset, HEADER_BYTES);
  header.setUint32(0, MAGIC, true);
  header.setUint32(4, count, true);
  header.setUint32(8, slotCount, true);
  header.setUint32(
    12,
    tokens.reduce((longest, t) => Math.max(longest, t.length), 0),
    true
  );
  header.setUint32(16, text2.length, true);
  header.setUint32(20, pattern.length, true);
  const slots = new Int32Array(slotCount);
  let at = 0;
  tokens.forEach((token, entry) => {
    block.writeInt32LE(at, layout.startsAt + entry * 4);
    block.writeInt32LE(ranks[entry], layout.ranksAt + entry * 4);
    block[layout.lengthsAt + entry] = token.length;
    let slot = hashBytes(token) & slotCount - 1;
    while (slots[slot] !== 0) slot = slot + 1 & slotCount - 1;
    slots[slot] = entry + 1;
    at += token.length;
  });
  slots.forEach((value, i) => block.writeInt32LE(value, HEADER_BYTES + i * 4));
  text2.copy(block, layout.textAt);
  pattern.copy(block, layout.patternAt);
  return block;
}
function layoutOf(count, slotCount, textLength) {
  const startsAt = HEADER_BYTES + slotCount * 4;
  const ranksAt = startsAt + count * 4;
  const lengthsAt = ranksAt + count * 4;
  const textAt = lengthsAt + count;
  return { startsAt, ranksAt, lengthsAt, textAt, patternAt: textAt + textLength };
}
var RankTable = class _RankTable {
  constructor(slots, starts, ranks, lengths, text2, longest, pattern) {
    this.slots = slots;
    this.starts = starts;
    this.ranks = ranks;
    this.lengths = lengths;
    this.text = text2;
    this.longest = longest;
    this.pattern = pattern;
  }
  slots;
  starts;
  ranks;
  lengths;
  text;
  longest;
  pattern;
  /** The table in a block, or undefined when the block is not one `encodeRankTable` made. */
  static decode(bytes) {
    if (bytes.length < HEADER_BYTES) return void 0;
    const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
    if (header.getUint32(0, true) !== MAGIC) return void 0;
    const [count, slotCount, longest, textLength, patternLength] = [4, 8, 12, 16, 20].map((at) => header.getUint32(at, true));
    if (slotCount === 0 || (slotCount & slotCount - 1) !== 0 || slotCount < count) return void 0;
    const layout = layoutOf(count, slotCount, textLength);
    if (bytes.length !== layout.patternAt + patternLength) return void 0;
    let block = bytes;
    if (block.byteOffset % 4 !== 0 || !LITTLE_ENDIAN) {
      block = new Uint8Array(bytes.length);
      block.set(bytes);
      if (!LITTLE_ENDIAN) Buffer.from(block.buffer, HEADER_BYTES, layout.lengthsAt - HEADER_BYTES).swap32();
    }
    const int32s = (at, length) => new Int32Array(block.buffer, block.byteOffset + at, length);
    const buffer = Buffer.from(block.buffer, block.byteOffset, block.length);
    const [slots, starts, lengths] = [int32s(HEADER_BYTES, slotCount), int32s(layout.startsAt, count), block.subarray(layout.lengthsAt, layout.textAt)];
    let used = 0;
    for (let i = 0; i < slotCount; i++) {
      const entry = slots[i];
      if (entry !== 0 && (entry < 0 || entry > count || ++used > count)) return void 0;
    }
    if (used !== count || slotCount < 2 * count) return void 0;
    for (let e = 0; e < count; e++) if (starts[e] < 0 || starts[e] + lengths[e] > textLength) return void 0;
    return new _RankTable(
      slots,
      starts,
      int32s(layout.ranksAt, count),
      lengths,
      buffer.toString("latin1", layout.textAt, layout.patternAt),
      longest,
      buffer.toString("utf8", layout.patternAt, layout.patternAt + patternLength)
    );
  }
  /** The rank of the token whose bytes are bytes[start, end), or undefined. */
  rank(bytes, start, end) {
    const { text: text2, starts, lengths, slots } = this;
    const mask = slots.length - 1;
    const length = end - start;
    let slot = hashOf(bytes, start, end) & mask;
    for (; ; ) {
      const entry = slots[slot];
      if (entry === 0) return void 0;
      const e = entry - 1;
      if (lengths[e] === length && sameChars(text2, starts[e], bytes, start, length)) return this.ranks[e];
      slot = slot + 1 & mask;
    }
  }
};
var LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
function sameChars(a, aAt, b, bAt, length) {
  for (let i = 0; i < length; i++) if (a.charCodeAt(aAt + i) !== b.charCodeAt(bAt + i)) return false;
  return true;
}
function hashOf(text2, start, end) {
  let h = 2166136261;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text2.charCodeAt(i), 16777619);
  return h >>> 0;
}
function hashBytes(bytes) {
  let h = 2166136261;
  for (const b of bytes) h = Math.imul(h ^ b, 16777619);
  return h >>> 0;
}

// src/estimate/tokens.ts
var CHARS_PER_TOKEN = 4;
var CHAT_OVERHEAD_TOKENS = 7;
var O200K = /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o1|o3|o4)(\b|-|$)/;
function tokenMethod(model) {
  if (model === null) return "approximate";
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  return O200K.test(name) ? "o200k_base" : "approximate";
}
async function loadTokenizer(packaged) {
  if (o200k) return;
  let ranks = decodePackaged(packaged);
  if (!ranks) {
    const { default: base } = await import("./cli-ranks-3RKZIM3J.js");
    if (!base) throw new Error("the o200k_base token table, o200k_base.bin beside pairflow's bundle, is missing or damaged: install pairflow again");
    ranks = RankTable.decode(encodeRankTable(base));
  }
  o200k ??= { split: new RegExp(ranks.pattern, "gu"), ranks, seen: new PieceCounts() };
}
function decodePackaged(packaged) {
  const bytes = packaged?.();
  return bytes && RankTable.decode(bytes);
}
function countTokens(text2, model) {
  const method = tokenMethod(model);
  if (method === "approximate") return { tokens: Math.ceil(text2.length / CHARS_PER_TOKEN), method };
  return { tokens: countO200k(text2), method };
}
function countO200k(text2) {
  const encoding = o200k;
  if (!encoding) throw new Error("countO200k: the o200k_base table is not loaded (await loadTokenizer() first)");
  let tokens = 0;
  if (!NOT_ASCII.test(text2)) {
    const n = text2.length;
    for (let start = 0; start < n; ) {
      let h = FNV_OFFSET;
      let end = start;
      if (text2.charCodeAt(end) === 32) h = Math.imul(h ^ text2.charCodeAt(end++), FNV_PRIME);
      for (; end < n && isUpper(text2.charCodeAt(end)); end++) h = Math.imul(h ^ text2.charCodeAt(end), FNV_PRIME);
      const upper = end;
      for (; end < n && isLower(text2.charCodeAt(end)); end++) h = Math.imul(h ^ text2.charCodeAt(end), FNV_PRIME);
      if (end > upper && (end === n || text2.charCodeAt(end) !== 39)) {
        tokens += encoding.seen.count(encoding, text2, start, end, h >>> 0);
      } else {
        end = asciiPieceEnd(text2, start);
        tokens += encoding.seen.count(encoding, text2, start, end, hashOf(text2, start, end));
      }
      start = end;
    }
    return tokens;
  }
  encoding.split.lastIndex = 0;
  for (const match of text2.matchAll(encoding.split))
    tokens += encoding.seen.count(encoding, match[0], 0, match[0].length, hashOf(match[0], 0, match[0].length));
  return tokens;
}
var JoinedTokens = class {
  constructor(separator, bound = 1 << 22) {
    this.separator = separator;
    this.bound = bound;
    if (!/[\r\n]$/.test(separator)) throw new Error("JoinedTokens: the separator must end with a line break");
  }
  separator;
  bound;
  /** Counts of a unit followed by the separator, and of a unit that ends the text. */
  followed = /* @__PURE__ */ new Map();
  ending = /* @__PURE__ */ new Map();
  /** Characters of the units remembered: past the bound, counts are made but no more are remembered. */
  chars = 0;
  /**
   * Tokens of `units.slice(0, n).join(separator)` for `model` (an o200k model's after
   * loadTokenizer); the units from `shared[0]` up to `shared[1]` are those other texts hold too.
   */
  count(units, n, model, shared = [0, 0]) {
    const method = tokenMethod(model);
    if (method === "approximate") {
      let length = n > 0 ? (n - 1) * this.separator.length : 0;
      for (let i = 0; i < n; i++) length += units[i].length;
      return { tokens: Math.ceil(length / CHARS_PER_TOKEN), method };
    }
    const [first, end] = shared;
    let tokens = 0;
    let from = 0;
    for (let i = 1; i <= n; i++) {
      if (i < n && !(first < end && i >= first && i <= end && BEGINS_PIECE.test(units[i]))) continue;
      const followed = i < n;
      if (i - from === 1 && from >= first && from < end) tokens += this.unit(units[from], followed);
      else tokens += countO200k(this.joined(units, from, i, followed));
      from = i;
    }
    return { tokens, method };
  }
  /** units[from, to) joined, with the separator after them when `followed`. */
  joined(units, from, to, followed) {
    let text2 = units[from];
    for (let i = from + 1; i < to; i++) text2 += this.separator + units[i];
    return followed ? text2 + this.separator : text2;
  }
  unit(unit, followed) {
    const known = followed ? this.followed : this.ending;
    let tokens = known.get(unit);
    if (tokens === void 0) {
      tokens = countO200k(followed ? unit + this.separator : unit);
      if (this.chars < this.bound) {
        known.set(unit, tokens);
        this.chars += unit.length;
      }
    }
    return tokens;
  }
};
var BEGINS_PIECE = /^[^\s/]/;
var NOT_ASCII = /[\u0080-\uffff]/;
function asciiPieceEnd(text2, start) {
  const n = text2.length;
  const c = text2.charCodeAt(start);
  const from = isLetter(c) ? start : prefixable(c) ? start + 1 : -1;
  if (from >= 0) {
    let k = from;
    while (k < n && isUpper(text2.charCodeAt(k))) k++;
    let m = k;
    while (m < n && isLower(text2.charCodeAt(m))) m++;
    if (m > from) return contractionEnd(text2, m);
  }
  if (isDigit(c)) {
    let k = start + 1;
    while (k < n && k < start + 3 && isDigit(text2.charCodeAt(k))) k++;
    return k;
  }
  const symbols = c === 32 && start + 1 < n && isSymbol(text2.charCodeAt(start + 1)) ? start + 1 : start;
  if (isSymbol(text2.charCodeAt(symbols))) {
    let k = symbols + 1;
    while (k < n && isSymbol(text2.charCodeAt(k))) k++;
    while (k < n && (text2.charCodeAt(k) === 10 || text2.charCodeAt(k) === 13 || text2.charCodeAt(k) === 47)) k++;
    return k;
  }
  let end = start + 1;
  while (end < n && isSpace(text2.charCodeAt(end))) end++;
  for (let k = end - 1; k >= start; k--) {
    const d = text2.charCodeAt(k);
    if (d === 10 || d === 13) return k + 1;
  }
  return end === n || end - start === 1 ? end : end - 1;
}
function contractionEnd(text2, at) {
  if (text2.charCodeAt(at) !== 39) return at;
  const a = text2.charCodeAt(at + 1) | 32;
  if (a === 115 || a === 116 || a === 109 || a === 100) return at + 2;
  const b = text2.charCodeAt(at + 2) | 32;
  if (a === 114 && b === 101 || a === 118 && b === 101 || a === 108 && b === 108) return at + 3;
  return at;
}
var isUpper = (c) => c >= 65 && c <= 90;
var isLower = (c) => c >= 97 && c <= 122;
var isLetter = (c) => isUpper(c) || isLower(c);
var isDigit = (c) => c >= 48 && c <= 57;
var isSpace = (c) => c === 32 || c >= 9 && c <= 13;
var isSymbol = (c) => !isSpace(c) && !isLetter(c) && !isDigit(c);
var prefixable = (c) => c !== 10 && c !== 13 && !isLetter(c) && !isDigit(c);
var PieceCounts = class {
  size = 0;
  pieces = new Array(PIECE_SLOTS);
  counts = new Int32Array(PIECE_SLOTS);
  /** Tokens of text[start, end), whose hashOf is `hash`, merged on first sight. */
  count(encoding, text2, start, end, hash) {
    const length = end - start;
    let slot = hash & PIECE_SLOTS - 1;
    for (; ; ) {
      const piece2 = this.pieces[slot];
      if (piece2 === void 0) break;
      if (piece2.length === length && text2.startsWith(piece2, start)) return this.counts[slot];
      slot = slot + 1 & PIECE_SLOTS - 1;
    }
    const piece = text2.slice(start, end);
    const count = mergeCount(encoding, Buffer.from(piece, "utf8").toString("latin1"));
    if (this.size >= PIECE_SLOTS / 2) {
      this.pieces = new Array(PIECE_SLOTS);
      this.size = 0;
      return count;
    }
    this.pieces[slot] = piece;
    this.counts[slot] = count;
    this.size++;
    return count;
  }
};
var PIECE_SLOTS = 1 << 18;
var FNV_OFFSET = 2166136261;
var FNV_PRIME = 16777619;
var o200k;
function mergeCount(encoding, bytes) {
  const n = bytes.length;
  const { ranks } = encoding;
  const { longest } = ranks;
  if (n <= 1) return n;
  if (ranks.rank(bytes, 0, n) !== void 0) return 1;
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const alive = new Uint8Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  const heap = new MergeHeap();
  const offer = (start) => {
    const mid = next[start];
    if (mid >= n) return;
    const end = next[mid];
    if (end - start > longest) return;
    const rank = ranks.rank(bytes, start, end);
    if (rank !== void 0) heap.push(rank, start, end);
  };
  for (let i = 0; i < n - 1; i++) offer(i);
  let parts = n;
  while (heap.size > 0) {
    const [start, end] = heap.pop();
    const mid = next[start];
    if (!alive[start] || mid >= n || next[mid] !== end) continue;
    alive[mid] = 0;
    next[start] = end;
    if (end < n) prev[end] = start;
    parts--;
    if (prev[start] >= 0) offer(prev[start]);
    offer(start);
  }
  return parts;
}
var MergeHeap = class {
  keys = [];
  ends = [];
  get size() {
    return this.keys.length;
  }
  push(rank, start, end) {
    const key = rank * 2 ** 32 + start;
    const { keys, ends } = this;
    let i = keys.length;
    keys.push(key);
    ends.push(end);
    while (i > 0) {
      const parent = i - 1 >> 1;
      if (keys[parent] <= key) break;
      keys[i] = keys[parent];
      ends[i] = ends[parent];
      i = parent;
    }
    keys[i] = key;
    ends[i] = end;
  }
  /** [start, end] of the lowest candidate, removed. */
  pop() {
    const { keys, ends } = this;
    const top = [keys[0] % 2 ** 32, ends[0]];
    const lastKey = keys.pop();
    const lastEnd = ends.pop();
    const size = keys.length;
    if (size > 0) {
      let i = 0;
      for (; ; ) {
        let child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && keys[child + 1] < keys[child]) child++;
        if (keys[child] >= lastKey) break;
        keys[i] = keys[child];
        ends[i] = ends[child];
        i = child;
      }
      keys[i] = lastKey;
      ends[i] = lastEnd;
    }
    return top;
  }
};

// src/model/endpoint.ts
var PROVIDER_BASE_URLS = { openai: "https://api.openai.com/v1", anthropic: "https://api.anthropic.com" };
function openaiRoot(baseUrl) {
  try {
    const url = new URL(baseUrl);
    return url.pathname === "/" && url.search === "" && url.hash === "" ? `${baseUrl}/v1` : baseUrl;
  } catch {
    return baseUrl;
  }
}
function anthropicRoot(baseUrl) {
  return baseUrl.replace(/\/v1$/, "");
}
function providerEndpoint(provider, baseUrl) {
  const root = provider === "openai" ? openaiRoot : anthropicRoot;
  return root((baseUrl ?? PROVIDER_BASE_URLS[provider]).replace(/\/+$/, ""));
}

// src/estimate/estimate.ts
var DEFAULT_OUTPUT_TOKENS = 1e3;
function batched(pair, everyPair = false) {
  return providerGenerator(pair) && (everyPair || plain(pair.generatorConfig.batch) === true);
}
async function estimatePlan(source, plan, options = {}) {
  const { workflow } = source;
  const { history: history2 } = source;
  const running = plan.pairs.filter((p) => p.action === "run" && (options.include?.(p.id) ?? true));
  if (running.some((p) => tokenMethod(workflow.pairs.get(p.id).model) === "o200k_base")) await loadTokenizer(source.tokenTable);
  const contents = /* @__PURE__ */ new Map();
  const contentOf = (dep) => {
    if (!contents.has(dep.id)) contents.set(dep.id, source.contentOf(dep));
    return contents.get(dep.id);
  };
  const prices = /* @__PURE__ */ new Map();
  const priceOf = (model) => {
    if (!prices.has(model)) prices.set(model, priceFor(model, workflow.pricing));
    return prices.get(model);
  };
  const sharing = sharedPrefixes(running.map((p) => workflow.pairs.get(p.id)).filter(providerGenerator), workflow, byProviderAndModel);
  const written = /* @__PURE__ */ new Set();
  const counter = new JoinedTokens(UNIT_SEPARATOR);
  const asDependencies = /* @__PURE__ */ new Map();
  const asDependency = (depId) => {
    let known = asDependencies.get(depId);
    if (known === void 0) {
      const dep = plan.byId.get(depId);
      const content = contentOf(dep);
      if (content !== void 0) {
        known = { content, expected: 0, note: dep.action === "run" ? `${depId} will run: estimated with its last accepted content` : void 0 };
      } else {
        const expected = expectedOutput(workflow.pairs.get(depId), history2.get(depId)).tokens;
        known = { content, expected, note: `${depId} has no accepted content here yet: counted as its expected output (${grouped(expected)} tokens)` };
      }
      asDependencies.set(depId, known);
    }
    return known;
  };
  const pairs = running.map((planned) => {
    const pair = workflow.pairs.get(planned.id);
    if (planned.reuse?.kind === "request" || planned.reuse?.kind === "rejudge") return answeredBefore(pair, priceOf(pair.model), planned.reuse.kind);
    const notes = [];
    const output = expectedOutput(pair, history2.get(pair.id));
    const attempts = expectedAttempts(pair, history2.get(pair.id));
    const dependencies = [];
    let unknownDeps = 0;
    for (const depId of pair.requires) {
      const dep = asDependency(depId);
      dependencies.push({ id: depId, content: dep.content ?? "" });
      unknownDeps += dep.expected;
      if (dep.note !== void 0) notes.push(dep.note);
    }
    const rendered = renderPromptUnits({
      prompt: pair.prompt,
      specification: workflow.specification,
      constraints: workflow.constraints,
      dependencies,
      history: []
    });
    const counted = counter.count(rendered.units, rendered.units.length, pair.model, rendered.shared);
    const overhead = pair.generator === "openai" && counted.method !== "approximate" ? CHAT_OVERHEAD_TOKENS : 0;
    const inputTokens = counted.tokens + overhead + unknownDeps;
    const tokens2 = { input: Math.round(inputTokens * attempts.value), output: Math.round(output.tokens * attempts.value) };
    const depth = sharing.get(pair.id);
    if (depth !== void 0 && providerGenerator(pair)) {
      const prefixUnits = rendered.prefixUnits[depth];
      const cached = cachedTokens(pair, counter.count(rendered.units, prefixUnits, pair.model, rendered.shared).tokens);
      if (cached > 0) {
        const key = `${pair.generator}\0${pair.model}\0${rendered.units.slice(0, prefixUnits).join(UNIT_SEPARATOR)}`;
        const first = !written.has(key);
        written.add(key);
        const reads = first ? attempts.value - 1 : attempts.value;
        if (reads > 0) tokens2.cacheRead = Math.round(cached * reads);
        if (first && pair.generator === "anthropic") tokens2.cacheWrite = cached;
      }
    }
    if (batched(pair, options.batch)) tokens2.batch = true;
    const price = priceOf(pair.model);
    const cost = price ? costOf(tokens2, price) : null;
    return {
      id: pair.id,
      model: pair.model,
      inputTokens,
      tokenizer: counted.method,
      outputTokens: output.tokens,
      outputBasis: output.basis,
      attempts: attempts.value,
      attemptsBasis: attempts.basis,
      tokens: tokens2,
      price,
      cost,
      spends: cost !== null ? cost > 0 : providerGenerator(pair),
      notes
    };
  });
  const tokens = { input: 0, output: 0 };
  let knownCost = 0;
  const unpriced = /* @__PURE__ */ new Set();
  for (const p of pairs) {
    tokens.input += p.tokens.input;
    tokens.output += p.tokens.output;
    if (p.cost !== null) knownCost += p.cost;
    else unpriced.add(p.model ?? "(no model)");
  }
  return {
    pairs,
    totals: { pairs: pairs.length, tokens, cost: unpriced.size === 0 ? knownCost : null, knownCost, unpricedModels: [...unpriced] },
    pricesAsOf: BUILT_IN_PRICES_AS_OF,
    paced: pacedEndpoints(pairs, workflow)
  };
}
function pacedEndpoints(estimates, workflow) {
  const groups = /* @__PURE__ */ new Map();
  for (const e of estimates) {
    const pair = workflow.pairs.get(e.id);
    const limit = plain(pair.generatorConfig.rate_limit);
    if (!providerGenerator(pair) || e.attempts === 0 || typeof limit !== "object" || limit === null || e.tokens.batch === true) continue;
    const rpm = typeof limit.requests_per_minute === "number" ? limit.requests_per_minute : void 0;
    const tpm = typeof limit.tokens_per_minute === "number" ? limit.tokens_per_minute : void 0;
    const baseUrl = plain(pair.generatorConfig.base_url);
    const endpoint = providerEndpoint(pair.generator, typeof baseUrl === "string" ? baseUrl : void 0);
    const key = JSON.stringify([endpoint, e.model, rpm, tpm]);
    const group = groups.get(key) ?? {
      endpoint,
      model: e.model,
      ...rpm === void 0 ? {} : { requestsPerMinute: rpm },
      ...tpm === void 0 ? {} : { tokensPerMinute: tpm },
      calls: 0,
      tokens: 0,
      ms: 0
    };
    groups.set(key, group);
    const max = plain(pair.generatorConfig.max_tokens);
    const asks = typeof max === "number" ? max : pair.generator === "anthropic" ? ANTHROPIC_MAX_TOKENS : 0;
    group.calls += e.attempts;
    group.tokens += (e.inputTokens + asks) * e.attempts;
  }
  const beyond = (used, perMinute) => perMinute === void 0 ? 0 : Math.max(0, used - perMinute) / perMinute * 6e4;
  return [...groups.values()].map((g) => ({ ...g, ms: Math.max(beyond(g.calls, g.requestsPerMinute), beyond(g.tokens, g.tokensPerMinute)) }));
}
var ANTHROPIC_MAX_TOKENS = 4096;
function answeredBefore(pair, price, kind) {
  return {
    id: pair.id,
    model: pair.model,
    inputTokens: 0,
    tokenizer: tokenMethod(pair.model),
    outputTokens: 0,
    outputBasis: "none",
    attempts: 0,
    attemptsBasis: "none",
    tokens: { input: 0, output: 0 },
    price,
    cost: 0,
    spends: false,
    notes: [
      kind === "request" ? "its request was answered before: no model call" : "re-judged: no model call if its guard accepts what the same request returned"
    ]
  };
}
function cachedTokens(pair, prefix) {
  if (prefix < cacheMinTokens(pair.model)) return 0;
  return pair.generator === "openai" ? 1024 + Math.floor((prefix - 1024) / 128) * 128 : prefix;
}
var MODEL_GENERATORS = new Set(Object.keys(PROVIDER_BASE_URLS));
function providerGenerator(pair) {
  return pair.generator !== null && MODEL_GENERATORS.has(pair.generator);
}
function callsModel(pair) {
  return pair.model !== null || providerGenerator(pair);
}
function asksBeforeRunning(estimate) {
  return estimate.pairs.some((p) => p.spends);
}
function expectedOutput(pair, history2) {
  const past = median(history2?.outputs ?? []);
  if (past !== void 0) return { tokens: Math.round(past), basis: "history" };
  const max = plain(pair.generatorConfig.max_tokens);
  if (typeof max === "number" && Number.isInteger(max) && max > 0) return { tokens: max, basis: "max_tokens" };
  return { tokens: DEFAULT_OUTPUT_TOKENS, basis: "default" };
}
function expectedAttempts(pair, history2) {
  const past = median(history2?.attempts ?? []);
  if (past === void 0) return { value: 1, basis: "default" };
  return { value: Math.min(Math.max(past, 1), pair.rmax + 1), basis: "history" };
}

export {
  component,
  componentsOfLock,
  renderPrompt,
  renderPromptParts,
  byProviderAndModel,
  sharedPrefixes,
  withObserved,
  configRef,
  componentDigests,
  workflowRef,
  sortedObject,
  requestKey,
  guardKey,
  FILE_HEADERS_ONLY,
  createTwoFilesPatch,
  onlyPairs,
  withDependencies,
  planWorkflow,
  contentNeeded,
  decidePair,
  plannedComponents,
  totals,
  decider,
  providerEndpoint,
  pairHistory,
  cacheMinTokens,
  priceFor,
  costOf,
  usd,
  parseUsd,
  CHARS_PER_TOKEN,
  CHAT_OVERHEAD_TOKENS,
  countTokens,
  DEFAULT_OUTPUT_TOKENS,
  estimatePlan,
  callsModel,
  asksBeforeRunning
};
