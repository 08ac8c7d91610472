#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-ALIG2L4Y.js";
import "./cli-chunk-L6RLO4F4.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-Z6LHIQUI.js";
import "./cli-chunk-N3KES4SB.js";
import "./cli-chunk-CKD7XPZ5.js";
import "./cli-chunk-GTIWRW67.js";
import "./cli-chunk-K6BA2PYX.js";
import "./cli-chunk-ZOABHFKD.js";
import "./cli-chunk-XEI45I4V.js";
import "./cli-chunk-WQNNZHJ6.js";
import "./cli-chunk-7PNCL7I5.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
