/** The `anthropic` generator: one user message to the Anthropic Messages API. */
import { GeneratorError, type Generator, type GenerateRequest, type GenerateResult } from "../model/ports.js";
import type { TokenUsage } from "../model/records.js";
import { configNumber, field, requestCost, sendCall, sharedBeginning, readProviderSettings, requireModel, shownText, type ProviderCall } from "./http.js";

/** The Messages API requires max_tokens; this is enough for most artifacts. */
const DEFAULT_MAX_TOKENS = 4096;

/** Where the key is read from when generator_config.api_key_env names no variable. */
export const ANTHROPIC_KEY_VARIABLE = "ANTHROPIC_API_KEY";

/**
 * The Messages call a request makes: where it goes, its headers and its body. Message Batches
 * (./batch.ts) send the same body as a request's `params`. The part of the prompt other requests
 * of the run share comes first in every prompt pairflow renders; it is marked for Anthropic's
 * prompt cache by sending the prompt as two text blocks, the first with cache_control: the model
 * reads the same text.
 */
export function anthropicCall(request: GenerateRequest): ProviderCall {
  const model = requireModel("anthropic", request);
  const settings = readProviderSettings("anthropic", request, { apiKeyEnv: ANTHROPIC_KEY_VARIABLE });
  const temperature = configNumber("anthropic", request.config, "temperature", { min: 0 });
  const maxTokens = configNumber("anthropic", request.config, "max_tokens", { min: 1, integer: true }) ?? DEFAULT_MAX_TOKENS;

  const headers: Record<string, string> = { "anthropic-version": "2023-06-01" };
  if (settings.apiKey !== undefined) headers["x-api-key"] = settings.apiKey;
  Object.assign(headers, settings.headers);

  const body = (content: unknown) => ({
    model,
    max_tokens: maxTokens,
    messages: [{ role: "user", content }],
    ...(temperature !== undefined && { temperature }),
  });
  return {
    provider: "anthropic",
    settings,
    url: `${settings.baseUrl}/v1/messages`,
    headers,
    body: body(cacheableContent(request.prompt, request.cacheablePrefix)),
    asked: body(request.prompt),
    model,
    cost: requestCost(request.prompt, model, maxTokens),
    shared: sharedBeginning(request.prompt, request.cacheablePrefix, model),
    secrets: [settings.apiKey ?? "", ...Object.values(settings.headers)],
    authHint: settings.apiKey === undefined ? `no API key sent: ${settings.apiKeyEnv} is not set` : undefined,
  };
}

/** The prompt as the user message's content: plain text, or two text blocks whose first is cacheable. */
export function cacheableContent(prompt: string, prefix: number | undefined): unknown {
  if (prefix === undefined || prefix <= 0 || prefix > prompt.length) return prompt;
  const head = prompt.slice(0, prefix);
  const tail = prompt.slice(prefix);
  // A text block must hold more than whitespace: such a tail rides with the head.
  if (tail.trim() === "") return [{ type: "text", text: prompt, cache_control: { type: "ephemeral" } }];
  if (head.trim() === "") return prompt;
  return [
    { type: "text", text: head, cache_control: { type: "ephemeral" } },
    { type: "text", text: tail },
  ];
}

export const anthropicGenerator: Generator = async (request) => {
  const call = anthropicCall(request);
  const data = await sendCall(call, request.signal, request.pacing);
  return anthropicResult(data, call.secrets);
};

/** The artifact and usage of a message, as the Messages API and a batch's results give it. */
export function anthropicResult(data: unknown, secrets: string[]): GenerateResult {
  const blocks = field(data, "content");
  const texts = Array.isArray(blocks) ? blocks.filter((b) => field(b, "type") === "text" && typeof field(b, "text") === "string") : [];
  if (texts.length === 0) {
    const reason = field(data, "stop_reason");
    const why = typeof reason === "string" ? ` (stop_reason: ${shownText(reason, secrets)})` : "";
    throw new GeneratorError(`anthropic: the response has no text content${why}`);
  }
  const result: GenerateResult = { content: texts.map((b) => field(b, "text") as string).join("") };
  const input = field(data, "usage", "input_tokens");
  const output = field(data, "usage", "output_tokens");
  if (typeof input === "number" && typeof output === "number") {
    // input_tokens counts only what came after the last cache breakpoint: what the cache served
    // and what was written to it are counted apart, and all of it was input.
    const read = count(field(data, "usage", "cache_read_input_tokens"));
    const written = count(field(data, "usage", "cache_creation_input_tokens"));
    const tokens: TokenUsage = { input: input + read + written, output };
    if (read > 0) tokens.cacheRead = read;
    if (written > 0) tokens.cacheWrite = written;
    result.tokens = tokens;
  }
  return result;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}
