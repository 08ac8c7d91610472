/**
 * A model service on loopback that speaks both providers' synchronous APIs as documented: OpenAI's
 * chat completions (`POST {base}/chat/completions`, `Authorization: Bearer`) and Anthropic's
 * Messages (`POST {base}/v1/messages`, `x-api-key` and `anthropic-version`). It answers with what
 * `answer` makes of the prompt, reports usage in each provider's fields (prompt cache included, see
 * promptCache.ts), refuses a wrong key with the provider's 401 body, and keeps every request it
 * received. A child process (the installed CLI, the bundled action) reaches it through `base_url`.
 * With `rateLimits` it enforces a provider's per-minute buckets (./rateLimits.ts): each request
 * counted as it arrives (its prompt at four characters a token, and its max_tokens), refused with
 * 429 and a retry time when over, every answer carrying the provider's headers; and it answers
 * after `latencyMs`.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { PromptCache, words, type CacheUsage, type Content } from "./promptCache.js";
import { RateBuckets, type ProviderLimits } from "./rateLimits.js";

export { words };

export interface ModelRequest {
  provider: "openai" | "anthropic";
  path: string;
  headers: IncomingHttpHeaders;
  body: { model: string; messages: { role: string; content: Content }[]; max_tokens?: number; temperature?: number };
  /** The text of the one user message pairflow sends. */
  prompt: string;
}

export interface ModelService {
  /** `base_url` for the openai generator. */
  openaiUrl: string;
  /** `base_url` for the anthropic generator. */
  anthropicUrl: string;
  requests: ModelRequest[];
  /** With rateLimits: the requests counted and those refused (429). */
  rate?: RateBuckets["counts"];
  /** Requests being answered now, and the most there were at once. */
  inFlight: { now: number; most: number };
  close(): Promise<void>;
}

export async function startModelService(options: {
  key: string;
  answer: (request: ModelRequest) => string;
  /** The providers' prompt caches; default on, as theirs are. */
  caching?: boolean;
  /** Per-minute buckets the service enforces (the headers each provider sends are set apart, here for both). */
  rateLimits?: Omit<ProviderLimits, "headers"> & { headers: "provider" | "none" };
  /** How long each answer takes, in milliseconds; default: at once. */
  latencyMs?: number;
}): Promise<ModelService> {
  const requests: ModelRequest[] = [];
  const cache = new PromptCache({ enabled: options.caching ?? true });
  // Each provider its own buckets, answering with its own headers.
  const limits = options.rateLimits;
  const buckets = limits && {
    openai: new RateBuckets({ ...limits, headers: limits.headers === "none" ? "none" : "openai" }, Date.now),
    anthropic: new RateBuckets({ ...limits, headers: limits.headers === "none" ? "none" : "anthropic" }, Date.now),
  };
  const counts = { accepted: 0, refused: 0 };
  const inFlight = { now: 0, most: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let rateHeaders: Record<string, string> = {};
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json", ...rateHeaders });
        res.end(JSON.stringify(body));
      };
      const url = new URL(req.url!, "http://loopback");
      const provider = url.pathname === "/openai/chat/completions" ? "openai" : url.pathname === "/anthropic/v1/messages" ? "anthropic" : undefined;
      if (req.method !== "POST" || provider === undefined) return send(404, { error: { message: `no route ${req.method} ${url.pathname}` } });
      const authorized =
        provider === "openai"
          ? req.headers.authorization === `Bearer ${options.key}`
          : req.headers["x-api-key"] === options.key && typeof req.headers["anthropic-version"] === "string";
      if (!authorized) {
        return provider === "openai"
          ? send(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } })
          : send(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
      }
      let body: ModelRequest["body"];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return send(400, { error: { message: "body is not JSON" } });
      }
      const prompt = body.messages?.map((m) => PromptCache.text(m.content)).join("\n") ?? "";
      if (buckets) {
        const charged = buckets[provider].charge(Math.ceil(prompt.length / 4) + (body.max_tokens ?? 0));
        rateHeaders = charged.headers;
        if (charged.refused) {
          counts.refused++;
          return provider === "openai"
            ? send(429, { error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } })
            : send(429, { type: "error", error: { type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit" } });
        }
        counts.accepted++;
      }
      const request: ModelRequest = { provider, path: url.pathname, headers: req.headers, body, prompt };
      requests.push(request);
      const text = options.answer(request);
      // What the cache holds as the request arrives; what it writes is there once its answer begins.
      const cached = provider === "openai" ? cache.openaiAt(prompt) : cache.anthropicAt(body.messages?.[0]?.content ?? "");
      const answer = () => {
        cached.commit();
        if (provider === "openai") {
          send(200, {
            id: `chatcmpl-${requests.length}`,
            object: "chat.completion",
            created: 1_790_000_000,
            model: body.model,
            choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
            usage: { ...(cached.usage as CacheUsage["openai"]), completion_tokens: words(text), total_tokens: words(prompt) + words(text) },
          });
        } else {
          send(200, {
            id: `msg_${requests.length}`,
            type: "message",
            role: "assistant",
            model: body.model,
            content: [{ type: "text", text }],
            stop_reason: "end_turn",
            usage: { ...(cached.usage as CacheUsage["anthropic"]), output_tokens: words(text) },
          });
        }
      };
      inFlight.now++;
      inFlight.most = Math.max(inFlight.most, inFlight.now);
      const answered = () => {
        inFlight.now--;
        answer();
      };
      if (options.latencyMs) setTimeout(answered, options.latencyMs);
      else answered();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    openaiUrl: `${base}/openai`,
    anthropicUrl: `${base}/anthropic`,
    requests,
    ...(buckets ? { rate: counts } : {}),
    inFlight,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
