/**
 * What the LLM providers share: reading their generator_config, and POSTing JSON with retries,
 * backoff and a per-request timeout. Messages never carry the API key or extra header values.
 */
import { randomBytes } from "node:crypto";
import { request as httpRequest, validateHeaderName, validateHeaderValue, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import { cacheMinTokens } from "../estimate/prices.js";
import { CHAT_OVERHEAD_TOKENS, CHARS_PER_TOKEN, countTokens } from "../estimate/tokens.js";
import { GeneratorError, RateLimitWaitError, type GenerateRequest, type PacedTurn, type Pacing, type RateCost, type RateLimits } from "../model/ports.js";
import { providerEndpoint, type Provider } from "../model/endpoint.js";
import { sha256Hex } from "../refs/hash.js";
import { systemClock } from "../schedule/clock.js";
import { retryAfter } from "../schedule/headers.js";
import { Pacer } from "../schedule/pacer.js";

/**
 * Rate limits, overloads (Anthropic's 529) and gateway hiccups pass; other statuses will not. A
 * paced call's 429 is a wait (src/schedule/), not one of its attempts.
 */
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504, 529]);
const DEFAULT_BASE_DELAY_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
const MAX_RETRY_AFTER_MS = 60_000;
const MAX_MESSAGE_CHARS = 500;
/** Node timers overflow (and fire at once) beyond this. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ProviderSettings {
  /** Without a trailing slash. */
  baseUrl: string;
  /** Undefined when the variable is unset and the endpoint is not the provider's own (Ollama, vLLM...). */
  apiKey: string | undefined;
  apiKeyEnv: string;
  /** Extra headers from generator_config.headers. */
  headers: Record<string, string>;
  timeoutSeconds: number;
  retries: number;
  /** First backoff delay; PAIRFLOW_HTTP_BACKOFF_MS shortens it (tests). */
  baseDelayMs: number;
  /** generator_config.rate_limit: the endpoint's limits, for one that does not send its own. */
  rateLimit?: RateLimits;
}

/** One synchronous call a provider generator makes for a request (see openaiCall, anthropicCall). */
export interface ProviderCall {
  provider: "openai" | "anthropic";
  settings: ProviderSettings;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /**
   * What the body asks the model, without what only changes how it travels (cache markers): two
   * calls that ask the same are the same request, whichever way they were sent.
   */
  asked: unknown;
  /** Azure's api-version, when the endpoint is Azure's. */
  apiVersion?: string;
  /** The model asked, and what the call takes from its budget: the prompt's tokens and max_tokens. */
  model: string;
  cost: RateCost;
  /** The beginning the call shares with others of the run, long enough for the provider's prompt cache (a hash of it). */
  shared?: string;
  /** Strings never shown in a message. */
  secrets: string[];
  authHint?: string;
}

/** The generator_config settings both providers read, checked. */
export function readProviderSettings(provider: Provider, request: GenerateRequest, defaults: { apiKeyEnv: string }): ProviderSettings {
  const { config, env } = request;
  // base_url in the one form the provider's paths are added to, from either form people write (docs/providers.md).
  const baseUrl = providerEndpoint(provider, configString(provider, config, "base_url"));
  const apiKeyEnv = configString(provider, config, "api_key_env") ?? defaults.apiKeyEnv;
  const apiKey = env[apiKeyEnv] || undefined;
  // Only the provider's own endpoint surely needs a key; local servers usually take none.
  if (apiKey === undefined && baseUrl === providerEndpoint(provider, undefined)) {
    throw new GeneratorError(
      `${provider}: set the ${apiKeyEnv} environment variable to your API key ` + `(or name another variable in generator_config.api_key_env)`,
    );
  }
  const headers = config.headers ?? {};
  if (typeof headers !== "object" || headers === null || Array.isArray(headers) || !Object.values(headers).every((v) => typeof v === "string")) {
    throw new GeneratorError(`${provider}: generator_config.headers must map header names to strings`);
  }
  const backoff = Number(env.PAIRFLOW_HTTP_BACKOFF_MS);
  const rateLimit = readRateLimit(provider, config.rate_limit);
  return {
    baseUrl,
    apiKey,
    apiKeyEnv,
    headers: headers as Record<string, string>,
    timeoutSeconds: configNumber(provider, config, "timeout", { min: 0, exclusive: true }) ?? 120,
    retries: configNumber(provider, config, "retries", { min: 0, integer: true }) ?? 4,
    baseDelayMs: env.PAIRFLOW_HTTP_BACKOFF_MS && backoff >= 0 ? backoff : DEFAULT_BASE_DELAY_MS,
    ...(rateLimit === undefined ? {} : { rateLimit }),
  };
}

/** generator_config.rate_limit: `{requests_per_minute, tokens_per_minute}`, either or both. */
function readRateLimit(provider: string, value: unknown): RateLimits | undefined {
  if (value === undefined || value === null) return undefined;
  const wrong = () => new GeneratorError(`${provider}: generator_config.rate_limit must be {requests_per_minute, tokens_per_minute}, each a number > 0`);
  if (typeof value !== "object" || Array.isArray(value)) throw wrong();
  const limits: RateLimits = {};
  for (const [key, n] of Object.entries(value)) {
    if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) throw wrong();
    if (key === "requests_per_minute") limits.requestsPerMinute = n;
    else if (key === "tokens_per_minute") limits.tokensPerMinute = n;
    else throw wrong();
  }
  return limits;
}

/**
 * What a call takes from its provider's budget before it is answered, as the providers count it
 * when it arrives: the prompt's tokens (by pairflow's tokenizer where it has the model's, else
 * approximated) and the most it may answer (max_tokens).
 */
export function requestCost(prompt: string, model: string, maxTokens: number | undefined): RateCost {
  let input: number;
  try {
    input = countTokens(prompt, model).tokens;
  } catch {
    // The tokenizer is loaded by the estimate; a call made without one counts as the approximation does.
    input = Math.ceil(prompt.length / CHARS_PER_TOKEN);
  }
  return { input: input + CHAT_OVERHEAD_TOKENS, output: maxTokens ?? 0 };
}

/**
 * The beginning of the prompt other calls of the run share (GenerateRequest.cacheablePrefix), named
 * by a hash with the model, when it is long enough for the provider to cache it (by the
 * approximation: the whole prompt is counted once already, for its cost); else undefined.
 */
export function sharedBeginning(prompt: string, prefix: number | undefined, model: string): string | undefined {
  if (prefix === undefined || prefix <= 0) return undefined;
  const head = prompt.slice(0, prefix);
  if (Math.ceil(head.length / CHARS_PER_TOKEN) < cacheMinTokens(model)) return undefined;
  return sha256Hex(`${model}\n${head}`);
}

/** The process's own pacing, for calls made outside a run (a run hands its own). */
let processPacing: Pacing | undefined;

export function requireModel(provider: string, request: GenerateRequest): string {
  if (request.model === null || request.model === "") {
    throw new GeneratorError(`${provider}: no model set; set "model" on pair ${request.pairId} or on the workflow`);
  }
  return request.model;
}

export function configString(provider: string, config: Record<string, unknown>, key: string): string | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value === "") {
    throw new GeneratorError(`${provider}: generator_config.${key} must be a non-empty string`);
  }
  return value;
}

export function configNumber(
  provider: string,
  config: Record<string, unknown>,
  key: string,
  rules: { min?: number; exclusive?: boolean; integer?: boolean } = {},
): number | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    (!rules.integer || Number.isInteger(value)) &&
    (rules.min === undefined || (rules.exclusive ? value > rules.min : value >= rules.min));
  if (!ok) {
    const kind = rules.integer ? "an integer" : "a number";
    const bound = rules.min === undefined ? "" : ` ${rules.exclusive ? ">" : ">="} ${rules.min}`;
    throw new GeneratorError(`${provider}: generator_config.${key} must be ${kind}${bound}`);
  }
  return value;
}

export interface PostJsonOptions {
  /** Names the provider in messages. */
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutSeconds: number;
  retries: number;
  signal: AbortSignal;
  /** Strings (API key, header values) replaced by *** in every message. */
  secrets: string[];
  baseDelayMs?: number;
  /** Appended to 401/403 messages, e.g. to say that no key was sent. */
  authHint?: string;
  /** Waits for a turn of its budget before each try; a 429 is then a wait, not a try. */
  paced?: { pacing: Pacing; budget: Parameters<Pacing["turn"]>[0]; cost: RateCost; shared?: string };
}

/**
 * Sends a provider call synchronously, with its settings' timeout, retries and backoff, paced by
 * `pacing`: one budget per endpoint, key and model, named by a hash of them.
 */
export function sendCall(call: ProviderCall, signal: AbortSignal, pacing?: Pacing): Promise<unknown> {
  const url = new URL(call.url);
  const budget = {
    id: sha256Hex(`${url.origin}${url.pathname}\n${call.model}\n${call.settings.apiKey ?? ""}`),
    host: url.host,
    ...(call.settings.rateLimit ? { limits: call.settings.rateLimit } : {}),
  };
  return postJson({
    paced: { pacing: pacing ?? (processPacing ??= new Pacer({ clock: systemClock })), budget, cost: call.cost, shared: call.shared },
    provider: call.provider,
    url: call.url,
    headers: call.headers,
    body: call.body,
    timeoutSeconds: call.settings.timeoutSeconds,
    retries: call.settings.retries,
    signal,
    secrets: call.secrets,
    baseDelayMs: call.settings.baseDelayMs,
    authHint: call.authHint,
  });
}

/** POST `body` as JSON and return the parsed JSON response, retrying what is worth retrying. */
export function postJson(options: PostJsonOptions): Promise<unknown> {
  return httpCall({ ...options, method: "POST" }) as Promise<unknown>;
}

export interface HttpOptions extends Omit<PostJsonOptions, "body"> {
  method: "GET" | "POST";
  /** Sent as JSON; absent: no body. */
  body?: unknown;
  /** Sent as multipart/form-data instead (a file upload). */
  form?: Upload;
  /** The response as parsed JSON (default) or as text (a JSONL file). */
  as?: "json" | "text";
  /**
   * Whether a request that may have reached the server (timed out, connection lost) is sent again.
   * Default true. A request that creates something (a batch) says false: sending it twice could
   * create it twice, so its caller finds out what happened instead.
   */
  retryUnanswered?: boolean;
}

/** A file upload: its plain fields, then the file. */
export interface Upload {
  fields: Record<string, string>;
  file: { field: string; name: string; type: string; content: string };
}

/**
 * An upload as multipart/form-data (RFC 7578), encoded here rather than by fetch's FormData, which
 * would load fetch's WebAssembly (see exchange). Names and values come from pairflow, never quotes
 * or line breaks; the boundary is random, and checked against the content.
 */
export function multipart(upload: Upload): { type: string; body: Buffer } {
  let boundary: string;
  do boundary = `pairflow-${randomBytes(16).toString("hex")}`;
  while (upload.file.content.includes(boundary) || Object.values(upload.fields).some((value) => value.includes(boundary)));
  const part = (disposition: string, type?: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ""}\r\n`;
  const text = [
    ...Object.entries(upload.fields).map(([name, value]) => `${part(`name="${name}"`)}${value}\r\n`),
    part(`name="${upload.file.field}"; filename="${upload.file.name}"`, upload.file.type),
  ].join("");
  return {
    type: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.concat([Buffer.from(text), Buffer.from(upload.file.content), Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}

/**
 * One HTTP exchange with a provider: retries with backoff what is worth retrying (429, 5xx, and
 * unless told otherwise a request that got no answer), times each try out, and keeps secrets out
 * of every message.
 */
export async function httpCall(options: HttpOptions): Promise<unknown> {
  const { provider, url, timeoutSeconds, retries, signal } = options;
  const fail = (reason: string) => new GeneratorError(redact(`${provider}: ${reason}`, options.secrets));
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    throw fail(`generator_config.base_url does not make a valid URL: ${url}`);
  }
  // Plain objects, not fetch's Headers: loading any of fetch's classes instantiates its WebAssembly parser (see exchange).
  const headers: Record<string, string> = options.body !== undefined ? { "content-type": "application/json" } : {};
  for (const [name, value] of Object.entries(options.headers)) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      // Node's own message would quote the value.
      throw fail(`header "${name}" has an invalid name or value`);
    }
    for (const known of Object.keys(headers)) if (known.toLowerCase() === name.toLowerCase()) delete headers[known];
    headers[name] = value;
  }
  let payload: Buffer | undefined;
  if (options.form) {
    const encoded = multipart(options.form);
    headers["content-type"] = encoded.type;
    payload = encoded.body;
  } else if (options.body !== undefined) payload = Buffer.from(JSON.stringify(options.body));

  const paced = options.paced;
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw fail("cancelled");
    let turn: PacedTurn | undefined;
    if (paced) {
      try {
        turn = await paced.pacing.turn(paced.budget, paced.cost, signal, paced.shared);
      } catch (error) {
        if (error instanceof RateLimitWaitError) throw new RateLimitWaitError(redact(`${provider}: ${error.message}`, options.secrets));
        throw fail("cancelled");
      }
    }
    const timeout = AbortSignal.timeout(Math.min(timeoutSeconds * 1000, MAX_TIMER_MS));
    let failure: string;
    let retryAfter: string | null = null;
    try {
      const response = await exchange(url, options.method, headers, payload, AbortSignal.any([signal, timeout]));
      const text = response.text; // read under the timeout: a stalled body counts too
      const header = (name: string) => response.header(name);
      const spent = response.status === 429 && quotaSpent(text);
      // Refused for the rate limit, not for a spent quota: wait for the turn the budget gives, and
      // ask again, the same attempt.
      if (response.status === 429 && turn && !spent) {
        turn.limited(header);
        attempt--;
        continue;
      }
      turn?.answered(header);
      turn = undefined;
      if (response.ok) return options.as === "text" ? text : parseJson(text, fail, options.secrets);
      failure = `HTTP ${response.status}: ${providerMessage(text, response.statusText, options.secrets)}`;
      if (!RETRYABLE_STATUSES.has(response.status) || spent) {
        const hint = (response.status === 401 || response.status === 403) && options.authHint;
        throw fail(hint ? `${failure} (${hint})` : failure);
      }
      retryAfter = response.header("retry-after");
    } catch (error) {
      turn?.failed();
      if (error instanceof GeneratorError) throw error;
      if (signal.aborted) throw fail("cancelled");
      failure = timeout.aborted ? `timed out after ${timeoutSeconds}s` : `could not reach ${host}: ${networkReason(error)}`;
      if (options.retryUnanswered === false && !neverSent(error)) throw new UnansweredError(redact(`${provider}: ${failure}`, options.secrets));
    }
    if (attempt >= retries) {
      throw fail(retries > 0 ? `${failure} (gave up after ${attempt + 1} attempts)` : failure);
    }
    try {
      await sleep(retryDelayMs(attempt, retryAfter, options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS), undefined, {
        signal,
      });
    } catch {
      throw fail("cancelled");
    }
  }
}

interface Exchanged {
  status: number;
  ok: boolean;
  statusText: string;
  header(name: string): string | null;
  text: string;
}

/**
 * One request and its whole answer, through node:http(s) rather than fetch: fetch's HTTP parser is
 * WebAssembly, which cannot be instantiated under an address-space limit (`ulimit -v`); Node 20
 * instantiates it as soon as any of fetch's classes (Headers, Response, FormData) is first used,
 * and the failure ends the process outside any catch. Network errors are Node's own (their
 * `code`: ECONNREFUSED, ...).
 */
function exchange(url: string, method: string, headers: Record<string, string>, body: Buffer | undefined, signal: AbortSignal): Promise<Exchanged> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : target.protocol === "http:" ? httpRequest : undefined;
  if (!send) return Promise.reject(new Error(`unsupported protocol ${target.protocol}`));
  const plain: Record<string, string> = { ...headers };
  if (body !== undefined) plain["content-length"] = String(body.length);
  return new Promise<Exchanged>((resolve, reject) => {
    const req = send(target, { method, headers: plain, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("aborted", () => reject(new Error("the connection closed before the whole answer came")));
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        const all: IncomingHttpHeaders = res.headers;
        resolve({
          status,
          ok: status >= 200 && status < 300,
          statusText: res.statusMessage ?? "",
          header: (name) => {
            const value = all[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
          },
          text: Buffer.concat(chunks).toString("utf8"),
        });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * A 429 that no wait mends: OpenAI's `insufficient_quota` (the account's credit or monthly budget
 * is spent) fails at once, as the provider asks.
 */
function quotaSpent(text: string): boolean {
  try {
    const body: unknown = JSON.parse(text);
    return field(body, "error", "code") === "insufficient_quota" || field(body, "error", "type") === "insufficient_quota";
  } catch {
    return false;
  }
}

/** A request that may or may not have reached the server: it timed out, or the connection was lost. */
export class UnansweredError extends GeneratorError {
  override name = "UnansweredError";
}

/**
 * How long to wait before retry number `attempt + 1`: the server's Retry-After (seconds or an HTTP
 * date, capped at 60 s) when it sent one, else exponential backoff from `baseMs` (capped at 30 s)
 * with jitter so that parallel pairs do not retry in lockstep.
 */
export function retryDelayMs(attempt: number, retryAfterText: string | null, baseMs: number, now = Date.now()): number {
  const asked = retryAfter(retryAfterText, now);
  if (asked !== undefined) return Math.min(asked, MAX_RETRY_AFTER_MS);
  const ceiling = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** attempt);
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}

function parseJson(text: string, fail: (reason: string) => GeneratorError, secrets: string[]): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw fail(`the response is not JSON: ${shownText(text.trim() || "(empty body)", secrets)}`);
  }
}

/** The provider's own explanation: `error.message` of a JSON error body, else the body itself. */
function providerMessage(text: string, statusText: string, secrets: string[]): string {
  let message: unknown;
  try {
    const body: unknown = JSON.parse(text);
    message = field(body, "error", "message") ?? field(body, "error") ?? field(body, "message");
  } catch {
    // not JSON: show the text
  }
  const shown = typeof message === "string" ? message : text.replace(/\s+/g, " ").trim();
  return shownText(shown || statusText || "(empty body)", secrets);
}

/**
 * Text a provider sent, as a message may show it: secrets replaced first, then cut to length, so
 * that no secret straddling the cut leaves a part of itself behind.
 */
export function shownText(text: string, secrets: string[]): string {
  return truncate(redact(text, secrets));
}

/** Failures that happen before a request reaches the server: no connection was ever made. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

function neverSent(error: unknown): boolean {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return NOT_SENT.has((cause as NodeJS.ErrnoException | undefined)?.code ?? "");
}

/** A network failure's reason: Node's error, or the `cause` of one that wraps it. */
function networkReason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code && !cause.message.includes(code) ? `${code} ${cause.message}` : cause.message;
  }
  return String(cause);
}

function truncate(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
}

function redact(text: string, secrets: string[]): string {
  let out = text;
  // Very short values (e.g. "1") would blank out unrelated text and are no secret anyway.
  for (const secret of secrets) if (secret.length >= 4) out = out.replaceAll(secret, "***");
  return out;
}

/** The value at `path` inside parsed JSON, or undefined when any step is missing. */
export function field(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}
