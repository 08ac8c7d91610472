#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-LK4VXRK2.js";
import "./cli-chunk-VUP74IA3.js";
import "./cli-chunk-BXOCKQQM.js";
import "./cli-chunk-TVGC4GON.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-D6X4NFGF.js";
import "./cli-chunk-UIMONIIS.js";
import "./cli-chunk-YDZ4Y5JO.js";
import "./cli-chunk-WEEVMP7R.js";
import "./cli-chunk-GTPWTXJM.js";
import "./cli-chunk-N7XHGNSD.js";
import "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-R6DGXHK4.js";
import "./cli-chunk-RF2XL6UB.js";
import "./cli-chunk-LYWOGVDQ.js";
import "./cli-chunk-7P27LGL5.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
