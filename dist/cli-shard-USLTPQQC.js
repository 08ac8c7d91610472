#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  fanOutOptions,
  registerMerge,
  shardOption,
  shardWaitOption,
  shardsJson,
  shardsText
} from "./cli-chunk-62ZLHM3P.js";
import "./cli-chunk-UC6UFBNK.js";
import "./cli-chunk-JUCYSEDQ.js";
import "./cli-chunk-KCDYBJEW.js";
import "./cli-chunk-QJWUC4LB.js";
import "./cli-chunk-E5GZRQ2A.js";
import "./cli-chunk-URIOYQH2.js";
import "./cli-chunk-4O5QGKLQ.js";
import "./cli-chunk-MV7565KH.js";
import "./cli-chunk-ZU5HXHGO.js";
import "./cli-chunk-UIX3AW3C.js";
import "./cli-chunk-2IZ7KZWJ.js";
import "./cli-chunk-4XZ3ROSU.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  fanOutOptions,
  registerMerge,
  shardOption,
  shardWaitOption,
  shardsJson,
  shardsText
};
