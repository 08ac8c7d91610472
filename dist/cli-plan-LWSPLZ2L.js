#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-6NZ6JSCS.js";
import "./cli-chunk-TBTM4MGX.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-DY6RRQ6Q.js";
import "./cli-chunk-Y544JRVU.js";
import "./cli-chunk-S7WH4BEV.js";
import "./cli-chunk-243CCCVG.js";
import "./cli-chunk-2E6W6ZDS.js";
import "./cli-chunk-FOQLJCHT.js";
import "./cli-chunk-QKHRRINN.js";
import "./cli-chunk-2H4FS6GE.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
