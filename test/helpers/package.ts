/**
 * What the tests run end to end: the package as users install it and the action as runners start
 * it, both built from the sources by test/setup/package.ts before any test.
 */
import path from "node:path";
import { inject } from "vitest";
import { REPO } from "./fixtures.js";

/**
 * Under vitest, what test/setup/package.ts built and installed. Outside it (npm run bench reuses the
 * action's runner), the repository's own dist/, which the bench asks to be built first.
 */
export const shipped = process.env.VITEST ? inject("shipped") : { stage: REPO, installed: REPO, tarball: "", user: REPO, installSeconds: Number.NaN };

/** The CLI of the installed package: node_modules/pairflow/dist/cli.js of a scratch project. */
export const CLI = path.join(shipped.installed, "dist", "cli.js");

/** The bundled action, in a checkout of the action beside its action.yml. */
export const ACTION = path.join(shipped.stage, "dist", "index.js");
