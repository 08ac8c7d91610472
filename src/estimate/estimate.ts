/**
 * The estimate of a plan: for each pair that will run, the tokens of its prompt as it would be
 * rendered, the output and attempts to expect, and what that costs. Pure: the application layer
 * hands it past runs and accepted contents.
 */
import { plain } from "../model/values.js";
import { grouped } from "../model/text.js";
import { PROVIDER_BASE_URLS, providerEndpoint, type Provider } from "../model/endpoint.js";
import type { Pair, Workflow } from "../model/workflow.js";
import type { Plan, PlannedPair } from "../model/plan.js";
import { byProviderAndModel, renderPromptUnits, sharedPrefixes, UNIT_SEPARATOR } from "../prompt/render.js";
import type { TokenUsage } from "../model/records.js";
import { median, type PairHistory } from "./history.js";
import { BUILT_IN_PRICES_AS_OF, cacheMinTokens, costOf, priceFor, type Price } from "./prices.js";
import { CHAT_OVERHEAD_TOKENS, JoinedTokens, loadTokenizer, tokenMethod, type TokenMethod } from "./tokens.js";

/** Output tokens per attempt to expect when a pair has no history and no max_tokens. */
export const DEFAULT_OUTPUT_TOKENS = 1000;

export interface PairEstimate {
  id: string;
  model: string | null;
  /** Tokens of the rendered prompt: what one attempt sends. */
  inputTokens: number;
  /** o200k_base: counted exactly; approximate: characters / 4. */
  tokenizer: TokenMethod;
  /** Output tokens one attempt is expected to produce. */
  outputTokens: number;
  /** none: the pair makes no call (its request was answered before). */
  outputBasis: "history" | "max_tokens" | "default" | "none";
  /** May be fractional: the median of past runs. */
  attempts: number;
  attemptsBasis: "history" | "default" | "none";
  /**
   * Over all expected attempts: `cacheRead` and `cacheWrite` are the input tokens the provider's
   * prompt cache is expected to serve or take (the beginning the plan says other pairs share),
   * `batch` that the requests go through the provider's batch API.
   */
  tokens: TokenUsage;
  price: Price | null;
  /** USD; null when the model has no known price. */
  cost: number | null;
  /**
   * Running it may cost money: its model has a price above zero, or no known price while its
   * generator is a provider's (openai, anthropic). A command naming a model nobody priced, such as
   * an offline stand-in, does not.
   */
  spends: boolean;
  /** What a reader should know about this pair's numbers. */
  notes: string[];
}

export interface PlanEstimate {
  /** The pairs that will run, in plan order. */
  pairs: PairEstimate[];
  totals: {
    pairs: number;
    tokens: TokenUsage;
    /** USD; null when any pair's cost is unknown. */
    cost: number | null;
    /** USD of the pairs whose cost is known. */
    knownCost: number;
    /** Models of running pairs with no known price. */
    unpricedModels: string[];
  };
  /** The date of the built-in prices. */
  pricesAsOf: string;
  /**
   * The least time the calls to each endpoint with a configured `rate_limit` take at that limit:
   * what they ask beyond the first full minute, at the limit's rate.
   */
  paced: PacedEndpoint[];
}

/** The calls to one endpoint and model with a configured rate limit, and the least time they take at it. */
export interface PacedEndpoint {
  endpoint: string;
  model: string | null;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  calls: number;
  /** Each call's prompt and max_tokens, as the limit counts them. */
  tokens: number;
  ms: number;
}

/** What an estimate reads, gathered by the application layer. */
export interface EstimateSource {
  workflow: Workflow;
  /** Past accepted runs by pair id (see ./history.ts). */
  history: ReadonlyMap<string, PairHistory>;
  /**
   * The content a pair's dependents would see: its accepted content (for a pair that will run, its
   * last accepted content), or undefined when there is none here.
   */
  contentOf(planned: PlannedPair): string | undefined;
  /** The token table the build packaged, if any (see loadTokenizer). */
  tokenTable?: () => Uint8Array | undefined;
}

export interface EstimateOptions {
  /** Pairs that will actually execute among those planned to run (e.g. `--only`); default all. */
  include?: (id: string) => boolean;
  /** Every openai and anthropic pair's requests go through the provider's batch API (`run --batch`). */
  batch?: boolean;
}

/** Whether a pair's requests go through its provider's batch API: `batch: true` in its generator_config, or `run --batch`. */
export function batched(pair: Pair, everyPair = false): boolean {
  return providerGenerator(pair) && (everyPair || plain(pair.generatorConfig.batch) === true);
}

export async function estimatePlan(source: EstimateSource, plan: Plan, options: EstimateOptions = {}): Promise<PlanEstimate> {
  const { workflow } = source;
  const { history } = source;
  const running = plan.pairs.filter((p) => p.action === "run" && (options.include?.(p.id) ?? true));
  if (running.some((p) => tokenMethod(workflow.pairs.get(p.id)!.model) === "o200k_base")) await loadTokenizer(source.tokenTable);
  const contents = new Map<string, string | undefined>();
  const contentOf = (dep: PlannedPair): string | undefined => {
    if (!contents.has(dep.id)) contents.set(dep.id, source.contentOf(dep));
    return contents.get(dep.id);
  };

  // One price a model, shared by its pairs' estimates.
  const prices = new Map<string | null, ReturnType<typeof priceFor>>();
  const priceOf = (model: string | null) => {
    if (!prices.has(model)) prices.set(model, priceFor(model, workflow.pricing));
    return prices.get(model)!;
  };

  // What the provider's prompt cache is expected to serve: the beginning a pair's prompt shares
  // with others' (src/prompt/render.ts sharedPrefixes), written by the first request of each such
  // beginning and read by every later one, when it is long enough for the model to be cached.
  // Only a provider's pairs are read from it, and the groups keep them apart from the others'.
  const sharing = sharedPrefixes(running.map((p) => workflow.pairs.get(p.id)!).filter(providerGenerator), workflow, byProviderAndModel);
  const written = new Set<string>();
  // The prompts' parts many of them hold (the context, a dependency's block) are counted once.
  const counter = new JoinedTokens(UNIT_SEPARATOR);

  // What a pair is to each of its dependents, found once: its content, else its expected output
  // (counted instead), and the note that says which (one string, shared by the dependents' notes).
  const asDependencies = new Map<string, { content: string | undefined; expected: number; note: string | undefined }>();
  const asDependency = (depId: string) => {
    let known = asDependencies.get(depId);
    if (known === undefined) {
      const dep = plan.byId.get(depId)!;
      const content = contentOf(dep);
      if (content !== undefined) {
        known = { content, expected: 0, note: dep.action === "run" ? `${depId} will run: estimated with its last accepted content` : undefined };
      } else {
        const expected = expectedOutput(workflow.pairs.get(depId)!, history.get(depId)).tokens;
        known = { content, expected, note: `${depId} has no accepted content here yet: counted as its expected output (${grouped(expected)} tokens)` };
      }
      asDependencies.set(depId, known);
    }
    return known;
  };

  const pairs = running.map((planned) => {
    const pair = workflow.pairs.get(planned.id)!;
    // Answered from the request index, as the plan expects: no call, nothing to pay.
    if (planned.reuse?.kind === "request" || planned.reuse?.kind === "rejudge") return answeredBefore(pair, priceOf(pair.model), planned.reuse.kind);
    const notes: string[] = [];
    const output = expectedOutput(pair, history.get(pair.id));
    const attempts = expectedAttempts(pair, history.get(pair.id));

    // The prompt as the run would render it for the first attempt. A dependency's content is its
    // accepted content; one that will run first is estimated with its last accepted content.
    const dependencies: { id: string; content: string }[] = [];
    let unknownDeps = 0;
    for (const depId of pair.requires) {
      const dep = asDependency(depId);
      dependencies.push({ id: depId, content: dep.content ?? "" });
      unknownDeps += dep.expected;
      if (dep.note !== undefined) notes.push(dep.note);
    }
    const rendered = renderPromptUnits({
      prompt: pair.prompt,
      specification: workflow.specification,
      constraints: workflow.constraints,
      dependencies,
      history: [],
    });
    const counted = counter.count(rendered.units, rendered.units.length, pair.model, rendered.shared);
    const overhead = pair.generator === "openai" && counted.method !== "approximate" ? CHAT_OVERHEAD_TOKENS : 0;
    const inputTokens = counted.tokens + overhead + unknownDeps;

    const tokens: TokenUsage = { input: Math.round(inputTokens * attempts.value), output: Math.round(output.tokens * attempts.value) };
    const depth = sharing.get(pair.id);
    if (depth !== undefined && providerGenerator(pair)) {
      const prefixUnits = rendered.prefixUnits[depth]!;
      const cached = cachedTokens(pair, counter.count(rendered.units, prefixUnits, pair.model, rendered.shared).tokens);
      if (cached > 0) {
        // The first request of this beginning writes it (Anthropic charges for that), every later one reads it.
        const key = `${pair.generator}\0${pair.model}\0${rendered.units.slice(0, prefixUnits).join(UNIT_SEPARATOR)}`;
        const first = !written.has(key);
        written.add(key);
        const reads = first ? attempts.value - 1 : attempts.value;
        if (reads > 0) tokens.cacheRead = Math.round(cached * reads);
        if (first && pair.generator === "anthropic") tokens.cacheWrite = cached;
      }
    }
    if (batched(pair, options.batch)) tokens.batch = true;
    const price = priceOf(pair.model);
    const cost = price ? costOf(tokens, price) : null;
    return {
      id: pair.id,
      model: pair.model,
      inputTokens,
      tokenizer: counted.method,
      outputTokens: output.tokens,
      outputBasis: output.basis,
      attempts: attempts.value,
      attemptsBasis: attempts.basis,
      tokens,
      price,
      cost,
      spends: cost !== null ? cost > 0 : providerGenerator(pair),
      notes,
    } satisfies PairEstimate;
  });

  const tokens = { input: 0, output: 0 };
  let knownCost = 0;
  const unpriced = new Set<string>();
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
    paced: pacedEndpoints(pairs, workflow),
  };
}

/**
 * The endpoints with a configured `rate_limit` the estimated calls go to, each with the least time
 * its calls take at it: every bucket full at the start, then refilled at the limit's rate. A limit
 * the provider tells only in its answers is not known before the run.
 */
function pacedEndpoints(estimates: readonly PairEstimate[], workflow: Workflow): PacedEndpoint[] {
  const groups = new Map<string, PacedEndpoint>();
  for (const e of estimates) {
    const pair = workflow.pairs.get(e.id)!;
    const limit = plain(pair.generatorConfig.rate_limit) as { requests_per_minute?: unknown; tokens_per_minute?: unknown } | undefined;
    // A batch's requests go to the batch API, whose limits are its own.
    if (!providerGenerator(pair) || e.attempts === 0 || typeof limit !== "object" || limit === null || e.tokens.batch === true) continue;
    const rpm = typeof limit.requests_per_minute === "number" ? limit.requests_per_minute : undefined;
    const tpm = typeof limit.tokens_per_minute === "number" ? limit.tokens_per_minute : undefined;
    // Grouped by the address the calls go to, however base_url writes it (with `/v1` or without).
    const baseUrl = plain(pair.generatorConfig.base_url);
    const endpoint = providerEndpoint(pair.generator as Provider, typeof baseUrl === "string" ? baseUrl : undefined);
    const key = JSON.stringify([endpoint, e.model, rpm, tpm]);
    const group = groups.get(key) ?? {
      endpoint,
      model: e.model,
      ...(rpm === undefined ? {} : { requestsPerMinute: rpm }),
      ...(tpm === undefined ? {} : { tokensPerMinute: tpm }),
      calls: 0,
      tokens: 0,
      ms: 0,
    };
    groups.set(key, group);
    const max = plain(pair.generatorConfig.max_tokens);
    const asks = typeof max === "number" ? max : pair.generator === "anthropic" ? ANTHROPIC_MAX_TOKENS : 0;
    group.calls += e.attempts;
    group.tokens += (e.inputTokens + asks) * e.attempts;
  }
  const beyond = (used: number, perMinute: number | undefined) => (perMinute === undefined ? 0 : (Math.max(0, used - perMinute) / perMinute) * 60_000);
  return [...groups.values()].map((g) => ({ ...g, ms: Math.max(beyond(g.calls, g.requestsPerMinute), beyond(g.tokens, g.tokensPerMinute)) }));
}

/** What the anthropic generator sends as max_tokens when generator_config says none (src/generators/anthropic.ts). */
const ANTHROPIC_MAX_TOKENS = 4096;

/** A pair whose request was answered before: no call, so no tokens and no cost. */
function answeredBefore(pair: Pair, price: Price | null, kind: "request" | "rejudge"): PairEstimate {
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
      kind === "request" ? "its request was answered before: no model call" : "re-judged: no model call if its guard accepts what the same request returned",
    ],
  };
}

/**
 * How many of a shared beginning's tokens the provider caches: none below the model's minimum;
 * OpenAI caches from 1,024 tokens on in steps of 128.
 */
function cachedTokens(pair: Pair, prefix: number): number {
  if (prefix < cacheMinTokens(pair.model)) return 0;
  return pair.generator === "openai" ? 1024 + Math.floor((prefix - 1024) / 128) * 128 : prefix;
}

/** The generators that call a model themselves (and report what it used). */
const MODEL_GENERATORS = new Set<string>(Object.keys(PROVIDER_BASE_URLS));

function providerGenerator(pair: Pair): boolean {
  return pair.generator !== null && MODEL_GENERATORS.has(pair.generator);
}

/**
 * Whether a pair calls a model, so that tokens and cost mean something: its generator is a
 * provider's, or it names a model (which a command generator receives as PAIRFLOW_MODEL, to call
 * it). A command with no model, such as a script or a template, calls none.
 */
export function callsModel(pair: Pair): boolean {
  return pair.model !== null || providerGenerator(pair);
}

/**
 * Whether a run of these pairs asks before it starts (on a terminal, without --yes): only when
 * something in it may cost money. A run that calls no model, or only models priced at zero or
 * offline stand-ins, has no question to answer.
 */
export function asksBeforeRunning(estimate: PlanEstimate): boolean {
  return estimate.pairs.some((p) => p.spends);
}

/** Median of past accepted attempts, else generator_config.max_tokens, else the default. */
function expectedOutput(pair: Pair, history: PairHistory | undefined): { tokens: number; basis: PairEstimate["outputBasis"] } {
  const past = median(history?.outputs ?? []);
  if (past !== undefined) return { tokens: Math.round(past), basis: "history" };
  const max = plain(pair.generatorConfig.max_tokens);
  if (typeof max === "number" && Number.isInteger(max) && max > 0) return { tokens: max, basis: "max_tokens" };
  return { tokens: DEFAULT_OUTPUT_TOKENS, basis: "default" };
}

/** Median attempts of past accepted runs (never more than rmax + 1), else 1. */
function expectedAttempts(pair: Pair, history: PairHistory | undefined): { value: number; basis: PairEstimate["attemptsBasis"] } {
  const past = median(history?.attempts ?? []);
  if (past === undefined) return { value: 1, basis: "default" };
  return { value: Math.min(Math.max(past, 1), pair.rmax + 1), basis: "history" };
}
