#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-LDDFC6J7.js";
import "./cli-chunk-HUT26Q5J.js";
import "./cli-chunk-IJCSZRBO.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-JQWGXH2G.js";
import "./cli-chunk-P7WTX5HW.js";
import "./cli-chunk-FW4D2SGO.js";
import "./cli-chunk-NHDQJCUY.js";
import "./cli-chunk-7MSFJV2Y.js";
import "./cli-chunk-JTMXJWFJ.js";
import "./cli-chunk-MV7565KH.js";
import "./cli-chunk-625MYMOH.js";
import "./cli-chunk-LYFSHVIZ.js";
import "./cli-chunk-SCEEUY6E.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
