#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-E6IUJ46F.js";
import "./cli-chunk-QILSV2TF.js";
import "./cli-chunk-6SDVUWYO.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-GWXQPQKB.js";
import "./cli-chunk-F2XXK7YL.js";
import "./cli-chunk-5HBDWES2.js";
import "./cli-chunk-6XYYMHM6.js";
import "./cli-chunk-4GFFP5NS.js";
import "./cli-chunk-D4XI4QAM.js";
import "./cli-chunk-ORKHIUQ2.js";
import "./cli-chunk-7XSAPEIW.js";
import "./cli-chunk-WNU7MVIX.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
