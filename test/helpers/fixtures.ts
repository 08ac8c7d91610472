import { cpSync, mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Third-party workflow files and configRef vectors, copied with their licenses (see test/fixtures/README.md). */
export const FIXTURES = path.join(REPO, "test/fixtures");

/** A fresh directory that looks like a repository root (it holds .git), with the given files. */
export function tempRepo(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-test-"));
  mkdirSync(path.join(dir, ".git"));
  writeFiles(dir, files);
  return dir;
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

/**
 * A copy of a directory inside a fresh temporary repository: its sources only, never what a run of
 * it left there (outputs, lock file, state), so running an example by hand changes no test.
 */
export function copyToTempRepo(source: string, files: Record<string, string> = {}): string {
  const dir = tempRepo();
  copySources(source, dir);
  writeFiles(dir, files);
  return dir;
}

/** Copies an example's sources, leaving out what a run of it left there: outputs, lock file, state. */
export function copySources(source: string, dest: string): void {
  const left = /(^|\/)(out|\.pairflow)(\/|$)|\.lock\.json$/;
  cpSync(source, dest, { recursive: true, filter: (src) => !left.test(path.relative(source, src).split(path.sep).join("/")) });
}

/**
 * The environment for runs whose commands record what they did inside the repository (a calls.log,
 * a marker file): the sandbox keeps the repository read-only to commands (docs/security.md), so
 * these runs start them unconfined. The sandbox's own tests are in test/security/.
 */
export const UNCONFINED: Readonly<Record<string, string>> = { PAIRFLOW_SANDBOX: "off" };
