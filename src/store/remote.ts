/**
 * A remote store as one invocation sees it: each (pair, configRef) is looked up and fetched at most
 * once, so the planner's lookups and the run's restores share one answer, and a plan made with a
 * remote store is exactly what the run will find there. A store that can tell a record without its
 * content (a snapshot's manifest) answers the planner's lookups without downloading any content.
 */
import type { RemoteArtifact, RemoteStore } from "../model/ports.js";
import type { BatchRecord, LockFile, RequestEntry, StoreRecord } from "../model/records.js";
import { sha256Hex } from "../refs/hash.js";

export class RemoteCache {
  private readonly fetched = new Map<string, Promise<RemoteArtifact | undefined>>();
  private readonly looked = new Map<string, Promise<StoreRecord | undefined>>();

  constructor(readonly store: RemoteStore) {}

  get name(): string {
    return this.store.name;
  }

  fetch(pair: string, configRef: string): Promise<RemoteArtifact | undefined> {
    const key = `${pair}\0${configRef}`;
    let found = this.fetched.get(key);
    if (!found) {
      // A store that fails answers "not there": the remote store is an optimisation.
      found = this.store.fetch(pair, configRef).then(
        (a) => (a && a.record.pair === pair && a.record.configRef === configRef && a.record.status === "accepted" ? a : undefined),
        () => undefined,
      );
      this.fetched.set(key, found);
    }
    return found;
  }

  record(pair: string, configRef: string): Promise<StoreRecord | undefined> {
    const store = this.store;
    if (!store.lookup) return this.fetch(pair, configRef).then((a) => a?.record);
    const key = `${pair}\0${configRef}`;
    let found = this.looked.get(key);
    if (!found) {
      found = store.lookup(pair, configRef).then(
        (r) => (r && r.pair === pair && r.configRef === configRef && r.status === "accepted" ? r : undefined),
        () => undefined,
      );
      this.looked.set(key, found);
    }
    return found;
  }

  /** The accepted state the store holds for the workflow, as a lock file (see RemoteStore.acceptedState). */
  acceptedState(): LockFile | null {
    try {
      return this.store.acceptedState?.() ?? null;
    } catch {
      return null;
    }
  }

  /** What the store holds for this request; none when it cannot tell, or fails. */
  requests(key: string): RequestEntry[] {
    try {
      return this.store.requests?.(key) ?? [];
    } catch {
      return [];
    }
  }

  /** A request index entry's content, checked against its hash; undefined on a miss or any failure. */
  async requestContent(hash: string): Promise<Buffer | undefined> {
    try {
      const content = await this.store.requestContent?.(hash);
      return content !== undefined && sha256Hex(content) === hash ? content : undefined;
    } catch {
      return undefined;
    }
  }

  saveRequest(key: string, entry: RequestEntry, content: Buffer): void {
    this.store.saveRequest?.(key, entry, content);
  }

  /** The provider batches the store holds as not yet done with; none when it cannot tell, or fails. */
  batches(): BatchRecord[] {
    try {
      return this.store.batches?.() ?? [];
    } catch {
      return [];
    }
  }

  saveSoon(): void {
    this.store.saveSoon?.();
  }

  save(artifact: RemoteArtifact): Promise<void> {
    const key = `${artifact.record.pair}\0${artifact.record.configRef}`;
    this.fetched.set(key, Promise.resolve(artifact));
    this.looked.set(key, Promise.resolve(artifact.record));
    return this.store.save(artifact);
  }
}
