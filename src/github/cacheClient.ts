/**
 * Calls to @actions/cache that say how they went, and that wait out rate limits and server errors.
 *
 * The client does not report failures: it logs them and answers "not found" (restore) or -1 (save).
 * So each call runs with its log output collected (see collectOutput), and the output is read for
 * what happened: a 429 (the client does not retry it, but logs the Retry-After it was given), a
 * server error (5xx, after the client's own retries), a key already taken, a refused write. A 429
 * or 5xx is tried again after the time the service asked for (else a growing pause), as long as
 * the budget of waiting allows; then the call fails.
 *
 * A key is taken from the moment a job reserves it (CreateCacheEntry), before its upload is
 * finalized: GitHub's service answers the reservation of a taken key with 409 already_exists,
 * whether the entry is saved or still being uploaded; other implementations answer a key being
 * uploaded with `ok: false`, which the client reports as "another job may be creating this cache".
 * Either way the call is "exists": the entry is there or on its way. (If the other job's upload
 * never finishes, a restore of the key misses; see ActionsCacheStore.loadPack.)
 *
 * A write is refused ("denied") when the runner's cache mode does not permit writes, when the
 * service says "cache write denied:" (a read-only token, as a pull request from a fork gets), and
 * whenever it answers 403 or Twirp's permission_denied, whatever its message: the client logs the
 * status of every answer it gets from the service, and that is what is read, not the wording.
 *
 * The waiting is a loop of a few lines rather than a retry library: the pause comes from the
 * service's own Retry-After, read from the client's log, and the budget is shared by every call of
 * an operation, which is what a library's per-call backoff would have to be bent into.
 */
import * as cache from "@actions/cache";
import * as core from "@actions/core";
import { AsyncLocalStorage } from "node:async_hooks";

export type CallResult = { kind: "done" } | { kind: "missing" } | { kind: "exists" } | { kind: "denied"; reason: string } | { kind: "failed"; reason: string };

export interface CallCounts {
  /** Entries reserved and uploaded (CreateCacheEntry calls that were answered, 409s included). */
  uploads: number;
  /** Entries downloaded. */
  downloads: number;
  /** Calls the service answered with 429 or 5xx and that were tried again. */
  retries: number;
  /** Time spent waiting for those retries. */
  waitedMs: number;
}

/**
 * How long an operation (one restore, one snapshot save) may take while it waits out 429s and 5xx:
 * a deadline from its start, which counts the client's own retries too. A pause that would end
 * past it is not taken.
 */
export class RetryBudget {
  private readonly deadline: number;
  constructor(
    readonly ms: number,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {
    this.deadline = Date.now() + ms;
  }

  /** Waits `ms` if the budget allows it, and says whether it did. */
  async wait(ms: number): Promise<boolean> {
    if (Date.now() + ms > this.deadline) return false;
    await this.sleep(ms);
    return true;
  }
}

interface Attempt {
  value: string | number | undefined;
  problem: string | undefined;
  lastInfo: string | undefined;
  text: string;
}

/** What the output says about a failed attempt: a pause to take before trying again, or null when trying again is pointless. */
function retryDelay(text: string, attempt: number): number | null {
  const rateLimited = /\(429\)|Rate limited|rate limit/i.test(text);
  const serverError = /\((5\d\d)\)/.test(text);
  if (!rateLimited && !serverError) return null;
  const after = /will reset in (\d+) seconds/.exec(text);
  // Retry-After is whole seconds; without one, pause 1 s, 2 s, 4 s, ... as the service recovers.
  return after ? Number(after[1]) * 1000 : Math.min(1000 * 2 ** attempt, 30_000);
}

async function attempt(task: () => Promise<string | number | undefined>): Promise<Attempt> {
  return collectOutput(task);
}

/**
 * Restores the newest entry matching `key` or one of `restoreKeys` (prefixes, tried in order) into
 * `paths`: the key that matched, or why not.
 */
export async function restore(
  paths: string[],
  key: string,
  restoreKeys: string[],
  budget: RetryBudget,
  counts: CallCounts,
): Promise<{ key: string } | Exclude<CallResult, { kind: "done" } | { kind: "exists" }>> {
  for (let n = 0; ; n++) {
    const a = await attempt(() => cache.restoreCache(paths, key, restoreKeys));
    if (typeof a.value === "string") {
      counts.downloads++;
      return { key: a.value };
    }
    if (!a.problem) return { kind: "missing" };
    if (/cache read denied/i.test(a.text)) return { kind: "denied", reason: a.problem };
    const delay = retryDelay(a.text, n);
    if (delay === null) return { kind: "failed", reason: a.problem };
    if (!(await budget.wait(delay))) return { kind: "failed", reason: `${a.problem} (waited out ${waitedNote(budget)})` };
    counts.retries++;
    counts.waitedMs += delay;
  }
}

/**
 * Saves `paths` under `key`: done, exists (the key is taken: another job saved it, or is uploading
 * it), denied (this job may not write to the cache), or failed.
 */
export async function save(paths: string[], key: string, budget: RetryBudget, counts: CallCounts): Promise<CallResult> {
  for (let n = 0; ; n++) {
    const a = await attempt(() => cache.saveCache(paths, key));
    if (a.value !== -1 && a.value !== undefined) {
      counts.uploads++;
      return { kind: "done" };
    }
    // Without a problem logged, the client's last line says why (the runner's cache mode forbids writes).
    const reason = a.problem ?? a.lastInfo ?? "the cache service did not take it";
    if (writeDenied(a.text)) return { kind: "denied", reason };
    if (keyTaken(a.text)) {
      counts.uploads++;
      return { kind: "exists" };
    }
    const delay = retryDelay(a.text, n);
    if (delay === null) return { kind: "failed", reason };
    if (!(await budget.wait(delay))) return { kind: "failed", reason: `${reason} (waited out ${waitedNote(budget)})` };
    counts.retries++;
    counts.waitedMs += delay;
  }
}

/**
 * Whether the output says this job may not write to the cache: the runner's cache mode, the
 * service's "cache write denied:", or an answer of 403 / permission_denied from the service (the
 * client logs `[Response] - <status>` for every answer, and the Twirp error's code in its body).
 */
export function writeDenied(text: string): boolean {
  return (
    /cache write denied|does not permit writes/i.test(text) ||
    /\[Response\] - 403\b|Failed request: \(403\)/.test(text) ||
    /"code":\s*"permission_denied"/.test(text)
  );
}

/**
 * Whether the output says the key is taken: a 409 (Twirp already_exists), a reservation answered
 * `ok: false` without a reason (the client's "Response was not ok"), or a reason saying the entry
 * exists or is being uploaded.
 */
export function keyTaken(text: string): boolean {
  return (
    /\(409\)/.test(text) ||
    /Failed to reserve cache: Error: Response was not ok/.test(text) ||
    /already exists|in progress|being (?:created|uploaded|written|saved|finalized)/i.test(text)
  );
}

function waitedNote(budget: RetryBudget): string {
  return `the ${Math.round(budget.ms / 1000)} s allowed for rate limits and server errors`;
}

// ---------------------------------------------------------------------------------------------
// Collecting the cache client's log output

const sink = new AsyncLocalStorage<string[]>();
let hooked = false;

/**
 * Runs `task` with whatever it (and whatever it starts) writes to stdout collected instead of
 * printed: the cache client's progress lines, and the warnings it logs in place of throwing. They
 * go to the debug log afterwards. AsyncLocalStorage tells the client's writes from everything else
 * the action prints meanwhile (pairs run while saves are in flight). Secret masks always pass
 * through at once: the runner must see them before anything they hide.
 */
async function collectOutput(task: () => Promise<string | number | undefined>): Promise<Attempt> {
  hookStdout();
  const chunks: string[] = [];
  let value: string | number | undefined;
  try {
    value = await sink.run(chunks, task);
  } catch (err) {
    // Only a key or path the client finds invalid ends up here: a failure like any other.
    chunks.push(`::error::${(err as Error).message}\n`);
  }
  const text = chunks.join("");
  const problems: string[] = [];
  const failures: string[] = [];
  let refused: string | undefined;
  let lastInfo: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line === "") continue;
    const command = /^::([a-z-]+)(?: [^:]*)?::(.*)$/.exec(line);
    const message = command ? unescapeCommand(command[2]!) : line;
    if (command && (command[1] === "warning" || command[1] === "error")) problems.push(message);
    else if (message.startsWith("Failed")) failures.push(message);
    const reservation = command?.[1] === "debug" ? /^Failed to reserve cache: (?:Error: )?(.*)/.exec(message) : null;
    if (reservation) refused = `the cache service did not reserve the entry: ${reservation[1]}`;
    if (!command) lastInfo = message;
    core.debug(command && command[1] !== "debug" ? `${command[1]}: ${message}` : message);
  }
  // Warnings say what went wrong. A refused reservation is only logged: the client's debug line
  // names the service's answer, its "Failed to save" line guesses ("another job may be creating").
  const problem = problems.length > 0 ? problems.join("; ") : (refused ?? failures[0]);
  return { value, problem, lastInfo, text };
}

function hookStdout(): void {
  if (hooked) return;
  hooked = true;
  const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    const chunks = sink.getStore();
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
    if (chunks === undefined || text.startsWith("::add-mask::")) return write(chunk, ...rest);
    chunks.push(text);
    const callback = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stdout.write;
}

/** Workflow command messages escape %, CR and LF. */
function unescapeCommand(text: string): string {
  return text.replace(/%0A/g, "\n").replace(/%0D/g, "\r").replace(/%25/g, "%");
}
