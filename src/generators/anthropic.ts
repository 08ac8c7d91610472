/** The `anthropic` generator: one user message to the Anthropic Messages API. */
import { GeneratorError, type Generator, type GenerateResult } from "../model/ports.js";
import { configNumber, field, postJson, readProviderSettings, requireModel, shownText } from "./http.js";

const DEFAULT_BASE_URL = "https://api.anthropic.com";
/** The Messages API requires max_tokens; this is enough for most artifacts. */
const DEFAULT_MAX_TOKENS = 4096;

/** Where the key is read from when generator_config.api_key_env names no variable. */
export const ANTHROPIC_KEY_VARIABLE = "ANTHROPIC_API_KEY";

export const anthropicGenerator: Generator = async (request) => {
  const model = requireModel("anthropic", request);
  const settings = readProviderSettings("anthropic", request, {
    baseUrl: DEFAULT_BASE_URL,
    apiKeyEnv: ANTHROPIC_KEY_VARIABLE,
  });
  const temperature = configNumber("anthropic", request.config, "temperature", { min: 0 });
  const maxTokens = configNumber("anthropic", request.config, "max_tokens", { min: 1, integer: true }) ?? DEFAULT_MAX_TOKENS;

  const headers: Record<string, string> = { "anthropic-version": "2023-06-01" };
  if (settings.apiKey !== undefined) headers["x-api-key"] = settings.apiKey;
  Object.assign(headers, settings.headers);

  const secrets = [settings.apiKey ?? "", ...Object.values(settings.headers)];
  const data = await postJson({
    provider: "anthropic",
    url: `${settings.baseUrl}/v1/messages`,
    headers,
    body: {
      model,
      max_tokens: maxTokens,
      messages: [{ role: "user", content: request.prompt }],
      ...(temperature !== undefined && { temperature }),
    },
    timeoutSeconds: settings.timeoutSeconds,
    retries: settings.retries,
    signal: request.signal,
    secrets,
    baseDelayMs: settings.baseDelayMs,
    authHint: settings.apiKey === undefined ? `no API key sent: ${settings.apiKeyEnv} is not set` : undefined,
  });

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
  if (typeof input === "number" && typeof output === "number") result.tokens = { input, output };
  return result;
};
