import { expect, test } from "bun:test";

// Bun runs every test file in one process, so another file may already have initialised the
// backend: check the uninitialised behaviour in a fresh process.
test("group operations before initCrypto() throw a named error", () => {
  const script = `
    const { g1MulBase } = await import(${JSON.stringify(`${import.meta.dir}/bn254.ts`)});
    try { g1MulBase(5n); console.log('no error'); } catch (e) { console.log(e.name + ': ' + e.message); }
  `;
  const out = Bun.spawnSync([process.execPath, "-e", script]);
  const text = out.stdout.toString();
  expect(text).toContain("CryptoNotInitializedError");
  expect(text).toContain("initCrypto()");
});
