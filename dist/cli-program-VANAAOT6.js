#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  package_default
} from "./cli-chunk-DM52N67H.js";
import {
  SHOWN_PER_FILE,
  issueLines
} from "./cli-chunk-VJSIQDDU.js";
import {
  mark
} from "./cli-chunk-VWCPAHPU.js";
import {
  count
} from "./cli-chunk-PW37734U.js";
import {
  styleFor
} from "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-YKULHKX5.js";
import "./cli-chunk-FEFDJVE6.js";
import {
  visible
} from "./cli-chunk-7NHSQKXA.js";
import {
  Command,
  CommanderError,
  ConfigError,
  EXIT,
  InputError,
  StorageError,
  UsageError,
  checkStateDir
} from "./cli-chunk-BXCSBTXN.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";

// src/cli/program.ts
var COMMANDS = [
  [["init"], async () => (await import("./cli-init-HTSTIGJO.js")).registerInit],
  [["validate"], async () => (await import("./cli-validate-RZ3OA4PO.js")).registerValidate],
  [["plan"], async () => (await import("./cli-plan-BYVFYCGE.js")).registerPlan],
  [["diff"], async () => (await import("./cli-diff-ZGE6VPV7.js")).registerDiff],
  [["run", "resume"], async () => (await import("./cli-run-KEANR6N2.js")).registerRun],
  [["prompt"], async () => (await import("./cli-prompt-XDL2WSJY.js")).registerPrompt],
  [["explain"], async () => (await import("./cli-explain-JYVYWBYK.js")).registerExplain],
  [["adopt"], async () => (await import("./cli-adopt-GUYPIAC6.js")).registerAdopt],
  [["runs", "show", "prune"], async () => (await import("./cli-history-UBA3GRGQ.js")).registerHistory],
  [["merge-lock"], async () => (await import("./cli-mergeLock-SKZYQC4H.js")).registerMergeLock],
  [["merge"], async () => (await import("./cli-shard-QHOFMH6Q.js")).registerMerge]
];
async function runCli(argv, io) {
  let status = EXIT.ok;
  let json = false;
  const context = { io, setStatus: (s) => status = s };
  const program = new Command("pairflow").description("Plan and run workflows of LLM action pairs, re-running only the pairs whose inputs changed.").version(package_default.version, "-V, --version").showHelpAfterError("(run with --help for usage)").configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) }).exitOverride().hook("preAction", (_, command) => {
    json = command.opts().json === true;
    checkStateDir(command, io);
  });
  const given = COMMANDS.find(([names]) => names.includes(argv[0] ?? ""));
  for (const [, load] of given ? [given] : COMMANDS) (await load())(program, context);
  mark("loaded");
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    status = handleError(err, io, json);
  }
  return status;
}
function handleError(err, io, json) {
  if (err instanceof CommanderError) {
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  const style = styleFor(io.stderr, io.env);
  if (err instanceof ConfigError) {
    for (const line of issueLines(err.issues, style.red("error"), json ? Infinity : SHOWN_PER_FILE)) io.stderr.write(line + "\n");
    const files = new Set(err.issues.map((i) => i.file)).size;
    io.stderr.write(`${count(err.issues.length, "problem")} in ${count(files, "file")}
`);
    return EXIT.usage;
  }
  if (err instanceof UsageError || err instanceof InputError) {
    io.stderr.write(`${style.red("error")} ${visible(err.message)}
`);
    return EXIT.usage;
  }
  if (err instanceof StorageError) {
    io.stderr.write(`${style.red("error")} ${visible(err.message)}
`);
    return EXIT.failed;
  }
  throw err;
}
export {
  EXIT,
  runCli
};
