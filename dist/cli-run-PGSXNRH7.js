#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-P3XDYMK4.js";
import "./cli-chunk-44Z22GO4.js";
import "./cli-chunk-S55PXUJK.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-4NIAO27Y.js";
import "./cli-chunk-VQMAPN72.js";
import "./cli-chunk-45MZJAHL.js";
import "./cli-chunk-K2TZTJYP.js";
import "./cli-chunk-GD34DPJ2.js";
import "./cli-chunk-QWO7HAZU.js";
import "./cli-chunk-3DTZP4JL.js";
import "./cli-chunk-IBQJ6QCZ.js";
import "./cli-chunk-C6S6WVK6.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
