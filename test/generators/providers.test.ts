/**
 * The openai and anthropic generators against a real local HTTP server (never the internet),
 * and the retry/backoff/timeout behaviour they share.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicGenerator } from "../../src/generators/anthropic.js";
import { retryDelayMs } from "../../src/generators/http.js";
import { openaiGenerator } from "../../src/generators/openai.js";
import type { GenerateRequest, Generator } from "../../src/model/ports.js";
import { failure } from "./helpers.js";

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  at: number;
}

type Reply = (res: ServerResponse, received: Received, index: number) => void;

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server on 127.0.0.1 that answers the n-th request with replies[n] (the last one repeats). */
async function serve(...replies: Reply[]): Promise<{ url: string; requests: Received[] }> {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      const received = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: JSON.parse(text) as unknown,
        at: Date.now(),
      };
      requests.push(received);
      const reply = replies[Math.min(requests.length - 1, replies.length - 1)]!;
      reply(res, received, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push({
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
}

const never: Reply = () => {
  // no answer: the client must time out
};

const OPENAI_OK = json(200, {
  choices: [{ message: { role: "assistant", content: "def test(): pass" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
});

const ANTHROPIC_OK = json(200, {
  content: [
    { type: "text", text: "Hello, " },
    { type: "tool_use", id: "x", name: "t", input: {} },
    { type: "text", text: "world" },
  ],
  stop_reason: "end_turn",
  usage: { input_tokens: 20, output_tokens: 7 },
});

function request(config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, signal?: AbortSignal): GenerateRequest {
  return {
    pairId: "g_test",
    attempt: 1,
    model: "test-model",
    prompt: "Write a test.",
    config,
    cwd: process.cwd(),
    env: { PAIRFLOW_HTTP_BACKOFF_MS: "1", ...env },
    signal: signal ?? new AbortController().signal,
  };
}

describe("openai generator", () => {
  const KEY = "sk-test-0123456789";

  it("posts the model and the prompt with a bearer key, and returns content and tokens", async () => {
    const server = await serve(OPENAI_OK);
    const config = { base_url: `${server.url}/v1/`, temperature: 0.2, max_tokens: 300, headers: { "X-Team": "qa" } };
    const result = await openaiGenerator(request(config, { OPENAI_API_KEY: KEY }));
    expect(result).toEqual({ content: "def test(): pass", tokens: { input: 12, output: 5 } });
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent!.method).toBe("POST");
    expect(sent!.url).toBe("/v1/chat/completions");
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.headers["content-type"]).toBe("application/json");
    expect(sent!.headers["x-team"]).toBe("qa");
    expect(sent!.body).toEqual({
      model: "test-model",
      messages: [{ role: "user", content: "Write a test." }],
      temperature: 0.2,
      max_tokens: 300,
    });
  });

  it("reports the cached part of the prompt tokens, and sends no cache marker (OpenAI caches by itself)", async () => {
    const server = await serve(
      json(200, {
        choices: [{ message: { role: "assistant", content: "x" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 3000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 2048 } },
      }),
    );
    const result = await openaiGenerator({ ...request({ base_url: server.url }, { OPENAI_API_KEY: KEY }), cacheablePrefix: 5 });
    expect(result.tokens).toEqual({ input: 3000, output: 5, cacheRead: 2048 });
    expect((server.requests[0]!.body as { messages: unknown[] }).messages).toEqual([{ role: "user", content: "Write a test." }]);
  });

  it("leaves out temperature and max_tokens when they are not set", async () => {
    const server = await serve(OPENAI_OK);
    await openaiGenerator(request({ base_url: server.url }, { OPENAI_API_KEY: KEY }));
    expect(server.requests[0]!.body).toEqual({
      model: "test-model",
      messages: [{ role: "user", content: "Write a test." }],
    });
  });

  it("reads the key from the variable api_key_env names", async () => {
    const server = await serve(OPENAI_OK);
    await openaiGenerator(request({ base_url: server.url, api_key_env: "MY_KEY" }, { MY_KEY: "mine-123" }));
    expect(server.requests[0]!.headers.authorization).toBe("Bearer mine-123");
  });

  it("sends no Authorization header to a custom endpoint when the key is not set", async () => {
    const server = await serve(OPENAI_OK);
    const result = await openaiGenerator(request({ base_url: server.url }));
    expect(result.content).toBe("def test(): pass");
    expect(server.requests[0]!.headers).not.toHaveProperty("authorization");
  });

  it("tells which variable to set when the key for api.openai.com is missing", async () => {
    const error = await failure(openaiGenerator(request({})));
    expect(error.message).toContain("OPENAI_API_KEY");
    const named = await failure(openaiGenerator(request({ api_key_env: "TEAM_OPENAI_KEY" })));
    expect(named.message).toContain("TEAM_OPENAI_KEY");
  });

  it("fails clearly when no model is set", async () => {
    const req = { ...request({ base_url: "http://127.0.0.1:9" }), model: null };
    const error = await failure(openaiGenerator(req));
    expect(error.message).toMatch(/model/);
  });

  it("speaks Azure when api_version is set: api-version query and api-key header", async () => {
    const server = await serve(OPENAI_OK);
    const config = { base_url: `${server.url}/openai/deployments/gpt4o`, api_version: "2024-06-01" };
    await openaiGenerator(request(config, { OPENAI_API_KEY: KEY }));
    const [sent] = server.requests;
    expect(sent!.url).toBe("/openai/deployments/gpt4o/chat/completions?api-version=2024-06-01");
    expect(sent!.headers["api-key"]).toBe(KEY);
    expect(sent!.headers).not.toHaveProperty("authorization");
  });

  it("fails on a response without message content", async () => {
    const server = await serve(json(200, { choices: [{ message: { content: null }, finish_reason: "content_filter" }] }));
    const error = await failure(openaiGenerator(request({ base_url: server.url })));
    expect(error.message).toContain("content_filter");
  });
});

describe("anthropic generator", () => {
  const KEY = "sk-ant-test-0123456789";

  it("posts to /v1/messages with its headers and returns the text blocks and tokens", async () => {
    const server = await serve(ANTHROPIC_OK);
    const req = request({ base_url: server.url, temperature: 0 }, { ANTHROPIC_API_KEY: KEY });
    const result = await anthropicGenerator(req);
    expect(result).toEqual({ content: "Hello, world", tokens: { input: 20, output: 7 } });
    const [sent] = server.requests;
    expect(sent!.url).toBe("/v1/messages");
    expect(sent!.headers["x-api-key"]).toBe(KEY);
    expect(sent!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent!.headers["content-type"]).toBe("application/json");
    expect(sent!.headers).not.toHaveProperty("authorization");
    expect(sent!.body).toEqual({
      model: "test-model",
      max_tokens: 4096,
      messages: [{ role: "user", content: "Write a test." }],
      temperature: 0,
    });
  });

  it("marks the part of the prompt other requests share for the prompt cache, the same text cut in two, and counts cache reads and writes as input", async () => {
    const server = await serve(
      json(200, {
        content: [{ type: "text", text: "ok" }],
        usage: { input_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 2000, output_tokens: 3 },
      }),
    );
    const prompt = "# Context\n\nshared\n\n# Task\n\nmine";
    const cut = prompt.indexOf("\n\n# Task");
    const result = await anthropicGenerator({ ...request({ base_url: server.url }, { ANTHROPIC_API_KEY: KEY }), prompt, cacheablePrefix: cut });
    const content = (server.requests[0]!.body as { messages: { content: { text: string; cache_control?: unknown }[] }[] }).messages[0]!.content;
    expect(content).toEqual([
      { type: "text", text: "# Context\n\nshared", cache_control: { type: "ephemeral" } },
      { type: "text", text: "\n\n# Task\n\nmine" },
    ]);
    expect(content.map((b) => b.text).join("")).toBe(prompt);
    expect(result.tokens).toEqual({ input: 2005, output: 3, cacheRead: 2000 });
    // Nothing shared: the plain string, as before.
    await anthropicGenerator({ ...request({ base_url: server.url }, { ANTHROPIC_API_KEY: KEY }), prompt });
    expect((server.requests[1]!.body as { messages: { content: unknown }[] }).messages[0]!.content).toBe(prompt);
  });

  it("reports what a cache write took", async () => {
    const server = await serve(
      json(200, { content: [{ type: "text", text: "ok" }], usage: { input_tokens: 5, cache_creation_input_tokens: 1500, output_tokens: 3 } }),
    );
    const result = await anthropicGenerator(request({ base_url: server.url }, { ANTHROPIC_API_KEY: KEY }));
    expect(result.tokens).toEqual({ input: 1505, output: 3, cacheWrite: 1500 });
  });

  it("sends max_tokens from the config", async () => {
    const server = await serve(ANTHROPIC_OK);
    await anthropicGenerator(request({ base_url: server.url, max_tokens: 1000 }, { ANTHROPIC_API_KEY: KEY }));
    expect(server.requests[0]!.body).toMatchObject({ max_tokens: 1000 });
    expect(server.requests[0]!.body).not.toHaveProperty("temperature");
  });

  it("tells which variable to set when the key is missing", async () => {
    const error = await failure(anthropicGenerator(request({})));
    expect(error.message).toContain("ANTHROPIC_API_KEY");
  });

  it("retries an overloaded API (529) and then succeeds", async () => {
    const overloaded = json(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    const server = await serve(overloaded, ANTHROPIC_OK);
    const result = await anthropicGenerator(request({ base_url: server.url }, { ANTHROPIC_API_KEY: KEY }));
    expect(result.content).toBe("Hello, world");
    expect(server.requests).toHaveLength(2);
  });

  it("reports the provider's message on a 400 without the key", async () => {
    const server = await serve((res, received) =>
      json(400, {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: `max_tokens too large (key ${String(received.headers["x-api-key"])})`,
        },
      })(res, received, 0),
    );
    const error = await failure(anthropicGenerator(request({ base_url: server.url }, { ANTHROPIC_API_KEY: KEY })));
    expect(error.message).toContain("400");
    expect(error.message).toContain("max_tokens too large");
    expect(error.message).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });
});

describe("HTTP retries, backoff and timeouts", () => {
  const KEY = "sk-test-0123456789";

  for (const [name, generator] of [
    ["openai", openaiGenerator],
    ["anthropic", anthropicGenerator],
  ] as [string, Generator][]) {
    it(`${name}: waits as long as Retry-After says after a 429, then succeeds`, async () => {
      const ok = name === "openai" ? OPENAI_OK : ANTHROPIC_OK;
      const server = await serve(json(429, { error: { message: "Rate limit reached" } }, { "retry-after": "1" }), ok);
      await generator(request({ base_url: server.url }, { OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY }));
      expect(server.requests).toHaveLength(2);
      // The backoff is 1 ms in these tests, so only Retry-After explains the wait.
      expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950);
    });
  }

  it("retries a 500 and then succeeds", async () => {
    const server = await serve(json(500, { error: { message: "internal" } }), OPENAI_OK);
    const result = await openaiGenerator(request({ base_url: server.url }));
    expect(result.content).toBe("def test(): pass");
    expect(server.requests).toHaveLength(2);
  });

  it("gives up after `retries` retries and reports the last status", async () => {
    const server = await serve(json(503, { error: { message: "upstream unavailable" } }));
    const error = await failure(openaiGenerator(request({ base_url: server.url, retries: 2 })));
    expect(server.requests).toHaveLength(3);
    expect(error.message).toContain("503");
    expect(error.message).toContain("upstream unavailable");
    expect(error.message).toContain("3 attempts");
  });

  it("does not retry a 400, and shows the provider's message without the key or header values", async () => {
    // A provider that echoes credentials back must not get them into pairflow's message.
    const server = await serve((res, received) =>
      json(400, {
        error: {
          message: `Invalid model 'test-model' ` + `(${String(received.headers.authorization)}, org ${String(received.headers["x-org"])})`,
          type: "invalid_request_error",
        },
      })(res, received, 0),
    );
    const config = { base_url: server.url, headers: { "X-Org": "org-secret-42" } };
    const error = await failure(openaiGenerator(request(config, { OPENAI_API_KEY: KEY })));
    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain("400");
    expect(error.message).toContain("Invalid model 'test-model'");
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain("org-secret-42");
  });

  it("says no key was sent when a keyless request is refused", async () => {
    const server = await serve(json(401, { error: { message: "Missing bearer token" } }));
    const error = await failure(openaiGenerator(request({ base_url: server.url, api_key_env: "ROUTER_KEY" })));
    expect(error.message).toContain("Missing bearer token");
    expect(error.message).toContain("ROUTER_KEY is not set");
  });

  it("truncates a long non-JSON error body", async () => {
    const server = await serve((res) => {
      res.writeHead(404, { "content-type": "text/html" });
      res.end(`<html>${"x".repeat(5000)}</html>`);
    });
    const error = await failure(openaiGenerator(request({ base_url: server.url })));
    expect(error.message).toContain("404");
    expect(error.message.length).toBeLessThan(700);
  });

  it("times out a request that gets no answer, retrying it", async () => {
    const server = await serve(never);
    // A request that never times out hangs until the test's own timeout.
    const error = await failure(openaiGenerator(request({ base_url: server.url, timeout: 0.2, retries: 1 })));
    expect(error.message).toContain("timed out after 0.2s (gave up after 2 attempts)");
    // On a busy machine a request may time out before the server has read all of it.
    expect(server.requests.length).toBeLessThanOrEqual(2);
  });

  it("retries a network error and reports it when it persists", async () => {
    const server = await serve(OPENAI_OK);
    servers.splice(0).forEach((s) => s.close()); // nothing listens on the port now
    const error = await failure(openaiGenerator(request({ base_url: server.url, retries: 1 })));
    expect(error.message).toContain("could not reach 127.0.0.1");
    expect(error.message).toContain("ECONNREFUSED");
    expect(error.message).toContain("2 attempts");
  });

  it("stops at once, without retrying, when the run is cancelled", async () => {
    // The run is cancelled while the server holds the request, which it never answers: a generator
    // that did not stop would wait for its 120 s timeout, past the test's own.
    const controller = new AbortController();
    const server = await serve(() => controller.abort());
    const error = await failure(openaiGenerator(request({ base_url: server.url, retries: 3 }, {}, controller.signal)));
    expect(error.message).toContain("cancelled");
    expect(server.requests).toHaveLength(1);
  });

  it("rejects settings of the wrong type", async () => {
    const base_url = "http://127.0.0.1:9";
    const badRetries = await failure(openaiGenerator(request({ base_url, retries: -1 })));
    expect(badRetries.message).toContain("generator_config.retries must be an integer >= 0");
    const badTimeout = await failure(openaiGenerator(request({ base_url, timeout: "60" })));
    expect(badTimeout.message).toContain("generator_config.timeout must be a number > 0");
  });
});

describe("malformed answers", () => {
  const truncated: Reply = (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"choices": [{"message": {"content": "def te');
  };

  it.each([
    ["openai", openaiGenerator],
    ["anthropic", anthropicGenerator],
  ] as [string, Generator][])("%s: a 200 whose body is cut-off JSON is an error that shows the body", async (_name, generate) => {
    const server = await serve(truncated);
    const error = await failure(generate(request({ base_url: server.url }, { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" })));
    expect(error.message).toContain("not JSON");
    expect(error.message).toContain('{"choices": [{"message": {"content": "def te');
  });

  it("anthropic: a 200 with no content blocks is an error, not an empty artifact", async () => {
    const server = await serve(json(200, { type: "message", stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 0 } }));
    await failure(anthropicGenerator(request({ base_url: server.url }, { ANTHROPIC_API_KEY: "k" })));
  });
});

describe("retryDelayMs", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");

  it("honours Retry-After in seconds or as an HTTP date, capped at 60 s", () => {
    expect(retryDelayMs(0, "3", 1000, now)).toBe(3000);
    expect(retryDelayMs(0, new Date(now + 5000).toUTCString(), 1000, now)).toBe(5000);
    expect(retryDelayMs(0, "3600", 1000, now)).toBe(60_000);
    expect(retryDelayMs(0, new Date(now - 5000).toUTCString(), 1000, now)).toBe(0);
  });

  it("backs off exponentially with jitter, capped at 30 s, when there is no usable Retry-After", () => {
    for (let i = 0; i < 50; i++) {
      const first = retryDelayMs(0, null, 1000, now);
      expect(first).toBeGreaterThanOrEqual(500);
      expect(first).toBeLessThanOrEqual(1000);
      const third = retryDelayMs(2, "soon", 1000, now);
      expect(third).toBeGreaterThanOrEqual(2000);
      expect(third).toBeLessThanOrEqual(4000);
      expect(retryDelayMs(20, null, 1000, now)).toBeLessThanOrEqual(30_000);
    }
    const spread = new Set(Array.from({ length: 20 }, () => retryDelayMs(3, null, 1000, now)));
    expect(spread.size).toBeGreaterThan(1);
  });
});

describe("what a provider echoes never shows a key", () => {
  const KEY = "sk-echo-0123456789abcdef";
  // A key placed at every offset around the 500-character cut of a message: redaction comes first.
  for (const offset of [480, 490, 495, 498, 500, 505]) {
    it(`hides a key the error body echoes ${offset} characters in, across the cut of a long message`, async () => {
      const server = await serve(json(400, { error: { message: "x".repeat(offset) + KEY + "y".repeat(200) } }));
      const error = await failure(openaiGenerator(request({ base_url: server.url }, { OPENAI_API_KEY: KEY })));
      expect(error.message).toContain("400");
      for (let n = 6; n <= KEY.length; n++) expect(error.message).not.toContain(KEY.slice(0, n));
    });
  }

  it("hides a key echoed as the reason a response has no content", async () => {
    const openai = await serve(json(200, { choices: [{ message: {}, finish_reason: `bad ${KEY}` }] }));
    const a = await failure(openaiGenerator(request({ base_url: openai.url }, { OPENAI_API_KEY: KEY })));
    expect(a.message).toContain("finish_reason: bad ***");
    const anthropic = await serve(json(200, { content: [], stop_reason: `bad ${KEY}` }));
    const b = await failure(anthropicGenerator(request({ base_url: anthropic.url }, { ANTHROPIC_API_KEY: KEY })));
    expect(b.message).toContain("stop_reason: bad ***");
  });
});

describe("base_url, written with or without the API's /v1", () => {
  /** A host laid out as the provider's own (under `prefix`, as behind a gateway): the documented path answers, any other is 404. */
  const host =
    (path: string, ok: Reply): Reply =>
    (res, received, index) =>
      received.url === path ? ok(res, received, index) : json(404, { error: { message: `no route POST ${received.url}` } })(res, received, index);

  it.each(["", "/", "/v1", "/v1/"])("openai: the server's address%s reaches /v1/chat/completions", async (tail) => {
    const server = await serve(host("/v1/chat/completions", OPENAI_OK));
    const result = await openaiGenerator(request({ base_url: `${server.url}${tail}`, retries: 0 }, { OPENAI_API_KEY: "k" }));
    expect(result.content).toBe("def test(): pass");
  });

  it.each(["/api/v1", "/api/v1/", "/v1beta/openai"])("openai: a base_url with its own path (%s) is taken as written", async (path) => {
    const server = await serve(host(`${path.replace(/\/$/, "")}/chat/completions`, OPENAI_OK));
    const result = await openaiGenerator(request({ base_url: `${server.url}${path}`, retries: 0 }, { OPENAI_API_KEY: "k" }));
    expect(result.content).toBe("def test(): pass");
  });

  it.each(["", "/", "/v1", "/v1/"])("anthropic: the server's address%s reaches /v1/messages, never /v1/v1/messages", async (tail) => {
    const server = await serve(host("/v1/messages", ANTHROPIC_OK));
    const result = await anthropicGenerator(request({ base_url: `${server.url}${tail}`, retries: 0 }, { ANTHROPIC_API_KEY: "k" }));
    expect(result.content).toBe("Hello, world");
  });

  it.each(["/gateway", "/gateway/v1"])("anthropic: behind a gateway's path (%s)", async (path) => {
    const server = await serve(host("/gateway/v1/messages", ANTHROPIC_OK));
    const result = await anthropicGenerator(request({ base_url: `${server.url}${path}`, retries: 0 }, { ANTHROPIC_API_KEY: "k" }));
    expect(result.content).toBe("Hello, world");
  });

  it.each([
    ["openai", "https://api.openai.com", openaiGenerator, "OPENAI_API_KEY"],
    ["anthropic", "https://api.anthropic.com/v1", anthropicGenerator, "ANTHROPIC_API_KEY"],
  ] as const)("%s: the provider's own address in the other form still needs its key", async (_, url, generator, variable) => {
    const error = await failure(generator(request({ base_url: url })));
    expect(error.message).toContain(`set the ${variable} environment variable`);
  });
});
