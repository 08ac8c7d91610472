#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-6YFSCUHA.js";
import "./cli-chunk-TY4ZNXKW.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-5QILHF4M.js";
import "./cli-chunk-3AN5DUFV.js";
import "./cli-chunk-27Y2ETWM.js";
import "./cli-chunk-YTFXY2QI.js";
import "./cli-chunk-L7GLNSQP.js";
import "./cli-chunk-LLTFTXJP.js";
import "./cli-chunk-3OYP3H46.js";
import "./cli-chunk-A54IUGES.js";
import "./cli-chunk-VSHTR6QF.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
