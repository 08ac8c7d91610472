/**
 * A model service on loopback that speaks both providers' synchronous and batch APIs as their
 * documentation describes them, with their prompt caches (promptCache.ts):
 *
 * - OpenAI, under {url}/openai: POST /chat/completions; POST /files (multipart: purpose=batch and a
 *   JSONL file of {custom_id, method, url, body}); POST /batches {input_file_id, endpoint,
 *   completion_window, metadata}; GET /batches/{id} (validating, in_progress, finalizing, then
 *   completed, expired, cancelled; cancelling on the way) with request_counts {total, completed,
 *   failed}, output_file_id and error_file_id; GET /files/{id}/content; POST /batches/{id}/cancel;
 *   GET /batches?limit&after, newest first.
 * - Anthropic, under {url}/anthropic: POST /v1/messages; POST /v1/messages/batches {requests:
 *   [{custom_id, params}]}; GET /v1/messages/batches/{id} (in_progress, canceling, ended) with
 *   request_counts {processing, succeeded, errored, canceled, expired} and results_url; GET
 *   results_url (JSONL: custom_id and result {type: succeeded with message, errored with error,
 *   canceled, expired}); POST .../cancel; GET /v1/messages/batches?limit&after_id, newest first.
 *
 * A batch ends after `polls` status reads (0: at the first), answering its requests in order, so
 * the first of a shared beginning writes the prompt cache and the others read it. `outcome` makes
 * a request error or expire; `expire` makes the whole batch expire with what it had not done; a
 * cancelled batch ends at the next read, having done the first half of its requests. `onCreate`
 * runs before a batch's creation is answered (a test kills the client there), and `dropCreate`
 * creates a batch but never answers (the connection is lost). Every request answered, in any way,
 * is kept in `asked`; every request put in a batch, in `submitted`.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { PromptCache, words, type Content } from "./promptCache.js";

type Provider = "openai" | "anthropic";

export interface Asked {
  provider: Provider;
  /** sync, or the batch it was in. */
  via: string;
  model: string;
  prompt: string;
  /** Whether it marked a part of the prompt for the prompt cache (Anthropic's cache_control). */
  marked: boolean;
  customId?: string;
}

interface Line {
  customId: string;
  body: { model: string; messages: { role: string; content: Content }[]; max_tokens?: number };
}

interface Batch {
  provider: Provider;
  id: string;
  lines: Line[];
  created: number;
  metadata: Record<string, string>;
  /** Status reads so far. */
  reads: number;
  state: "in_progress" | "cancelling" | "ended";
  /** How it ended, and each request's outcome once ended. */
  end?: "completed" | "expired" | "cancelled";
  outcomes?: Map<string, { kind: "succeeded"; body: unknown } | { kind: "errored" | "expired" | "canceled"; message: string }>;
  outputFile?: string;
  errorFile?: string;
}

export interface BatchServiceOptions {
  key: string;
  answer(request: { provider: Provider; prompt: string; model: string }): string;
  /** Status reads a batch answers as not ended; default 0. */
  polls?: number;
  /** A request's fate in a batch other than success. */
  outcome?(request: { provider: Provider; prompt: string; customId: string }): "errored" | "expired" | undefined;
  /** Runs before a batch's creation is answered. */
  onCreate?(batch: { provider: Provider; id: string; requests: number }): Promise<void> | void;
  /** Whether a batch expires (its window passes) when it would end: it did the first half of its requests, the rest expired. */
  expire?(batch: { provider: Provider; id: string; requests: number }): boolean;
  /** Runs as each HTTP call arrives ("METHOD path"), before it is handled. */
  onCall?(call: string): Promise<void> | void;
  /** Whether a batch's creation goes unanswered (the connection lost after the batch was created). */
  dropCreate?(batch: { provider: Provider; id: string; requests: number }): boolean;
  caching?: boolean;
}

export interface BatchService {
  openaiUrl: string;
  anthropicUrl: string;
  asked: Asked[];
  /** Every request put in a batch, as its batch was created. */
  submitted: { provider: Provider; batch: string; customId: string; prompt: string }[];
  batches(provider?: Provider): { provider: Provider; id: string; requests: number; state: string; metadata: Record<string, string> }[];
  /** Status reads a batch answers as not ended, from now on. */
  setPolls(n: number): void;
  /** The HTTP calls received, as "METHOD path". */
  calls: string[];
  close(): Promise<void>;
}

export async function startBatchService(options: BatchServiceOptions): Promise<BatchService> {
  const cache = new PromptCache({ enabled: options.caching ?? true });
  const asked: Asked[] = [];
  const submitted: BatchService["submitted"] = [];
  const calls: string[] = [];
  const batches = new Map<string, Batch>();
  const files = new Map<string, string>();
  let polls = options.polls ?? 0;
  let n = 0;
  let base = "";

  /** What the model says to one request, with its usage, in the provider's own shape. */
  const complete = (provider: Provider, body: Line["body"], via: string, customId?: string) => {
    const content = body.messages[0]?.content ?? "";
    const prompt = PromptCache.text(content);
    const marked = Array.isArray(content) && content.some((b) => b.cache_control !== undefined);
    asked.push({ provider, via, model: body.model, prompt, marked, ...(customId ? { customId } : {}) });
    const text = options.answer({ provider, prompt, model: body.model });
    n++;
    if (provider === "openai") {
      return {
        id: `chatcmpl-${n}`,
        object: "chat.completion",
        created: 1_790_000_000,
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage: { ...cache.openai(prompt), completion_tokens: words(text), total_tokens: words(prompt) + words(text) },
      };
    }
    return {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      usage: { ...cache.anthropic(content), output_tokens: words(text) },
    };
  };

  /** Runs a batch's requests, in order, as it ends. */
  const finish = (b: Batch, end: Batch["end"]) => {
    b.state = "ended";
    b.end = end;
    b.outcomes = new Map();
    b.lines.forEach((line, i) => {
      const prompt = PromptCache.text(line.body.messages[0]?.content ?? "");
      // Cancelled, it had done the first half of its requests.
      if (end === "cancelled" && i >= b.lines.length / 2) b.outcomes!.set(line.customId, { kind: "canceled", message: "canceled" });
      else {
        const fate =
          end === "expired" && i >= b.lines.length / 2
            ? "expired"
            : end === "cancelled"
              ? undefined
              : options.outcome?.({ provider: b.provider, prompt, customId: line.customId });
        if (fate === "errored") b.outcomes!.set(line.customId, { kind: "errored", message: "the model could not answer this request" });
        else if (fate === "expired")
          b.outcomes!.set(line.customId, { kind: "expired", message: "This request could not be executed before the completion window expired." });
        else b.outcomes!.set(line.customId, { kind: "succeeded", body: complete(b.provider, line.body, b.id, line.customId) });
      }
    });
    if (b.provider === "openai") {
      const out: string[] = [];
      const err: string[] = [];
      let r = 0;
      for (const [customId, o] of b.outcomes) {
        const id = `batch_req_${++r}`;
        if (o.kind === "succeeded")
          out.push(JSON.stringify({ id, custom_id: customId, response: { status_code: 200, request_id: `req_${r}`, body: o.body }, error: null }));
        else if (o.kind === "errored")
          err.push(
            JSON.stringify({
              id,
              custom_id: customId,
              response: { status_code: 400, request_id: `req_${r}`, body: { error: { message: o.message, type: "invalid_request_error" } } },
              error: null,
            }),
          );
        else {
          const code = o.kind === "expired" ? "batch_expired" : "batch_cancelled";
          err.push(JSON.stringify({ id, custom_id: customId, response: null, error: { code, message: o.message } }));
        }
      }
      if (out.length > 0) files.set((b.outputFile = `file-out-${b.id}`), out.join("\n") + "\n");
      if (err.length > 0) files.set((b.errorFile = `file-err-${b.id}`), err.join("\n") + "\n");
    }
  };

  const counts = (b: Batch) => {
    const c = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    if (!b.outcomes) c.processing = b.lines.length;
    else for (const o of b.outcomes.values()) c[o.kind]++;
    return c;
  };

  const openaiBatch = (b: Batch) => {
    const c = counts(b);
    const status = b.state === "ended" ? b.end : b.state === "cancelling" ? "cancelling" : b.reads === 0 ? "validating" : "in_progress";
    return {
      id: b.id,
      object: "batch",
      endpoint: "/v1/chat/completions",
      errors: null,
      input_file_id: `file-in-${b.id}`,
      completion_window: "24h",
      status,
      output_file_id: b.outputFile ?? null,
      error_file_id: b.errorFile ?? null,
      created_at: Math.floor(b.created / 1000),
      request_counts: { total: b.lines.length, completed: c.succeeded, failed: c.errored + c.expired + c.canceled },
      metadata: b.metadata,
    };
  };

  const anthropicBatch = (b: Batch) => ({
    id: b.id,
    type: "message_batch",
    processing_status: b.state === "cancelling" ? "canceling" : b.state,
    request_counts: counts(b),
    ended_at: b.state === "ended" ? new Date().toISOString() : null,
    created_at: new Date(b.created).toISOString(),
    expires_at: new Date(b.created + 86_400_000).toISOString(),
    cancel_initiated_at: null,
    archived_at: null,
    results_url: b.state === "ended" ? `${base}/anthropic/v1/messages/batches/${b.id}/results` : null,
  });

  /** A batch the provider just created: on record, its requests counted; true when its answer is to be lost. */
  const created = async (b: Batch): Promise<boolean> => {
    batches.set(b.id, b);
    for (const l of b.lines)
      submitted.push({ provider: b.provider, batch: b.id, customId: l.customId, prompt: PromptCache.text(l.body.messages[0]?.content ?? "") });
    const event = { provider: b.provider, id: b.id, requests: b.lines.length };
    await options.onCreate?.(event);
    return options.dropCreate?.(event) === true;
  };

  /** A status read: the batch goes on, and ends after `polls` reads (or as it was cancelled). */
  const read = (b: Batch) => {
    if (b.state === "cancelling") finish(b, "cancelled");
    else if (b.state === "in_progress" && b.reads >= polls)
      finish(b, options.expire?.({ provider: b.provider, id: b.id, requests: b.lines.length }) ? "expired" : "completed");
    b.reads++;
  };

  const server = createServer((req, res) => {
    void handle(req).then(
      ({ status, body, text, drop }) => {
        if (drop) return res.destroy();
        res.writeHead(status, { "content-type": text !== undefined ? "application/jsonl" : "application/json" });
        res.end(text ?? JSON.stringify(body));
      },
      (err: unknown) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      },
    );
  });

  async function handle(req: IncomingMessage): Promise<{ status: number; body?: unknown; text?: string; drop?: boolean }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url!, "http://loopback");
    const path = url.pathname;
    calls.push(`${req.method} ${path}`);
    await options.onCall?.(`${req.method} ${path}`);
    const provider: Provider | undefined = path.startsWith("/openai/") ? "openai" : path.startsWith("/anthropic/") ? "anthropic" : undefined;
    if (!provider) return { status: 404, body: { error: { message: `no route ${path}` } } };
    const authorized =
      provider === "openai"
        ? req.headers.authorization === `Bearer ${options.key}`
        : req.headers["x-api-key"] === options.key && typeof req.headers["anthropic-version"] === "string";
    if (!authorized) {
      return provider === "openai"
        ? { status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } } }
        : { status: 401, body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } };
    }
    const json = () => JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
    const rest = path.slice(provider.length + 1);
    const notFound = { status: 404, body: { error: { type: "not_found_error", message: `no ${rest}` } } };

    if (provider === "openai") {
      if (req.method === "POST" && rest === "/chat/completions") return { status: 200, body: complete("openai", json() as unknown as Line["body"], "sync") };
      if (req.method === "POST" && rest === "/files") {
        const form = await new Request("http://loopback/", { method: "POST", headers: { "content-type": req.headers["content-type"]! }, body: raw }).formData();
        const file = form.get("file");
        if (form.get("purpose") !== "batch" || !(file instanceof Blob))
          return { status: 400, body: { error: { message: "purpose must be batch, with a file" } } };
        const id = `file-in-${files.size + 1}-${Date.now()}`;
        files.set(id, await file.text());
        return {
          status: 200,
          body: { id, object: "file", bytes: file.size, created_at: Math.floor(Date.now() / 1000), filename: (file as File).name, purpose: "batch" },
        };
      }
      if (req.method === "POST" && rest === "/batches") {
        const body = json();
        const input = files.get(String(body.input_file_id));
        if (input === undefined) return { status: 400, body: { error: { message: "no such input file" } } };
        if (body.endpoint !== "/v1/chat/completions" || body.completion_window !== "24h")
          return { status: 400, body: { error: { message: "bad endpoint or window" } } };
        const lines = input
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { custom_id: string; method: string; url: string; body: Line["body"] });
        if (lines.some((l) => l.method !== "POST" || l.url !== "/v1/chat/completions")) return { status: 400, body: { error: { message: "bad line" } } };
        if (new Set(lines.map((l) => l.body.model)).size > 1) return { status: 400, body: { error: { message: "one model per batch" } } };
        const b: Batch = {
          provider,
          id: `batch_${batches.size + 1}_${Date.now()}`,
          lines: lines.map((l) => ({ customId: l.custom_id, body: l.body })),
          created: Date.now(),
          metadata: (body.metadata as Record<string, string>) ?? {},
          reads: 0,
          state: "in_progress",
        };
        if (await created(b)) return { status: 0, drop: true };
        return { status: 200, body: openaiBatch(b) };
      }
      if (req.method === "GET" && rest === "/batches") {
        const list = [...batches.values()].filter((b) => b.provider === "openai").reverse();
        const after = url.searchParams.get("after");
        const from = after ? list.findIndex((b) => b.id === after) + 1 : 0;
        const page = list.slice(from, from + Number(url.searchParams.get("limit") ?? 20));
        return { status: 200, body: { object: "list", data: page.map(openaiBatch), has_more: from + page.length < list.length } };
      }
      let m = /^\/batches\/([^/]+)(\/cancel)?$/.exec(rest);
      if (m) {
        const b = batches.get(decodeURIComponent(m[1]!));
        if (!b || b.provider !== "openai") return notFound;
        if (m[2] && req.method === "POST") {
          if (b.state === "in_progress") b.state = "cancelling";
        } else if (req.method === "GET") read(b);
        else return notFound;
        return { status: 200, body: openaiBatch(b) };
      }
      m = /^\/files\/([^/]+)\/content$/.exec(rest);
      if (m && req.method === "GET") {
        const text = files.get(decodeURIComponent(m[1]!));
        return text === undefined ? notFound : { status: 200, text };
      }
      return notFound;
    }

    if (req.method === "POST" && rest === "/v1/messages") return { status: 200, body: complete("anthropic", json() as unknown as Line["body"], "sync") };
    if (req.method === "POST" && rest === "/v1/messages/batches") {
      const requests = json().requests as { custom_id: string; params: Line["body"] }[];
      if (!Array.isArray(requests) || requests.length === 0)
        return { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "requests" } } };
      if (requests.some((r) => !/^[a-zA-Z0-9_-]{1,64}$/.test(r.custom_id)))
        return { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "custom_id" } } };
      const b: Batch = {
        provider,
        id: `msgbatch_${batches.size + 1}${Date.now()}`,
        lines: requests.map((r) => ({ customId: r.custom_id, body: r.params })),
        created: Date.now(),
        metadata: {},
        reads: 0,
        state: "in_progress",
      };
      if (await created(b)) return { status: 0, drop: true };
      return { status: 200, body: anthropicBatch(b) };
    }
    if (req.method === "GET" && rest === "/v1/messages/batches") {
      const list = [...batches.values()].filter((b) => b.provider === "anthropic").reverse();
      const after = url.searchParams.get("after_id");
      const from = after ? list.findIndex((b) => b.id === after) + 1 : 0;
      const page = list.slice(from, from + Number(url.searchParams.get("limit") ?? 20));
      return {
        status: 200,
        body: {
          data: page.map(anthropicBatch),
          has_more: from + page.length < list.length,
          first_id: page[0]?.id ?? null,
          last_id: page[page.length - 1]?.id ?? null,
        },
      };
    }
    const m = /^\/v1\/messages\/batches\/([^/]+)(\/cancel|\/results)?$/.exec(rest);
    if (m) {
      const b = batches.get(decodeURIComponent(m[1]!));
      if (!b || b.provider !== "anthropic") return notFound;
      if (m[2] === "/cancel" && req.method === "POST") {
        if (b.state === "in_progress") b.state = "cancelling";
        return { status: 200, body: anthropicBatch(b) };
      }
      if (m[2] === "/results" && req.method === "GET") {
        if (b.state !== "ended") return { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "not ended" } } };
        const text = [...b.outcomes!]
          .map(([customId, o]) =>
            JSON.stringify({
              custom_id: customId,
              result:
                o.kind === "succeeded"
                  ? { type: "succeeded", message: o.body }
                  : o.kind === "errored"
                    ? { type: "errored", error: { type: "error", error: { type: "invalid_request_error", message: o.message } } }
                    : { type: o.kind },
            }),
          )
          .join("\n");
        return { status: 200, text: text + "\n" };
      }
      if (!m[2] && req.method === "GET") {
        read(b);
        return { status: 200, body: anthropicBatch(b) };
      }
    }
    return notFound;
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    openaiUrl: `${base}/openai`,
    anthropicUrl: `${base}/anthropic`,
    asked,
    submitted,
    calls,
    setPolls: (value) => (polls = value),
    batches: (provider) =>
      [...batches.values()]
        .filter((b) => provider === undefined || b.provider === provider)
        .map((b) => ({ provider: b.provider, id: b.id, requests: b.lines.length, state: b.state, metadata: b.metadata })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
