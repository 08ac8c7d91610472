#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-DHAYJTUQ.js";
import "./cli-chunk-6L47CSHN.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-RJVF3L7R.js";
import "./cli-chunk-CWHHMGJD.js";
import "./cli-chunk-OZ46ACLE.js";
import "./cli-chunk-4625N2VM.js";
import "./cli-chunk-FT3WYQCM.js";
import "./cli-chunk-MDUAO3QT.js";
import "./cli-chunk-MV7565KH.js";
import "./cli-chunk-DLBQ3WW5.js";
import "./cli-chunk-GIXIOG57.js";
import "./cli-chunk-JRMGJKZE.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
