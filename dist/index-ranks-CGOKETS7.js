import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import "./index-chunk-YGZKRGIO.js";

// packaged-ranks:ranks
var ranks_default = void 0;
export {
  ranks_default as default
};
