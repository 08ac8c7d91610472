/**
 * A run's scratch files, in a temporary directory made on the first file (a run whose guards read
 * no file makes none) and removed when the run ends.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Scratch } from "../model/ports.js";

export function scratchDir(): Scratch {
  let dir: string | undefined;
  return {
    file(name, content) {
      dir ??= mkdtempSync(path.join(tmpdir(), "pairflow-run-"));
      const file = path.join(dir, name);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    dispose() {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}
