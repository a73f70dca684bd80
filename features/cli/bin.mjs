#!/usr/bin/env node
// The package bin `mev-commit-conformance`: runs the suite's command (conformance.ts) with the Bun that this
// package depends on, wherever the package is installed (PATH may not have it).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
let bun;
try {
  bun = join(dirname(require.resolve("bun/package.json")), "bin", "bun.exe"); // the npm package names its binary bun.exe on every platform
} catch {
  bun = "bun"; // a global Bun
}
const r = spawnSync(bun, [join(here, "conformance.ts"), ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(r.status ?? (r.error ? 127 : 1));
