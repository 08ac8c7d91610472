import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical.js";

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 of a value's canonical JSON: the one way pairflow fingerprints structured data. */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** The first 12 hex digits of a reference, as shown to people. */
export function shortRef(ref: string | null): string {
  return ref === null ? "?" : ref.slice(0, 12);
}
