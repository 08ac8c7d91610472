// The action's entry point (action.yml: runs.main = dist/index.js, bundled by scripts/build.mjs).
import * as core from "@actions/core";
import { runAction } from "./action.js";

try {
  await runAction();
} catch (err) {
  // Anything else is a bug in pairflow: say what happened, with the stack in the debug log.
  core.debug((err as Error)?.stack ?? String(err));
  core.setFailed(`pairflow: ${(err as Error)?.message ?? String(err)}`);
}
