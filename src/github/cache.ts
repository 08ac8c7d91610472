/**
 * The GitHub Actions cache as pairflow's remote store, through @actions/cache.
 *
 * One cache entry per accepted artifact, under the key `<prefix>-<pair id>-<configRef>`: the
 * configRef is an immutable name for the artifact, so an entry never needs replacing. An entry is a
 * small directory holding two files, `record.json` (the StoreRecord) and `content` (the artifact's
 * bytes), staged at ENTRY_DIR in the workspace. The path is the same relative path on every
 * machine because the cache client folds the paths it is given into the entry's version: a fixed
 * path is what lets any job find the entry. With one staging directory, restores and saves go one
 * at a time.
 *
 * The cache is an optimisation, never a reason for a run to fail. The client does not report
 * failures (it logs them and answers "not found"), so each call runs with its log output collected
 * (see collectOutput): a warning or error in it is a failure. The first failure — no service, a
 * rate limit, a server error after the client's own retries, a read-only token — turns the cache off
 * for the rest of the run with one warning; the run goes on with the local store.
 */
import * as cache from "@actions/cache";
import * as core from "@actions/core";
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sha256Hex } from "../refs/hash.js";
import type { RemoteArtifact, RemoteStore } from "../model/ports.js";
import type { StoreRecord } from "../model/records.js";
import { pairKey } from "../model/workflow.js";

/** Where an entry is staged, relative to the workspace (which is the process's working directory). */
export const ENTRY_DIR = ".pairflow/cache-entry";
const MAX_KEY_LENGTH = 512;

/** The cache key of an artifact: at most 512 characters, no commas (prefixes have none, pairKey leaves none). */
export function cacheKey(prefix: string, pair: string, configRef: string): string {
  const key = `${prefix}-${pairKey(pair)}-${configRef}`;
  // A pair id too long for a key is replaced by its digest; record.json still names the pair.
  return key.length <= MAX_KEY_LENGTH ? key : `${prefix}-${sha256Hex(pair).slice(0, 16)}-${configRef}`;
}

export interface CacheStats {
  /** Entries asked for: each a download when it is there. */
  lookups: number;
  /** Entries found whole and used. */
  found: number;
  saved: number;
  /** Saves that found the entry already there: another job accepted the same artifact first. */
  alreadySaved: number;
}

export class ActionsCacheStore implements RemoteStore {
  readonly name = "the GitHub Actions cache";
  readonly stats: CacheStats = { lookups: 0, found: 0, saved: 0, alreadySaved: 0 };
  /** Why the cache was turned off, once it has been. */
  disabled: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly entryDir: string;

  constructor(
    private readonly prefix: string,
    workspace: string,
    private readonly warn: (message: string) => void,
  ) {
    this.entryDir = path.join(workspace, ENTRY_DIR);
  }

  /** Whether the runner offers a cache service at all (it does on GitHub-hosted and most self-hosted runners). */
  static available(): boolean {
    return cache.isFeatureAvailable();
  }

  fetch(pair: string, configRef: string): Promise<RemoteArtifact | undefined> {
    return this.oneAtATime(async () => {
      if (this.disabled) return undefined;
      const key = cacheKey(this.prefix, pair, configRef);
      this.stats.lookups++;
      rmSync(this.entryDir, { recursive: true, force: true });
      try {
        const { value, problem } = await collectOutput(() => cache.restoreCache([ENTRY_DIR], key));
        if (value !== key) {
          if (problem) this.turnOff(`restoring ${key}: ${problem}`);
          return undefined;
        }
        const artifact = this.readEntry(pair, configRef);
        if (typeof artifact === "string") {
          this.warn(
            `the GitHub Actions cache entry ${key} is damaged (${artifact}); not used, so ${pair} runs again. ` +
              `Its key cannot be saved again while it exists: delete it (gh cache delete ${key}) to share the new artifact.`,
          );
          return undefined;
        }
        this.stats.found++;
        return artifact;
      } finally {
        rmSync(this.entryDir, { recursive: true, force: true });
      }
    });
  }

  save({ record, content }: RemoteArtifact): Promise<void> {
    return this.oneAtATime(async () => {
      if (this.disabled) return;
      const key = cacheKey(this.prefix, record.pair, record.configRef);
      rmSync(this.entryDir, { recursive: true, force: true });
      mkdirSync(this.entryDir, { recursive: true });
      writeFileSync(path.join(this.entryDir, "record.json"), JSON.stringify(record));
      writeFileSync(path.join(this.entryDir, "content"), content);
      try {
        const { value, problem, lastInfo, text } = await collectOutput(() => cache.saveCache([ENTRY_DIR], key));
        if (value !== -1) {
          this.stats.saved++;
        } else if (/\(409\)/.test(text)) {
          // 409 Conflict: the key exists. Same key, same configRef, same accepted artifact: saved.
          this.stats.alreadySaved++;
        } else {
          // Without a problem logged, the client's last line says why (the runner's cache mode forbids writes).
          this.turnOff(`saving ${key}: ${problem ?? lastInfo ?? "the cache service did not take it"}`);
        }
      } finally {
        rmSync(this.entryDir, { recursive: true, force: true });
      }
    });
  }

  /** The restored entry, or why it cannot be used. */
  private readEntry(pair: string, configRef: string): RemoteArtifact | string {
    let record: StoreRecord;
    let content: Buffer;
    try {
      record = JSON.parse(readFileSync(path.join(this.entryDir, "record.json"), "utf8")) as StoreRecord;
      content = readFileSync(path.join(this.entryDir, "content"));
    } catch (err) {
      return `unreadable: ${(err as Error).message}`;
    }
    if (record?.pair !== pair || record.configRef !== configRef || record.status !== "accepted") return "its record is for another artifact";
    if (typeof record.contentHash !== "string" || sha256Hex(content) !== record.contentHash) return "its content does not match its hash";
    return { record, content };
  }

  private turnOff(reason: string): void {
    if (this.disabled) return;
    this.disabled = reason;
    this.warn(
      `the GitHub Actions cache is not usable (${reason}); going on with the local store only, ` +
        `so nothing more is restored from or saved to the cache in this run`,
    );
  }

  private oneAtATime<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }
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
async function collectOutput<T>(
  task: () => Promise<T>,
): Promise<{ value: T | undefined; problem: string | undefined; lastInfo: string | undefined; text: string }> {
  hookStdout();
  const chunks: string[] = [];
  let value: T | undefined;
  try {
    value = await sink.run(chunks, task);
  } catch (err) {
    // Only a key or path the client finds invalid ends up here: a failure like any other.
    chunks.push(`::error::${(err as Error).message}\n`);
  }
  const text = chunks.join("");
  const problems: string[] = [];
  const failures: string[] = [];
  let lastInfo: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line === "") continue;
    const command = /^::([a-z-]+)(?: [^:]*)?::(.*)$/.exec(line);
    const message = command ? unescapeCommand(command[2]!) : line;
    if (command && (command[1] === "warning" || command[1] === "error")) problems.push(message);
    else if (message.startsWith("Failed")) failures.push(message);
    if (!command) lastInfo = message;
    core.debug(command && command[1] !== "debug" ? `${command[1]}: ${message}` : message);
  }
  // Warnings say what went wrong; a refused reservation is only logged, as "Failed ..." lines,
  // the first of which names the cause.
  const problem = problems.length > 0 ? problems.join("; ") : failures[0];
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
