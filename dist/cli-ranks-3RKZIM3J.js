#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import "./cli-chunk-FRV2UMY2.js";

// packaged-ranks:ranks
var ranks_default = void 0;
export {
  ranks_default as default
};
