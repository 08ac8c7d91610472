/**
 * What pairflow makes of a save, in process: the real @actions/cache client against the loopback
 * cache service, read by cacheClient.save. The client answers every refusal of a reservation
 * alike (-1, "another job may be creating this cache"), so what matters is which answers mean the
 * key is taken (another job saved it, or is uploading it), which mean this job may not write (a 403
 * or permission_denied, whatever the wording), and which are plain failures.
 */
import fc from "fast-check";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RetryBudget, save, type CallCounts } from "../../src/github/cacheClient.js";
import { FakeCacheService, type Fault, type InProgressAnswer } from "./fakeCacheService.js";

let cache: FakeCacheService;
let workspace: string;
const before = { ...process.env };
beforeAll(async () => {
  cache = await new FakeCacheService().start();
  workspace = mkdtempSync(path.join(tmpdir(), "pairflow-save-"));
  Object.assign(process.env, cache.env(), { GITHUB_WORKSPACE: workspace, RUNNER_TEMP: workspace });
});
afterAll(async () => {
  for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
  await cache.close();
});
beforeEach(() => {
  cache.fault = null;
  cache.inProgressAnswer = { code: "already_exists" };
});

let made = 0;
/** A directory to save, new each time. */
function entryPaths(): string[] {
  const dir = path.join(workspace, `entry-${++made}`);
  mkdirSync(dir);
  writeFileSync(path.join(dir, "content"), `content ${made}`);
  return [dir];
}

const counts = (): CallCounts => ({ uploads: 0, downloads: 0, retries: 0, waitedMs: 0 });
/** No waiting: a 429 or 5xx fails at once. */
const noWaiting = () => new RetryBudget(0);

describe("a save refused with 403 is denied, whatever the service says", () => {
  it("for any message", { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (msg) => {
        cache.fault = { code: "permission_denied", msg, methods: ["CreateCacheEntry"] };
        const result = await save(entryPaths(), `k-${made}`, noWaiting(), counts());
        expect(result.kind).toBe("denied");
        expect("reason" in result && result.reason).not.toContain("another job may be creating this cache");
      }),
      { numRuns: 25 },
    );
  });

  it("for a body that is not Twirp's JSON (a proxy's page), after the client's own retries", { timeout: 120_000 }, async () => {
    cache.fault = {
      code: "permission_denied",
      msg: "",
      body: { contentType: "text/html", text: "<html><h1>403 Forbidden</h1></html>" },
      methods: ["CreateCacheEntry"],
    };
    const result = await save(entryPaths(), "k-html", noWaiting(), counts());
    expect(result.kind).toBe("denied");
  });

  it("and when the runner's cache mode does not permit writes, without asking the service", async () => {
    process.env.ACTIONS_CACHE_MODE = "read";
    try {
      const calls = cache.calls.length;
      const result = await save(entryPaths(), "k-mode", noWaiting(), counts());
      expect(result).toMatchObject({ kind: "denied", reason: expect.stringContaining("does not permit writes") });
      expect(cache.calls.length).toBe(calls);
    } finally {
      delete process.env.ACTIONS_CACHE_MODE;
    }
  });
});

describe("a key another job is still uploading is taken", () => {
  const answers: [string, InProgressAnswer][] = [
    ["409 already_exists", { code: "already_exists" }],
    ["ok: false without a message", { ok: false, message: "" }],
    ["ok: false saying the entry already exists", { ok: false, message: "cache entry already exists" }],
    ["ok: false saying it is being uploaded", { ok: false, message: "the cache entry is being uploaded by another job" }],
  ];
  it.each(answers)("%s: exists, and the other job's upload goes on", async (_, answer) => {
    cache.inProgressAnswer = answer;
    const paths = entryPaths();
    const key = `k-held-${made}`;
    const held = cache.holdUpload(new RegExp(`^${key}$`));
    const other = save(paths, key, noWaiting(), counts());
    await held.arrived;
    expect(cache.entry(key)).toBeUndefined();

    expect(await save(paths, key, noWaiting(), counts())).toEqual({ kind: "exists" });
    held.finish();
    expect(await other).toEqual({ kind: "done" });
    expect(cache.entry(key)).toBeDefined();
  });
});

describe("other refusals are failures, not a taken key nor a denial", () => {
  const failures: [string, Fault][] = [
    [
      "ok: false for the storage quota",
      {
        code: "ok",
        msg: "",
        body: { status: 200, contentType: "application/json", text: JSON.stringify({ ok: false, message: "Cache storage quota exceeded for repository" }) },
        methods: ["CreateCacheEntry"],
      },
    ],
    ["400 invalid_argument", { code: "invalid_argument", msg: "key is too long", methods: ["CreateCacheEntry"] }],
    [
      "401 unauthenticated (a token that is not valid, rather than read-only)",
      { code: "unauthenticated", msg: "token expired", methods: ["CreateCacheEntry"] },
    ],
  ];
  it.each(failures)("%s", async (_, fault) => {
    cache.fault = fault;
    const result = await save(entryPaths(), `k-${made}`, noWaiting(), counts());
    expect(result.kind).toBe("failed");
  });
});
