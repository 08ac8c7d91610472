import { componentsOf, type LockEntry } from "../../src/model/records.js";

/** Entries with their components decoded, as a comparison with entries made in a test needs. */
export function decoded(pairs: Record<string, LockEntry> | undefined): Record<string, LockEntry> | undefined {
  if (pairs === undefined) return undefined;
  return Object.fromEntries(Object.entries(pairs).map(([id, e]) => [id, { ...e, components: componentsOf(e) }]));
}
