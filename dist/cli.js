#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  package_default
} from "./cli-chunk-DM52N67H.js";
import {
  startTiming
} from "./cli-chunk-VWCPAHPU.js";
import "./cli-chunk-FRV2UMY2.js";

// src/cli/main.ts
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err) => {
    if (err.code !== "EPIPE") throw err;
    stream.write = (() => true);
  });
}
var argv = process.argv.slice(2);
startTiming(process.env, argv);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${package_default.version}
`);
} else {
  const { runCli } = await import("./cli-program-VANAAOT6.js");
  process.exitCode = await runCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env
  });
}
