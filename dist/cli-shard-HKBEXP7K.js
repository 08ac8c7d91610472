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
} from "./cli-chunk-5H57QYG7.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-QBH6N7Y2.js";
import "./cli-chunk-3ANEISBY.js";
import "./cli-chunk-KH762KP3.js";
import "./cli-chunk-KIKGFXIW.js";
import "./cli-chunk-LMY4MBOD.js";
import "./cli-chunk-L5PZGOZN.js";
import "./cli-chunk-2AHEYELG.js";
import "./cli-chunk-IBQJ6QCZ.js";
import "./cli-chunk-QT3RU6UR.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  fanOutOptions,
  registerMerge,
  shardOption,
  shardWaitOption,
  shardsJson,
  shardsText
};
