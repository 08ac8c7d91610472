#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-UVCQGFKA.js";
import "./cli-chunk-CONOFSGA.js";
import "./cli-chunk-MT75YRSK.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-DY6RRQ6Q.js";
import "./cli-chunk-6YSSTCJN.js";
import "./cli-chunk-X4J2UYRU.js";
import "./cli-chunk-4PRO2ZWK.js";
import "./cli-chunk-2E6W6ZDS.js";
import "./cli-chunk-AUAXHXTO.js";
import "./cli-chunk-KHNNF3XO.js";
import "./cli-chunk-2H4FS6GE.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
