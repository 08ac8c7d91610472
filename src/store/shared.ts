/**
 * The store shards of one fanned-out run share: a directory every shard process can read and write
 * (on one machine, or synchronised between jobs). It holds
 *
 *   store/                               a local store (content by hash, records by pair and configRef)
 *   shards/<fan-out>/<I>of<N>.json       what shard I of N did, written when it ends
 *
 * A shard writes what it accepts to the shared store, never to the workspace, the lock file or the
 * repository's own store: every shard plans against the same base state, so they all compute the
 * same split. `pairflow merge` folds the shared store back into the workspace.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { ArtifactStore } from "../model/ports.js";
import type { StoreRecord } from "../model/records.js";
import type { ShardResult, ShardSpec } from "../model/shard.js";
import { writeFileAtomic } from "../workspace/files.js";
import { LocalStore } from "./local.js";

export type Awaited = { content: Buffer; contentHash: string; note: string } | { missing: string };

const POLL_MS = 200;

export class SharedStore {
  readonly store: LocalStore;

  constructor(
    readonly dir: string,
    /** Distinguishes the shards of one fan-out from an earlier one using the same directory. */
    readonly fanout: string,
    /**
     * Without a fan-out of its own (the default, "local"), a shard report counts only if it was
     * written after this process started: an earlier attempt's report would say its pair failed
     * while this attempt's owner is running it again.
     */
    private readonly since = 0,
  ) {
    this.store = new LocalStore(path.join(dir, "store"));
  }

  private resultPath(shard: ShardSpec): string {
    return path.join(this.dir, "shards", safeName(this.fanout), `${shard.index}of${shard.count}.json`);
  }

  /** A shard starting again forgets what it reported before, so nobody reads an old ending as this one's. */
  started(shard: ShardSpec): void {
    rmSync(this.resultPath(shard), { force: true });
  }

  finished(result: ShardResult): void {
    writeFileAtomic(this.resultPath(result), JSON.stringify(result, null, 2) + "\n");
  }

  result(shard: ShardSpec): ShardResult | undefined {
    const file = this.resultPath(shard);
    if (!existsSync(file)) return undefined;
    try {
      const value = JSON.parse(readFileSync(file, "utf8")) as ShardResult;
      return value.version === 1 && Array.isArray(value.outcomes) && Date.parse(value.endedAt) >= this.since ? value : undefined;
    } catch {
      return undefined; // being written by a process that died: as if not there
    }
  }

  /** Every shard result of this fan-out. */
  results(): ShardResult[] {
    const dir = path.join(this.dir, "shards", safeName(this.fanout));
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .map((name) => /^(\d+)of(\d+)\.json$/.exec(name))
      .flatMap((m) => (m ? [this.result({ index: Number(m[1]), count: Number(m[2]) })].filter((r) => r !== undefined) : []));
  }

  /** The accepted artifact of (pair, configRef), verified, once it is here. */
  accepted(pair: string, configRef: string): { record: StoreRecord; content: Buffer } | undefined {
    // A fresh view each time: another process writes while this one waits.
    const store = new LocalStore(this.store.dir);
    const record = store.record(pair, configRef);
    if (record?.status !== "accepted" || !record.contentHash) return undefined;
    const content = store.content(record.contentHash);
    return content && { record, content };
  }

  /**
   * Waits for the shard that owns a pair to accept it under this reference. Ends with the reason it
   * will not come when that shard ended without it, the wait ran out, or the signal aborted.
   */
  async await(pair: string, configRef: string, owner: ShardSpec, timeoutMs: number, signal: AbortSignal): Promise<Awaited> {
    const by = `shard ${owner.index}/${owner.count}`;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.accepted(pair, configRef);
      if (got) return { content: got.content, contentHash: got.record.contentHash!, note: `executed by ${by}` };
      const ended = this.result(owner);
      if (ended) {
        const outcome = ended.outcomes.find((o) => o.id === pair);
        const why = outcome ? `${outcome.status}${outcome.note ? `: ${outcome.note}` : ""}` : "it did not reach it";
        return { missing: `${by} ended without accepting it (${why})` };
      }
      if (signal.aborted) return { missing: "not received: the run was interrupted" };
      if (Date.now() >= deadline) return { missing: `${by} did not deliver it within ${Math.round(timeoutMs / 1000)} s` };
      await sleep(POLL_MS, signal);
    }
  }
}

/**
 * What a shard reads and writes as its store: the repository's store and the shared one are read,
 * only the shared one is written.
 */
export class ShardStore implements ArtifactStore {
  constructor(
    private readonly base: LocalStore,
    private readonly shared: LocalStore,
  ) {}

  record(pair: string, configRef: string): StoreRecord | undefined {
    const a = this.base.record(pair, configRef);
    if (a?.status === "accepted") return a;
    return this.shared.record(pair, configRef) ?? a;
  }

  content(hash: string): Buffer | undefined {
    return this.base.content(hash) ?? this.shared.content(hash);
  }

  hasContent(hash: string): boolean {
    return this.base.hasContent(hash) || this.shared.hasContent(hash);
  }

  generatedHashes(pair: string): ReadonlySet<string> {
    return new Set([...this.base.generatedHashes(pair), ...this.shared.generatedHashes(pair)]);
  }

  putContent(data: Buffer | string): string {
    return this.shared.putContent(data);
  }

  putRecord(record: StoreRecord): void {
    this.shared.putRecord(record);
  }
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100) || "local";
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
