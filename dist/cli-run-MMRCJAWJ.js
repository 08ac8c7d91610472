#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-QCJYHMUO.js";
import "./cli-chunk-ZEF5XQSQ.js";
import "./cli-chunk-C4NUOOOV.js";
import "./cli-chunk-QI54TGC3.js";
import "./cli-chunk-DVNYZBVB.js";
import "./cli-chunk-YKCOEDJA.js";
import "./cli-chunk-7EPJDDRS.js";
import "./cli-chunk-EP2CLUCA.js";
import "./cli-chunk-6UFAMRF2.js";
import "./cli-chunk-VWW5TM7K.js";
import "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-PLNGSJXI.js";
import "./cli-chunk-RZP2DAPF.js";
import "./cli-chunk-FXVKKO2N.js";
import "./cli-chunk-E7Q4V3C4.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
