#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-XUOLZKNI.js";
import "./cli-chunk-IFS3N3XQ.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-CZV3DMPE.js";
import "./cli-chunk-IDT7HJMW.js";
import "./cli-chunk-QVIJRE3L.js";
import "./cli-chunk-HR4H2KSM.js";
import "./cli-chunk-LUAEWNTO.js";
import "./cli-chunk-BR4FE2JL.js";
import "./cli-chunk-UW26TY3D.js";
import "./cli-chunk-KXFCEU3I.js";
import "./cli-chunk-PQWGCFOQ.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
