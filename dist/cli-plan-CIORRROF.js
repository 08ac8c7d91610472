#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-QT6WQCRO.js";
import "./cli-chunk-NK7Z3III.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-DY6RRQ6Q.js";
import "./cli-chunk-6YW7XZBJ.js";
import "./cli-chunk-RJYQJDGP.js";
import "./cli-chunk-SBQCINDF.js";
import "./cli-chunk-HM5ZRWL2.js";
import "./cli-chunk-FSN4436C.js";
import "./cli-chunk-H57LYI3R.js";
import "./cli-chunk-IBQJ6QCZ.js";
import "./cli-chunk-2H4FS6GE.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
