/**
 * A store shared between machines (the GitHub Actions cache): accepted artifacts keyed by
 * (pair id, configRef). Every method degrades instead of failing: a store that cannot be reached
 * answers "not there", and a save that fails is a warning, never a failed run.
 */
import type { StoreRecord } from "./store.js";

export interface RemoteArtifact {
  /** An accepted record: contentHash is the sha256 of content. */
  record: StoreRecord;
  content: Buffer;
}

export interface RemoteStore {
  /** How it is named in messages, e.g. "the GitHub Actions cache". */
  readonly name: string;
  /** Whether an accepted artifact exists, without downloading it. */
  has(pair: string, configRef: string): Promise<boolean>;
  /** The artifact, already checked against its hash; undefined on a miss or any failure. */
  restore(pair: string, configRef: string): Promise<RemoteArtifact | undefined>;
  save(artifact: RemoteArtifact): Promise<void>;
}
