// `node --import <this file> conformance/dist/index.js ...`: registers the
// resolve hook of fs-glob-hook.mjs before the conformance bundle loads, so its
// top-level `import { globSync } from "fs"` links on Node 20 (globSync came in 22).
import { register } from 'node:module';

register('./fs-glob-hook.mjs', import.meta.url);
