#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-YCPPYU2I.js";
import "./cli-chunk-LVP2GPNS.js";
import "./cli-chunk-KDZG4RQ3.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-DY6RRQ6Q.js";
import "./cli-chunk-XOGPZ65J.js";
import "./cli-chunk-MBSCINKD.js";
import "./cli-chunk-2TALGR5D.js";
import "./cli-chunk-2E6W6ZDS.js";
import "./cli-chunk-PNS5232O.js";
import "./cli-chunk-LESJSQXQ.js";
import "./cli-chunk-2H4FS6GE.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
