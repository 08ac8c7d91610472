/**
 * The store shards of one fanned-out run share: a directory every shard process can read and write
 * (on one machine, or synchronised between jobs). It holds
 *
 *   store/                               a local store (content by hash, records by pair and configRef)
 *   shards/<fan-out>/<I>of<N>.json       what shard I of N did, written when it ends
 *   outbox/<I>of<N>/                     what shard I has accepted so far, for shards on other machines
 *   split/<fan-out>/split.json           the split the plan pinned for the fan-out, if it pinned one
 *
 * Shards on one machine meet in the directory itself. Shards in separate jobs each have their own
 * copy, kept in step by a SharedSync (see src/github/fanout.ts): a shard publishes its outbox, and
 * a shard waiting for another's pair brings that shard's latest outbox in.
 *
 * A shard writes what it accepts to the shared store, never to the workspace, the lock file or the
 * repository's own store: every shard plans against the same base state, so they all compute the
 * same split. `pairflow merge` folds the shared store back into the workspace, and so changes that
 * base state: a shard run again after it (a re-run of a failed job) would compute another split, so
 * a fan-out's plan can pin its split here, for its shards and its merge to read instead.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { ArtifactStore } from "../model/ports.js";
import type { StoreRecord, RequestEntry } from "../model/records.js";
import type { PinnedSplit, Shard, ShardResult, ShardSpec } from "../model/shard.js";
import { sha256Hex } from "../refs/hash.js";
import { readFileNoFollow, writeFileAtomic } from "../workspace/files.js";
import { LocalStore } from "./local.js";

/** Keeps copies of a shared store on separate machines in step. */
export interface SharedSync {
  /** Brings in what shard `owner` has published so far (its accepted artifacts, and its report once it ended). */
  pull(owner: ShardSpec): Promise<void>;
  /** Publishes this shard's outbox. */
  push(): Promise<void>;
}

/** Brings a fan-out's pinned split to shards on other machines. */
export interface SplitSync {
  /** Publishes the split written here (the plan does, once). */
  push(shared: SharedStore): Promise<void>;
  /** Brings the published split in, if there is one. */
  pull(shared: SharedStore): Promise<void>;
}

export type Awaited = { content: Buffer; contentHash: string; note: string } | { missing: string };

const POLL_MS = 200;
/** How often a waiting shard asks a SharedSync for the owner's latest outbox. */
export const PULL_EVERY_MS = 10_000;

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
    /**
     * In a fan-out whose jobs can be re-run one by one (a pinned one), the attempt this shard is
     * part of: another shard's report counts only if it is of the same attempt. A report of an
     * earlier attempt would say that shard failed while it is running again now; what it accepted
     * is taken whatever the attempt.
     */
    private readonly attempt?: string,
  ) {
    this.store = new LocalStore(path.join(dir, "store"), { shared: true });
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
      const current = Date.parse(value.endedAt) >= this.since && (this.attempt === undefined || value.attempt === this.attempt);
      return value.version === 1 && Array.isArray(value.outcomes) && current ? value : undefined;
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

  outboxDir(shard: ShardSpec): string {
    return path.join(this.dir, "outbox", `${shard.index}of${shard.count}`);
  }

  /**
   * Writes this shard's outbox: every record it accepted, the content they name, and its report
   * when it has one. Written whole each time, so the newest copy is all another machine needs.
   */
  writeOutbox(shard: ShardSpec, records: readonly StoreRecord[], result?: ShardResult): void {
    const dir = this.outboxDir(shard);
    for (const r of records) {
      const content = this.store.content(r.contentHash!);
      const file = path.join(dir, "objects", r.contentHash!);
      if (content && !existsSync(file)) writeFileAtomic(file, content);
    }
    writeFileAtomic(path.join(dir, "records.json"), JSON.stringify(records) + "\n");
    if (result) writeFileAtomic(path.join(dir, "result.json"), JSON.stringify(result) + "\n");
  }

  splitDir(): string {
    return path.join(this.dir, "split", safeName(this.fanout));
  }

  /** Pins the split of this fan-out. */
  writeSplit(split: PinnedSplit): void {
    writeFileAtomic(path.join(this.splitDir(), "split.json"), JSON.stringify(split) + "\n");
  }

  /** The split pinned for this fan-out, if one is here and well-formed. */
  readSplit(): PinnedSplit | undefined {
    const split = readJson(path.join(this.splitDir(), "split.json")) as PinnedSplit | undefined;
    const wellFormed = (s: Shard) =>
      Number.isInteger(s?.index) && s.count === split!.count && Array.isArray(s.pairs) && s.pairs.every((p) => typeof p === "string");
    if (split?.version !== 1 || split.fanout !== this.fanout || typeof split.workflowRef !== "string" || !Number.isInteger(split.count)) return undefined;
    return Array.isArray(split.shards) && split.shards.every(wellFormed) ? split : undefined;
  }

  /**
   * Takes in shard `owner`'s outbox as another machine published it: content checked against its
   * hash, records only with their content. Returns the accepted records it took in.
   */
  readOutbox(owner: ShardSpec): StoreRecord[] {
    const dir = this.outboxDir(owner);
    const records = readJson(path.join(dir, "records.json"));
    const taken: StoreRecord[] = [];
    if (Array.isArray(records)) {
      for (const r of records as StoreRecord[]) {
        if (r?.status !== "accepted" || typeof r.contentHash !== "string" || !/^[0-9a-f]{64}$/.test(r.contentHash)) continue;
        const file = path.join(dir, "objects", r.contentHash);
        if (!existsSync(file)) continue;
        let content: Buffer;
        try {
          content = readFileNoFollow(file); // never through a link, which could lead outside
        } catch {
          continue;
        }
        if (sha256Hex(content) !== r.contentHash) continue;
        this.store.putContent(content);
        this.store.putRecord(r);
        taken.push(r);
      }
    }
    const result = readJson(path.join(dir, "result.json")) as ShardResult | undefined;
    if (result?.version === 1 && result.index === owner.index && result.count === owner.count && Array.isArray(result.outcomes)) {
      mkdirSync(path.dirname(this.resultPath(owner)), { recursive: true });
      writeFileAtomic(this.resultPath(owner), JSON.stringify(result) + "\n");
    }
    return taken;
  }

  /** The accepted artifact of (pair, configRef), verified, once it is here. */
  accepted(pair: string, configRef: string): { record: StoreRecord; content: Buffer } | undefined {
    // A fresh view each time: another process writes while this one waits.
    const store = new LocalStore(this.store.dir, { shared: true });
    const record = store.record(pair, configRef);
    if (record?.status !== "accepted" || !record.contentHash) return undefined;
    const content = store.content(record.contentHash);
    return content && { record, content };
  }

  /**
   * Waits for the shard that owns a pair to accept it under this reference. Ends with the reason it
   * will not come when that shard ended without it, the wait ran out, or the signal aborted.
   */
  async await(
    pair: string,
    configRef: string,
    owner: ShardSpec,
    timeoutMs: number,
    signal: AbortSignal,
    sync?: { pull(owner: ShardSpec): Promise<void>; everyMs: number },
  ): Promise<Awaited> {
    const by = `shard ${owner.index}/${owner.count}`;
    const deadline = Date.now() + timeoutMs;
    let pulled = 0;
    for (;;) {
      if (sync && Date.now() - pulled >= sync.everyMs) {
        pulled = Date.now();
        await sync.pull(owner);
        this.readOutbox(owner);
      }
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
  /** The accepted records this shard wrote, in order: its outbox. */
  readonly written: StoreRecord[] = [];

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

  requests(key: string): RequestEntry[] {
    const shared = this.shared.requests(key);
    return [...shared, ...this.base.requests(key).filter((e) => !shared.some((s) => s.contentHash === e.contentHash))];
  }

  putRequest(key: string, entry: RequestEntry): void {
    this.shared.putRequest(key, entry);
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
    if (record.status === "accepted" && record.source !== "human") this.written.push(record);
  }
}

function readJson(file: string): unknown {
  try {
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
  } catch {
    return undefined;
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
