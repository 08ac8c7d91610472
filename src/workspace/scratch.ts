/** A run's scratch files, in a fresh temporary directory removed when the run ends. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Scratch } from "../model/ports.js";

export function scratchDir(): Scratch {
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-run-"));
  return {
    file(name, content) {
      const file = path.join(dir, name);
      writeFileSync(file, content);
      return file;
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
