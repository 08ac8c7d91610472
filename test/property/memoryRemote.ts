import { createHash } from "node:crypto";
import type { Remote, RemoteArtifact } from "./driver.js";

/**
 * A remote store in memory, one entry per (pair, configRef). Like the GitHub Actions cache it
 * stands for, an entry is immutable: the first save of a key wins and later saves of the same key
 * are no-ops (the cache answers 409). Entries are copied in and out, and checked against their
 * hash on the way out, as a real store's are.
 */
export class MemoryRemote implements Remote {
  readonly name = "the in-memory remote store";
  private readonly entries = new Map<string, RemoteArtifact>();
  /** Every fetch, as "pair@ref12", for failure messages. */
  readonly fetches: string[] = [];

  async fetch(pair: string, configRef: string): Promise<RemoteArtifact | undefined> {
    this.fetches.push(`${pair}@${configRef.slice(0, 12)}`);
    const entry = this.entries.get(key(pair, configRef));
    if (!entry) return undefined;
    const content = Buffer.from(entry.content);
    if (createHash("sha256").update(content).digest("hex") !== entry.record.contentHash) return undefined;
    return { record: structuredClone(entry.record), content };
  }

  async save(artifact: RemoteArtifact): Promise<void> {
    const k = key(artifact.record.pair, artifact.record.configRef);
    if (this.entries.has(k)) return;
    this.entries.set(k, { record: structuredClone(artifact.record), content: Buffer.from(artifact.content) });
  }

  /** The entry's content hash, without counting a fetch. */
  peek(pair: string, configRef: string): string | undefined {
    return this.entries.get(key(pair, configRef))?.record.contentHash;
  }

  get size(): number {
    return this.entries.size;
  }

  /** An independent copy, for a run whose effects must not be seen. */
  clone(): MemoryRemote {
    const copy = new MemoryRemote();
    for (const [k, v] of this.entries) copy.entries.set(k, { record: structuredClone(v.record), content: Buffer.from(v.content) });
    return copy;
  }
}

function key(pair: string, configRef: string): string {
  return `${pair}\u0000${configRef}`;
}
