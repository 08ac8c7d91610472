/**
 * The providers' batch APIs, as documented:
 *
 * - OpenAI's Batch API: the requests as a JSONL file (one line per request: custom_id, method, url,
 *   body) uploaded to POST {base}/files with purpose "batch"; POST {base}/batches names it, the
 *   endpoint and the 24-hour window (and our key in `metadata`); GET {base}/batches/{id} says its
 *   status (validating, in_progress, finalizing, then completed, failed, expired or cancelled;
 *   cancelling on the way there) with request_counts {total, completed, failed}; its output_file_id
 *   and error_file_id are read with GET {base}/files/{id}/content, one line per request by
 *   custom_id (response.status_code and response.body, or error: batch_expired, batch_cancelled).
 *   Each input file takes one model.
 * - Anthropic's Message Batches: POST {base}/v1/messages/batches with the requests (custom_id and
 *   the Messages params); GET {base}/v1/messages/batches/{id} says processing_status (in_progress,
 *   canceling, ended) with request_counts {processing, succeeded, errored, canceled, expired};
 *   results_url serves JSONL by custom_id with result.type succeeded (message), errored (error),
 *   canceled or expired.
 *
 * Both cancel with POST .../{id}/cancel, and list batches (newest first) for finding one whose
 * creation a killed run never heard back about.
 */
import { GeneratorError } from "../model/ports.js";
import type { BatchCounts } from "../model/run.js";
import { field, httpCall, type HttpOptions, type ProviderCall } from "./http.js";

/** A batch's state, as both providers' answers are read. */
export interface BatchStatus {
  ended: boolean;
  /** The provider's own word for it (in_progress, finalizing, canceling, expired...). */
  status: string;
  counts: BatchCounts;
  /** The provider's reason when the whole batch failed (OpenAI: validation errors). */
  problem?: string;
  /** Where its results are: OpenAI's output and error files, Anthropic's results_url. */
  outputs: string[];
}

/** One request's outcome in an ended batch. */
export type BatchOutcome = { kind: "succeeded"; body: unknown } | { kind: "errored" | "expired" | "canceled"; message: string };

export interface BatchApi {
  /** Creates the batch; `onFile` is told of an uploaded input file before the batch is created (OpenAI). */
  submit(requests: readonly { customId: string; body: unknown }[], key: string, onFile: (file: string) => void, signal: AbortSignal): Promise<string>;
  status(id: string, signal: AbortSignal): Promise<BatchStatus>;
  /** Every outcome by custom_id; a request the provider says nothing of is missing. */
  results(id: string, status: BatchStatus, signal: AbortSignal): Promise<Map<string, BatchOutcome>>;
  cancel(id: string, signal: AbortSignal): Promise<void>;
  /** The id of the batch created with this key since `since` (ISO time) holding `count` requests, if the provider has one. */
  find(key: string, since: string, count: number, signal: AbortSignal): Promise<string | undefined>;
}

/** How many requests and bytes one batch may hold: the providers' limits, kept under. */
export const BATCH_LIMITS = {
  openai: { requests: 50_000, bytes: 190 * 2 ** 20 },
  anthropic: { requests: 100_000, bytes: 240 * 2 ** 20 },
} as const;

/** The batch API of the provider and endpoint a synchronous call goes to. */
export function batchApi(call: ProviderCall): BatchApi {
  return call.provider === "openai" ? openaiBatches(call) : anthropicBatches(call);
}

type Send = (method: "GET" | "POST", url: string, options: Partial<HttpOptions> & { signal: AbortSignal }) => Promise<unknown>;

function sender(call: ProviderCall): Send {
  const { settings } = call;
  return (method, url, options) =>
    httpCall({
      provider: call.provider,
      method,
      url,
      headers: call.headers,
      timeoutSeconds: settings.timeoutSeconds,
      retries: settings.retries,
      secrets: call.secrets,
      baseDelayMs: settings.baseDelayMs,
      authHint: call.authHint,
      ...options,
    });
}

// ---------------------------------------------------------------------------------------------
// OpenAI

function openaiBatches(call: ProviderCall): BatchApi {
  if (call.apiVersion !== undefined) {
    throw new GeneratorError("openai: batch is not supported for Azure OpenAI (generator_config.api_version) yet; remove batch: true for this pair");
  }
  const base = call.settings.baseUrl;
  const send = sender(call);
  const text = (value: unknown): string => (typeof value === "string" ? value : "");
  return {
    async submit(requests, key, onFile, signal) {
      const jsonl = requests.map((r) => JSON.stringify({ custom_id: r.customId, method: "POST", url: "/v1/chat/completions", body: r.body }) + "\n").join("");
      const form = { fields: { purpose: "batch" }, file: { field: "file", name: `pairflow-${key}.jsonl`, type: "application/jsonl", content: jsonl } };
      const file = text(field(await send("POST", `${base}/files`, { form, signal }), "id"));
      if (file === "") throw new GeneratorError("openai: the file upload's answer has no id");
      onFile(file);
      const batch = await send("POST", `${base}/batches`, {
        body: { input_file_id: file, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { pairflow: key } },
        retryUnanswered: false,
        signal,
      });
      const id = text(field(batch, "id"));
      if (id === "") throw new GeneratorError("openai: the batch's answer has no id");
      return id;
    },

    async status(id, signal) {
      const batch = await send("GET", `${base}/batches/${encodeURIComponent(id)}`, { signal });
      const status = text(field(batch, "status"));
      const total = num(field(batch, "request_counts", "total"));
      const completed = num(field(batch, "request_counts", "completed"));
      const failed = num(field(batch, "request_counts", "failed"));
      const ended = ["completed", "failed", "expired", "cancelled"].includes(status);
      const errors = field(batch, "errors", "data");
      const problem = Array.isArray(errors)
        ? errors
            .map((e) => text(field(e, "message")))
            .filter(Boolean)
            .join("; ")
        : "";
      const rest = Math.max(0, total - completed - failed);
      return {
        ended,
        status,
        counts: {
          processing: ended ? 0 : rest,
          succeeded: completed,
          errored: failed,
          expired: status === "expired" ? rest : 0,
          canceled: status === "cancelled" ? rest : 0,
        },
        ...(problem ? { problem } : {}),
        outputs: [text(field(batch, "output_file_id")), text(field(batch, "error_file_id"))].filter(Boolean),
      };
    },

    async results(_id, status, signal) {
      const outcomes = new Map<string, BatchOutcome>();
      for (const file of status.outputs) {
        const jsonl = (await send("GET", `${base}/files/${encodeURIComponent(file)}/content`, { as: "text", signal })) as string;
        for (const line of lines(jsonl)) {
          const customId = field(line, "custom_id");
          if (typeof customId !== "string") continue;
          const code = field(line, "response", "status_code");
          const body = field(line, "response", "body");
          const errorCode = text(field(line, "error", "code"));
          const message = text(field(line, "error", "message")) || text(field(body, "error", "message")) || `HTTP ${String(code)}`;
          if (code === 200 && body !== undefined) outcomes.set(customId, { kind: "succeeded", body });
          else if (errorCode === "batch_expired") outcomes.set(customId, { kind: "expired", message });
          else if (errorCode === "batch_cancelled") outcomes.set(customId, { kind: "canceled", message });
          else outcomes.set(customId, { kind: "errored", message });
        }
      }
      return outcomes;
    },

    async cancel(id, signal) {
      await send("POST", `${base}/batches/${encodeURIComponent(id)}/cancel`, { signal });
    },

    async find(key, since, _count, signal) {
      const after = Date.parse(since) / 1000 - 300;
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const list = await send("GET", `${base}/batches?limit=100${cursor ? `&after=${encodeURIComponent(cursor)}` : ""}`, { signal });
        const data = field(list, "data");
        if (!Array.isArray(data) || data.length === 0) return undefined;
        for (const b of data) if (field(b, "metadata", "pairflow") === key) return text(field(b, "id")) || undefined;
        // Newest first: once they are older than the submission, it is not there.
        if (data.every((b) => num(field(b, "created_at")) < after) || field(list, "has_more") !== true) return undefined;
        cursor = text(field(data[data.length - 1], "id"));
      }
      return undefined;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Anthropic

function anthropicBatches(call: ProviderCall): BatchApi {
  const base = call.settings.baseUrl;
  const send = sender(call);
  const text = (value: unknown): string => (typeof value === "string" ? value : "");
  return {
    async submit(requests, _key, _onFile, signal) {
      const batch = await send("POST", `${base}/v1/messages/batches`, {
        body: { requests: requests.map((r) => ({ custom_id: r.customId, params: r.body })) },
        retryUnanswered: false,
        signal,
      });
      const id = text(field(batch, "id"));
      if (id === "") throw new GeneratorError("anthropic: the batch's answer has no id");
      return id;
    },

    async status(id, signal) {
      const batch = await send("GET", `${base}/v1/messages/batches/${encodeURIComponent(id)}`, { signal });
      const c = (name: string) => num(field(batch, "request_counts", name));
      const status = text(field(batch, "processing_status"));
      // results_url is followed only where the key is sent anyway: the endpoint's own origin.
      const url = text(field(batch, "results_url"));
      const own = url !== "" && sameOrigin(url, base) ? url : `${base}/v1/messages/batches/${encodeURIComponent(id)}/results`;
      return {
        ended: status === "ended",
        status,
        counts: { processing: c("processing"), succeeded: c("succeeded"), errored: c("errored"), expired: c("expired"), canceled: c("canceled") },
        outputs: [own],
      };
    },

    async results(_id, status, signal) {
      const outcomes = new Map<string, BatchOutcome>();
      const jsonl = (await send("GET", status.outputs[0]!, { as: "text", signal })) as string;
      for (const line of lines(jsonl)) {
        const customId = field(line, "custom_id");
        if (typeof customId !== "string") continue;
        const type = field(line, "result", "type");
        if (type === "succeeded") outcomes.set(customId, { kind: "succeeded", body: field(line, "result", "message") });
        else if (type === "expired" || type === "canceled") outcomes.set(customId, { kind: type, message: type });
        else {
          const message = text(field(line, "result", "error", "error", "message")) || text(field(line, "result", "error", "message")) || "errored";
          outcomes.set(customId, { kind: "errored", message });
        }
      }
      return outcomes;
    },

    async cancel(id, signal) {
      await send("POST", `${base}/v1/messages/batches/${encodeURIComponent(id)}/cancel`, { signal });
    },

    // Anthropic keeps no metadata on a batch: one created since the submission began with as many
    // requests is taken, and its results' custom_ids (which start with the key) confirm it.
    async find(_key, since, count, signal) {
      const after = Date.parse(since) - 300_000;
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const list = await send("GET", `${base}/v1/messages/batches?limit=100${cursor ? `&after_id=${encodeURIComponent(cursor)}` : ""}`, { signal });
        const data = field(list, "data");
        if (!Array.isArray(data) || data.length === 0) return undefined;
        const total = (b: unknown) =>
          ["processing", "succeeded", "errored", "canceled", "expired"].reduce((sum, k) => sum + num(field(b, "request_counts", k)), 0);
        const found = data.find((b) => Date.parse(text(field(b, "created_at"))) >= after && total(b) === count);
        if (found) return text(field(found, "id")) || undefined;
        if (data.every((b) => Date.parse(text(field(b, "created_at"))) < after) || field(list, "has_more") !== true) return undefined;
        cursor = text(field(list, "last_id")) || text(field(data[data.length - 1], "id"));
      }
      return undefined;
    },
  };
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function sameOrigin(url: string, base: string): boolean {
  try {
    return new URL(url).origin === new URL(base).origin;
  } catch {
    return false;
  }
}

/** The JSON values of a JSONL text, lines that are not JSON left out. */
function lines(jsonl: string): unknown[] {
  const out: unknown[] = [];
  for (const line of jsonl.split("\n")) {
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // not a result line
    }
  }
  return out;
}
