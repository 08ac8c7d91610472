#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-DI3LKR6N.js";
import "./cli-chunk-EA2C36MW.js";
import "./cli-chunk-YRL7E7NO.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-CHMX6FUH.js";
import "./cli-chunk-NRWNOCG2.js";
import "./cli-chunk-W2VOUWJJ.js";
import "./cli-chunk-WTATOFIX.js";
import "./cli-chunk-CNINMKML.js";
import "./cli-chunk-5OLBMHOF.js";
import "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-E56QDU2T.js";
import "./cli-chunk-G7JFRQSO.js";
import "./cli-chunk-IAOBUDFL.js";
import "./cli-chunk-ZENHFI5Z.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
