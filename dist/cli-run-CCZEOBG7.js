#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-6OMQRIYX.js";
import "./cli-chunk-S3SZ6O7Z.js";
import "./cli-chunk-ZU2H7R64.js";
import "./cli-chunk-2ZVESKJW.js";
import "./cli-chunk-VWCPAHPU.js";
import "./cli-chunk-6TGO2WHL.js";
import "./cli-chunk-4UGPZM22.js";
import "./cli-chunk-IUBVZYPS.js";
import "./cli-chunk-TEXKZ7JP.js";
import "./cli-chunk-CSPXBCVV.js";
import "./cli-chunk-U6MTM3RX.js";
import "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-RCDJWOPQ.js";
import "./cli-chunk-2ZCI4VI7.js";
import "./cli-chunk-YPOPDKQS.js";
import "./cli-chunk-LHZ5JPMA.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
