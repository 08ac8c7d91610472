/**
 * A remote store as one invocation sees it: each (pair, configRef) is fetched at most once, so the
 * planner's lookups and the run's restores share one download, and a plan made with a remote store
 * is exactly what the run will find there.
 */
import type { RemoteArtifact, RemoteStore } from "../model/ports.js";
import type { StoreRecord } from "../model/records.js";

export class RemoteCache {
  private readonly fetched = new Map<string, Promise<RemoteArtifact | undefined>>();

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

  async record(pair: string, configRef: string): Promise<StoreRecord | undefined> {
    return (await this.fetch(pair, configRef))?.record;
  }

  save(artifact: RemoteArtifact): Promise<void> {
    this.fetched.set(`${artifact.record.pair}\0${artifact.record.configRef}`, Promise.resolve(artifact));
    return this.store.save(artifact);
  }
}
