/**
 * The o200k_base token table the build writes beside the bundle (`dist/o200k_base.bin`, made by
 * src/estimate/rankTable.ts): read whole, no module to compile and no table to build.
 */
import { readFileSync } from "node:fs";

/** The packaged table's bytes; undefined where there is none (run from the sources), and the estimate makes it. */
export function readPackagedTokenTable(): Uint8Array | undefined {
  try {
    return readFileSync(new URL("./o200k_base.bin", import.meta.url));
  } catch {
    return undefined;
  }
}
