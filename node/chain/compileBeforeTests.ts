/**
 * Preloaded by `bun test` (bunfig.toml): compiles the contracts once, before any test file runs. On a fresh clone
 * that compile (solc-js, synchronous) takes 10 to 40 s on a 2-core machine; done inside whichever test hook first
 * needs the contracts, it would eat that hook's deadline and freeze every server and timer of the process meanwhile.
 */
import { compileContracts } from "./compile.ts";
import { compileV12Contracts } from "./compileV12.ts";

const t0 = performance.now();
await compileContracts();
await compileV12Contracts();
const s = (performance.now() - t0) / 1000;
if (s > 1)
  console.log(
    `contracts compiled before the tests in ${s.toFixed(1)} s (cached in .cache/contracts for the next runs)`,
  );
