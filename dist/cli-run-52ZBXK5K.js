#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-GVNG5KZW.js";
import "./cli-chunk-KGNECTXB.js";
import "./cli-chunk-IIFQMGGM.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-4EBNZUFM.js";
import "./cli-chunk-3GIRFR64.js";
import "./cli-chunk-AB3ZLH5W.js";
import "./cli-chunk-NNSXYUJ4.js";
import "./cli-chunk-JE4CQZ4T.js";
import "./cli-chunk-CGV36YM3.js";
import "./cli-chunk-MV7565KH.js";
import "./cli-chunk-DKBTEMJJ.js";
import "./cli-chunk-Z7UTM4DK.js";
import "./cli-chunk-66YZGW5O.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
