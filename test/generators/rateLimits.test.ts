/**
 * The provider generators at a provider's rate limit, against loopback services: a refusal for the
 * limit is waited for and never one of the pair's attempts, a spent quota fails at once, a wait
 * ends only at the longest wait allowed, and calls that share a budget go no faster than it allows.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicGenerator } from "../../src/generators/anthropic.js";
import { openaiGenerator } from "../../src/generators/openai.js";
import { RateLimitWaitError, type GenerateRequest, type Generator } from "../../src/model/ports.js";
import { systemClock } from "../../src/schedule/clock.js";
import { Pacer } from "../../src/schedule/pacer.js";
import { startModelService, type ModelService } from "../helpers/providers.js";
import { failure } from "./helpers.js";

const KEY = "sk-test-rate-0123456789";
const closing: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** A server that answers the n-th request with replies[n] (the last one repeats); how many it received. */
async function serve(...replies: ((res: ServerResponse) => void)[]): Promise<{ url: string; received: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => replies[Math.min(received++, replies.length - 1)]!(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closing.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received: () => received };
}

const reply =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (res: ServerResponse) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

const OK = reply(200, {
  choices: [{ message: { role: "assistant", content: "done" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 5, completion_tokens: 1 },
});
const LIMITED = reply(429, { error: { message: "Rate limit reached for requests", code: "rate_limit_exceeded" } }, { "retry-after-ms": "5" });

function request(config: Record<string, unknown>, pacing?: Pacer, prompt = "Write a test."): GenerateRequest {
  return {
    pairId: "g_test",
    attempt: 1,
    model: "test-model",
    prompt,
    config,
    cwd: process.cwd(),
    env: { PAIRFLOW_HTTP_BACKOFF_MS: "1", OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY },
    signal: new AbortController().signal,
    ...(pacing ? { pacing } : {}),
  };
}

describe("a provider's rate limit", () => {
  it("is waited for, as often as the provider refuses, and never counts as one of the pair's attempts", async () => {
    const server = await serve(LIMITED, LIMITED, LIMITED, LIMITED, LIMITED, LIMITED, OK);
    const pacer = new Pacer({ clock: systemClock });
    const result = await openaiGenerator(request({ base_url: server.url, retries: 0 }, pacer));
    expect(result.content).toBe("done");
    expect(server.received()).toBe(7);
    expect(pacer.summary().refused).toBe(6);
  });

  it("a spent quota is no rate limit: it fails at once with the provider's message", async () => {
    const server = await serve(reply(429, { error: { message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" } }));
    const error = await failure(openaiGenerator(request({ base_url: server.url }, new Pacer({ clock: systemClock }))));
    expect(error.message).toContain("You exceeded your current quota");
    expect(server.received()).toBe(1);
  });

  it("ends a wait at the longest wait allowed with RateLimitWaitError, which names neither key nor secret header", async () => {
    const server = await serve(reply(429, { error: { message: "Rate limit reached" } }, { "retry-after": "60" }));
    const pacer = new Pacer({ clock: systemClock, maxWaitMs: 100 });
    const error = await failure(anthropicGenerator(request({ base_url: server.url, headers: { "x-org-token": "org-secret-42" } }, pacer)));
    expect(error).toBeInstanceOf(RateLimitWaitError);
    expect(error.message).toMatch(/^anthropic: waited 0\.1s for 127\.0\.0\.1:\d+'s rate limit/);
    expect(error.message).not.toContain(KEY);
    expect(server.received()).toBe(1);
  });

  for (const [name, generator, base] of [
    ["openai", openaiGenerator, (s: ModelService) => s.openaiUrl],
    ["anthropic", anthropicGenerator, (s: ModelService) => s.anthropicUrl],
  ] as [string, Generator, (s: ModelService) => string][]) {
    it(`${name}: calls that share a budget go as its headers allow, each answered, none refused once an answer told the limit`, async () => {
      const service = await startModelService({
        key: KEY,
        answer: () => "done",
        // 3,000 tokens in a "minute" of 2 s: ten calls at once, then one every 200 ms.
        rateLimits: { requestsPerMinute: 1_000, tokensPerMinute: 3_000, minuteMs: 2_000, headers: "provider" },
        latencyMs: 20,
      });
      closing.push(() => service.close());
      const pacer = new Pacer({ clock: systemClock, concurrency: { cap: 8, start: 1 } });
      const prompt = "x".repeat(372); // 93 tokens + 7 for the message, + max_tokens 200: 300 a call
      const results = await Promise.all(Array.from({ length: 25 }, () => generator(request({ base_url: base(service), max_tokens: 200 }, pacer, prompt))));
      expect(results.every((r) => r.content === "done")).toBe(true);
      expect(service.rate).toEqual({ accepted: 25, refused: 0 });
      expect(pacer.summary().held).toBeGreaterThan(0);
    });
  }
});
