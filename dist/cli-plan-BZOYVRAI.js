#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-L5Q2DDVW.js";
import "./cli-chunk-Q4PR24PR.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-CZV3DMPE.js";
import "./cli-chunk-HR42LUFU.js";
import "./cli-chunk-5NFU7MEY.js";
import "./cli-chunk-4V4RQWVU.js";
import "./cli-chunk-LUAEWNTO.js";
import "./cli-chunk-PKXSP7PJ.js";
import "./cli-chunk-JD5XKIRO.js";
import "./cli-chunk-KXFCEU3I.js";
import "./cli-chunk-PQWGCFOQ.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
