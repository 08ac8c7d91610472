#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-R6GJGR6K.js";
import "./cli-chunk-BSRPLAFJ.js";
import "./cli-chunk-DLIH6KAZ.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-4NIAO27Y.js";
import "./cli-chunk-VV53F2QS.js";
import "./cli-chunk-SPVGBVXC.js";
import "./cli-chunk-G7X64G2N.js";
import "./cli-chunk-GD34DPJ2.js";
import "./cli-chunk-PHA3PXZP.js";
import "./cli-chunk-MUMV3OQ2.js";
import "./cli-chunk-IBQJ6QCZ.js";
import "./cli-chunk-C6S6WVK6.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
