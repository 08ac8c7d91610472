/**
 * Before any test: the package users install and the action runners start, made from the sources
 * as they are now, so no test ever runs a stale dist/.
 *
 * - `stage/` holds what `npm pack` publishes from this checkout (package.json's `files`), with
 *   dist/ freshly built by scripts/build.mjs, and action.yml beside it: it is also the action's
 *   checkout, whose dist/index.js a runner starts.
 * - `pairflow-<version>.tgz` is `npm pack` of it, and `user/` a scratch project that installed
 *   that tarball offline, as `npm install --save-dev pairflow` would: the CLI the tests run is
 *   `user/node_modules/pairflow/dist/cli.js`.
 *
 * The paths reach the tests through `inject` (see test/helpers/package.ts).
 *
 * Every temporary file of the suite, its tests' and the commands' they start, goes under one
 * directory (TMPDIR, which the workers inherit), removed at the end: a run of the suite leaves
 * nothing behind in the machine's /tmp.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

const REPO = path.resolve(import.meta.dirname, "../..");

export interface ShippedPackage {
  /** The published files with a fresh dist/ (and action.yml): the action's checkout. */
  stage: string;
  /** The packed tarball. */
  tarball: string;
  /** The scratch project it is installed in. */
  user: string;
  /** The installed package's directory, user/node_modules/pairflow. */
  installed: string;
  /** Seconds the offline install took. */
  installSeconds: number;
}

declare module "vitest" {
  export interface ProvidedContext {
    shipped: ShippedPackage;
  }
}

const npmArgs = (args: string[]) => [...args, "--no-audit", "--no-fund", "--loglevel=error"];
const npm = (args: string[], cwd: string) => execFileSync("npm", npmArgs(args), { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

export default async function setup(project: TestProject): Promise<() => void> {
  const scratch = mkdtempSync(path.join(tmpdir(), "pairflow-suite-"));
  process.env.TMPDIR = scratch;
  const root = mkdtempSync(path.join(scratch, "pairflow-shipped-"));
  const stage = path.join(root, "stage");
  // Nothing runs beside this setup: what npm would publish (less dist/, which comes from the build
  // instead) is listed while the build runs, each taking a core.
  const [dryRun] = await Promise.all([
    promisify(execFile)("npm", npmArgs(["pack", "--dry-run", "--json", "--ignore-scripts"]), { cwd: REPO, encoding: "utf8" }),
    promisify(execFile)(process.execPath, [path.join(REPO, "scripts/build.mjs"), "--outdir", path.join(stage, "dist")], { cwd: REPO }).then(({ stderr }) => {
      if (stderr) process.stderr.write(stderr);
    }),
  ]);
  const [listed] = JSON.parse(dryRun.stdout) as { files: { path: string }[] }[];
  for (const { path: file } of listed!.files) {
    if (file.startsWith("dist/")) continue;
    mkdirSync(path.dirname(path.join(stage, file)), { recursive: true });
    cpSync(path.join(REPO, file), path.join(stage, file));
  }
  cpSync(path.join(REPO, "action.yml"), path.join(stage, "action.yml"));

  const [packed] = JSON.parse(npm(["pack", "--json", "--ignore-scripts", "--pack-destination", root], stage)) as { filename: string }[];
  const tarball = path.join(root, packed!.filename);
  const user = path.join(root, "user");
  mkdirSync(user);
  writeFileSync(path.join(user, "package.json"), JSON.stringify({ name: "scratch-project", version: "1.0.0", private: true }) + "\n");
  const started = process.hrtime.bigint();
  npm(["install", "--offline", "--save-dev", tarball], user);
  const installSeconds = Number(process.hrtime.bigint() - started) / 1e9;

  project.provide("shipped", { stage, tarball, user, installed: path.join(user, "node_modules", "pairflow"), installSeconds });
  return () => rmSync(scratch, { recursive: true, force: true });
}
