/**
 * The `openai` generator: one user message to any OpenAI-compatible chat-completions endpoint
 * (OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio, OpenRouter...).
 */
import { GeneratorError, type Generator, type GenerateRequest, type GenerateResult } from "../model/ports.js";
import type { TokenUsage } from "../model/records.js";
import {
  configNumber,
  configString,
  field,
  requestCost,
  sendCall,
  sharedBeginning,
  readProviderSettings,
  requireModel,
  shownText,
  type ProviderCall,
} from "./http.js";

/** Where the key is read from when generator_config.api_key_env names no variable. */
export const OPENAI_KEY_VARIABLE = "OPENAI_API_KEY";

/**
 * The chat-completions call a request makes: where it goes, its headers and its body. The batch
 * API (./batch.ts) sends the same body as one line of its input file. OpenAI caches a prompt's
 * beginning by itself: no marker is sent.
 */
export function openaiCall(request: GenerateRequest): ProviderCall {
  const model = requireModel("openai", request);
  const settings = readProviderSettings("openai", request, { apiKeyEnv: OPENAI_KEY_VARIABLE });
  const temperature = configNumber("openai", request.config, "temperature", { min: 0 });
  const maxTokens = configNumber("openai", request.config, "max_tokens", { min: 1, integer: true });
  // Azure names the API version in the query and takes the key in its own header.
  const apiVersion = configString("openai", request.config, "api_version");

  const headers: Record<string, string> = {};
  if (settings.apiKey !== undefined) {
    if (apiVersion !== undefined) headers["api-key"] = settings.apiKey;
    else headers.authorization = `Bearer ${settings.apiKey}`;
  }
  Object.assign(headers, settings.headers);

  let url = `${settings.baseUrl}/chat/completions`;
  if (apiVersion !== undefined) url += `?api-version=${encodeURIComponent(apiVersion)}`;
  const body = {
    model,
    messages: [{ role: "user", content: request.prompt }],
    ...(temperature !== undefined && { temperature }),
    ...(maxTokens !== undefined && { max_tokens: maxTokens }),
  };
  return {
    provider: "openai",
    settings,
    url,
    headers,
    body,
    asked: body,
    apiVersion,
    model,
    cost: requestCost(request.prompt, model, maxTokens),
    shared: sharedBeginning(request.prompt, request.cacheablePrefix, model),
    secrets: [settings.apiKey ?? "", ...Object.values(settings.headers)],
    authHint: settings.apiKey === undefined ? `no API key sent: ${settings.apiKeyEnv} is not set` : undefined,
  };
}

export const openaiGenerator: Generator = async (request) => {
  const call = openaiCall(request);
  const data = await sendCall(call, request.signal, request.pacing);
  return openaiResult(data, call.secrets);
};

/** The artifact and usage of a chat completion, as the synchronous endpoint and a batch's output file give it. */
export function openaiResult(data: unknown, secrets: string[]): GenerateResult {
  const content = field(data, "choices", 0, "message", "content");
  if (typeof content !== "string") {
    const reason = field(data, "choices", 0, "finish_reason");
    const why = typeof reason === "string" ? ` (finish_reason: ${shownText(reason, secrets)})` : "";
    throw new GeneratorError(`openai: the response has no message content${why}`);
  }
  const result: GenerateResult = { content };
  const input = field(data, "usage", "prompt_tokens");
  const output = field(data, "usage", "completion_tokens");
  if (typeof input === "number" && typeof output === "number") {
    const tokens: TokenUsage = { input, output };
    // Part of prompt_tokens, served by OpenAI's prompt cache.
    const cached = field(data, "usage", "prompt_tokens_details", "cached_tokens");
    if (typeof cached === "number" && cached > 0) tokens.cacheRead = Math.min(cached, input);
    result.tokens = tokens;
  }
  return result;
}
