/**
 * A stand-in for the GitHub Actions cache service (v2) on 127.0.0.1, speaking the protocol the real
 * @actions/cache client speaks (read from node_modules/@actions/cache):
 *
 * - Twirp JSON calls, POST /twirp/github.actions.results.api.v1.CacheService/<Method>, with
 *   `Authorization: Bearer <ACTIONS_RUNTIME_TOKEN>` and proto field names:
 *   GetCacheEntryDownloadURL {key, restore_keys, version} -> {ok, signed_download_url, matched_key};
 *   CreateCacheEntry {key, version} -> {ok, signed_upload_url, message};
 *   FinalizeCacheEntryUpload {key, version, size_bytes} -> {ok, entry_id, message}.
 *   Errors are Twirp's: an HTTP status with {code, msg}. A key that exists answers 409
 *   already_exists; a read-only token is refused with ok: false and "cache write denied: ...", as the
 *   real service does.
 * - Blob storage addressed the Azure way (http://host/<account>/<container>/<blob>?sig=...): the
 *   client uploads with the Azure SDK's Put Blob (PUT, x-ms-blob-type: BlockBlob) and downloads
 *   with a plain GET. Archives above 128 MiB would go up in blocks (comp=block, comp=blocklist);
 *   pairflow's entries are a few kilobytes, so such requests are refused here, loudly.
 *
 * Entries are visible to a job only once finalized, and only under the version they were saved
 * with (the client derives it from the paths and the compression method). A key is taken from the
 * moment it is reserved: while another job uploads it, and for good when that job never finalizes
 * it (GitHub keeps such a key reserved for up to 24 hours, longer than any test). GitHub answers a
 * reservation of a taken key with 409 already_exists whether or not its entry is finalized; other
 * implementations of the service answer a key still being uploaded with `ok: false`, with or
 * without a message (see `inProgressAnswer`). `holdUpload` keeps one job's upload in flight while
 * another job runs.
 *
 * A rate limit can be set, as GitHub limits cache uploads (200 a minute per repository) and
 * answers restores with 429 too: over the limit within a window, a call is answered 429 with
 * `Retry-After` in whole seconds until the window ends. The window is configurable so that a test
 * need not wait a minute.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const SERVICE = "/twirp/github.actions.results.api.v1.CacheService/";
const TWIRP_STATUS: Record<string, number> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
  resource_exhausted: 429,
  internal: 500,
  unavailable: 503,
};

/** The keys pairflow gives a workflow's snapshot manifests and content packs (docs/cache.md). */
const STATE_KEY = /^pairflow-state-[0-9a-f]{12}-[0-9a-f]{12}-[\w.]+-\d+$/;
const PACK_KEY = /^pairflow-pack-[0-9a-f]{64}$/;
export interface Entry {
  id: number;
  key: string;
  version: string;
  blob: Buffer | null;
  finalized: boolean;
  uploadSig: string;
  downloadSig: string;
}

/** A failure the service answers with instead of doing its work. */
export interface Fault {
  /** A Twirp error code, e.g. internal (500) or resource_exhausted (429): the answer's HTTP status. */
  code: string;
  msg: string;
  /**
   * An answer instead of Twirp's JSON error: a proxy's page in front of the service, say, or a
   * method's own response (status 200) that says it did not do the work.
   */
  body?: { status?: number; contentType: string; text: string };
  headers?: Record<string, string>;
  /** Only these Twirp methods fail; default all. */
  methods?: string[];
  /** Fail this many calls, then answer normally again; default every call. */
  times?: number;
}

/** How a reservation (CreateCacheEntry) of a key whose upload another job has not finalized is answered. */
export type InProgressAnswer = { code: "already_exists" } | { ok: false; message: string };

/** An upload the service has received but not answered yet: another job's upload, still in flight. */
export interface HeldUpload {
  /** Resolves with the entry once its upload has arrived and is being held. */
  arrived: Promise<Entry>;
  /** Answers the held upload: the job goes on to finalize its entry. */
  finish(): void;
}

/**
 * A window lets this many calls of a kind through; the next call is refused (429, Retry-After) and
 * starts the next window, which lets calls through from windowMs later. So every call beyond the
 * limit is refused once, however slowly the calls come (a busy machine does not dodge the limit),
 * and a retry sooner than Retry-After says is refused again.
 */
export interface RateLimit {
  /** Entries reserved (CreateCacheEntry) per window. */
  uploads?: number;
  /** Download URLs handed out (GetCacheEntryDownloadURL) per window. */
  downloads?: number;
  windowMs: number;
}

export class FakeCacheService {
  url = "";
  readonly token = `rw-${randomBytes(8).toString("hex")}`;
  /** A token whose cache scope is read-only, as a fork's pull request gets. */
  readonly readOnlyToken = `ro-${randomBytes(8).toString("hex")}`;
  readonly entries: Entry[] = [];
  /** Every request in order: `<Method> <key>` for Twirp calls, `PUT blob <id>` and `GET blob <id>`. */
  readonly calls: string[] = [];
  fault: Fault | null = null;
  inProgressAnswer: InProgressAnswer = { code: "already_exists" };
  rateLimit: RateLimit | null = null;
  /** Calls answered 429 by the rate limit. */
  limited = 0;
  private holds: { key: RegExp; arrived: (entry: Entry) => void; finish: (() => void) | null }[] = [];
  /** Per kind of call: when its window lets calls through, and how many it has let through. */
  private windows = { uploads: { opens: 0, calls: 0 }, downloads: { opens: 0, calls: 0 } };
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(String(err));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
    return this;
  }

  async close(): Promise<void> {
    // Uploads still held belong to jobs that are gone by now.
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** What a runner sets for the cache client to use this service. */
  env(options: { readOnly?: boolean } = {}): Record<string, string> {
    return {
      ACTIONS_CACHE_SERVICE_V2: "true",
      ACTIONS_RESULTS_URL: this.url,
      ACTIONS_RUNTIME_TOKEN: options.readOnly ? this.readOnlyToken : this.token,
    };
  }

  /** Blobs uploaded so far: the saves that reached storage. */
  uploads(): number {
    return this.calls.filter((c) => c.startsWith("PUT blob")).length;
  }

  /** Blobs downloaded so far: the restores that fetched content. */
  downloads(): number {
    return this.calls.filter((c) => c.startsWith("GET blob")).length;
  }

  /** The snapshot manifests and the content packs saved so far. */
  states(): Entry[] {
    return this.finalized().filter((e) => STATE_KEY.test(e.key));
  }

  packs(): Entry[] {
    return this.finalized().filter((e) => PACK_KEY.test(e.key));
  }

  finalized(): Entry[] {
    return this.entries.filter((e) => e.finalized);
  }

  entry(key: string): Entry | undefined {
    return this.entries.find((e) => e.key === key && e.finalized);
  }

  /**
   * Holds the next blob upload of an entry whose key matches: the service takes its bytes but
   * answers only on `finish()`, so the job uploading it is still at it meanwhile (and never
   * finalizes the entry if it is stopped before then).
   */
  holdUpload(key: RegExp): HeldUpload {
    let arrived!: (entry: Entry) => void;
    const promise = new Promise<Entry>((resolve) => (arrived = resolve));
    const hold: (typeof this.holds)[number] = { key, arrived, finish: null };
    this.holds.push(hold);
    return { arrived: promise, finish: () => hold.finish?.() };
  }

  twirpCalls(method?: string): string[] {
    return this.calls.filter((c) => !c.startsWith("PUT ") && !c.startsWith("GET ") && (!method || c.startsWith(`${method} `)));
  }

  // -------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const body = await readBody(req);
    if (url.pathname.startsWith(SERVICE) && req.method === "POST") return this.twirp(url.pathname.slice(SERVICE.length), req, body, res);
    const blob = /^\/storage\/caches\/(\d+)$/.exec(url.pathname);
    if (blob) return this.blob(Number(blob[1]), url, req, body, res);
    res.writeHead(404).end();
  }

  private twirp(method: string, req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const auth = req.headers.authorization ?? "";
    const token = auth.startsWith("Bearer ") ? auth.slice("Bearer ".length) : "";
    if (token !== this.token && token !== this.readOnlyToken) return twirpError(res, "unauthenticated", "invalid token");
    if (!(req.headers["content-type"] ?? "").startsWith("application/json")) return twirpError(res, "invalid_argument", "expected application/json");
    let request: Record<string, unknown>;
    try {
      request = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
    } catch {
      return twirpError(res, "invalid_argument", "body is not JSON");
    }
    const key = typeof request.key === "string" ? request.key : "";
    const version = typeof request.version === "string" ? request.version : "";
    this.calls.push(`${method} ${key}`);
    if (this.fault && (!this.fault.methods || this.fault.methods.includes(method)) && (this.fault.times ?? 1) > 0) {
      if (this.fault.times !== undefined) this.fault.times--;
      const body = this.fault.body;
      if (body)
        return void res
          .writeHead(body.status ?? TWIRP_STATUS[this.fault.code] ?? 500, { "content-type": body.contentType, ...this.fault.headers })
          .end(body.text);
      return twirpError(res, this.fault.code, this.fault.msg, this.fault.headers);
    }
    const limitedFor = this.overLimit(method);
    if (limitedFor !== null) {
      this.limited++;
      return twirpError(res, "resource_exhausted", "rate limit exceeded for cache operations", { "retry-after": String(limitedFor) });
    }
    if (!key || !version) return twirpError(res, "invalid_argument", "key and version are required");

    switch (method) {
      case "GetCacheEntryDownloadURL": {
        const restoreKeys = Array.isArray(request.restore_keys) ? (request.restore_keys as string[]) : [];
        const visible = this.entries.filter((e) => e.finalized && e.version === version).reverse(); // newest first
        const hit = visible.find((e) => e.key === key) ?? restoreKeys.map((prefix) => visible.find((e) => e.key.startsWith(prefix))).find(Boolean);
        if (!hit) return json(res, { ok: false, signed_download_url: "", matched_key: "" });
        return json(res, { ok: true, signed_download_url: this.blobUrl(hit, hit.downloadSig), matched_key: hit.key });
      }
      case "CreateCacheEntry": {
        if (token === this.readOnlyToken) return json(res, { ok: false, signed_upload_url: "", message: "cache write denied: token has no writable scopes" });
        const taken = this.entries.find((e) => e.key === key && e.version === version);
        if (taken && !taken.finalized && "ok" in this.inProgressAnswer) {
          return json(res, { ok: false, signed_upload_url: "", message: this.inProgressAnswer.message });
        }
        if (taken) return twirpError(res, "already_exists", "cache entry with the same key, version, and scope already exists");
        const entry: Entry = { id: this.entries.length + 1, key, version, blob: null, finalized: false, uploadSig: sig(), downloadSig: sig() };
        this.entries.push(entry);
        return json(res, { ok: true, signed_upload_url: this.blobUrl(entry, entry.uploadSig) });
      }
      case "FinalizeCacheEntryUpload": {
        const entry = this.entries.find((e) => e.key === key && e.version === version && !e.finalized);
        if (!entry) return twirpError(res, "not_found", "no cache entry reserved with this key and version");
        if (entry.blob === null) return json(res, { ok: false, entry_id: "0", message: "nothing was uploaded for this cache entry" });
        if (String(entry.blob.length) !== String(request.size_bytes)) {
          return twirpError(res, "invalid_argument", `size_bytes ${String(request.size_bytes)} does not match the ${entry.blob.length} bytes uploaded`);
        }
        entry.finalized = true;
        return json(res, { ok: true, entry_id: String(entry.id) });
      }
      default:
        return twirpError(res, "not_found", `no method ${method}`);
    }
  }

  private blob(id: number, url: URL, req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const entry = this.entries.find((e) => e.id === id);
    this.calls.push(`${req.method} blob ${id}`);
    const signature = url.searchParams.get("sig");
    if (req.method === "PUT") {
      if (!entry || entry.finalized || signature !== entry.uploadSig)
        return azureError(res, 403, "AuthenticationFailed", "the signature does not allow writing this blob");
      if (url.searchParams.has("comp"))
        return azureError(res, 400, "UnsupportedQueryParameter", `comp=${url.searchParams.get("comp")}: block uploads are not supported by this fake`);
      if (req.headers["x-ms-blob-type"] !== "BlockBlob") return azureError(res, 400, "MissingRequiredHeader", "x-ms-blob-type: BlockBlob is required");
      const hold = this.holds.find((h) => h.finish === null && h.key.test(entry.key));
      if (hold) {
        hold.finish = () => this.stored(entry, body, req, res);
        hold.arrived(entry);
        return;
      }
      this.stored(entry, body, req, res);
      return;
    }
    if (req.method === "GET") {
      if (!entry?.finalized || entry.blob === null || signature !== entry.downloadSig)
        return azureError(res, 404, "BlobNotFound", "the specified blob does not exist");
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": entry.blob.length, "x-ms-blob-type": "BlockBlob" });
      return void res.end(entry.blob);
    }
    azureError(res, 405, "UnsupportedHttpVerb", `${req.method} is not supported`);
  }

  /** Keeps an uploaded blob and answers its upload, as Azure's Put Blob does. */
  private stored(entry: Entry, body: Buffer, req: IncomingMessage, res: ServerResponse): void {
    if (res.destroyed) return; // the job that uploaded it is gone
    entry.blob = body;
    res.writeHead(201, {
      etag: `"0x${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`,
      "last-modified": new Date().toUTCString(),
      "content-md5": createHash("md5").update(body).digest("base64"),
      "x-ms-request-id": randomBytes(8).toString("hex"),
      "x-ms-version": String(req.headers["x-ms-version"] ?? "2025-05-05"),
      "x-ms-request-server-encrypted": "true",
    });
    res.end();
  }

  /** Seconds until the window ends when this call is over the limit; null when it may go on (and it is counted). */
  private overLimit(method: string): number | null {
    const limit = this.rateLimit;
    const kind = method === "CreateCacheEntry" ? "uploads" : method === "GetCacheEntryDownloadURL" ? "downloads" : null;
    if (!limit || !kind || limit[kind] === undefined) return null;
    const now = Date.now();
    const window = this.windows[kind];
    if (window.calls >= limit[kind]) {
      this.windows[kind] = { opens: now + limit.windowMs, calls: 0 };
      return Math.max(1, Math.ceil(limit.windowMs / 1000));
    }
    if (now < window.opens) return Math.max(1, Math.ceil((window.opens - now) / 1000));
    window.calls++;
    return null;
  }

  private blobUrl(entry: Entry, signature: string): string {
    return `${this.url}storage/caches/${entry.id}?sv=2025-05-05&sr=b&sig=${signature}`;
  }
}

function sig(): string {
  return randomBytes(12).toString("base64url");
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function twirpError(res: ServerResponse, code: string, msg: string, headers: Record<string, string> = {}): void {
  res.writeHead(TWIRP_STATUS[code] ?? 500, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ code, msg }));
}

function azureError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { "content-type": "application/xml", "x-ms-error-code": code });
  res.end(`<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}
