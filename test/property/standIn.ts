import { createHash } from "node:crypto";
import type { Generator } from "./driver.js";

/** The generator name the property's workflows use: one pairflow does not ship. */
export const STAND_IN = "stand_in";

/**
 * A generator that needs no model. Its artifact is the pair id, a digest of the rendered prompt
 * (which holds the dependencies' accepted content, so a change upstream changes every artifact
 * downstream), the pair's marker and two more lines guards may ask for. For a pair whose prompt
 * says "flaky" the first attempt lacks the marker, so guards reject it and the pair retries.
 * Nondeterministic: each execution of a pair also numbers itself, so no two executions anywhere
 * give the same bytes.
 */
export function standIn(nondeterministic: boolean): Generator {
  const executions = new Map<string, number>();
  return async ({ pairId, attempt, prompt }) => {
    const lines = [pairId, `prompt ${createHash("sha256").update(prompt).digest("hex").slice(0, 16)}`];
    if (!(attempt === 1 && /\bflaky\b/.test(prompt))) lines.push(marker(pairId));
    lines.push(`EXTRA-${pairId}`, `ALSO-${pairId}`);
    if (nondeterministic) {
      const n = (executions.get(pairId) ?? 0) + 1;
      executions.set(pairId, n);
      lines.push(`execution ${n}`);
    }
    return { content: lines.join("\n") + "\n" };
  };
}

export function marker(pairId: string): string {
  return `MARK-${pairId}`;
}
