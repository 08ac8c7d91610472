/**
 * A run's scratch files, in a temporary directory made on the first file (a run whose guards read
 * no file makes none) and removed when the run ends.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
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

/**
 * Removes a directory without making the caller wait: removing one a sandbox had mounted waits for
 * the kernel to detach it from namespaces that are still going away, which under load takes
 * milliseconds the run's one thread would otherwise spend blocked. Whatever is still being removed
 * when the process exits is removed then.
 */
export function removeInBackground(dir: string): void {
  pending.add(dir);
  if (pending.size === 1 && !exitHook) {
    exitHook = true;
    process.on("exit", () => {
      for (const left of pending) rmSync(left, { recursive: true, force: true });
    });
  }
  void rm(dir, { recursive: true, force: true })
    .catch(() => rmSync(dir, { recursive: true, force: true }))
    .finally(() => pending.delete(dir));
}

const pending = new Set<string>();
let exitHook = false;
