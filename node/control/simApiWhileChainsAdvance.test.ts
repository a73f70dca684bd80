/**
 * The control API reads both chains (/sim/v1/status: block numbers and the current window, a call on the settlement
 * chain) while they advance. The devnet's settlement chain keeps no past state (--settlement-history 0), so a call at
 * `latest` that a new block overtakes fails in Anvil with "BlockOutOfRangeError: block height is N+1 but requested
 * was N": that is "ask again", never an HTTP 500. Here the settlement chain is mined by two clients a few hundred blocks a second
 * while L1 blocks are mined through the control API and the status is read over and over.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { call } from "../clients/http.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";

let local: LocalDevnet;
beforeAll(async () => {
  local = await startLocalDevnet({ nodes: false, minBlockIntervalMs: 0 }, "reports/control-while-mining-devnet.log");
}, 120_000);
afterAll(() => local?.stop());

const evmMine = (rpcUrl: string) =>
  fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_mine", params: [] }),
  });

test("GET /sim/v1/status and POST /sim/v1/mine answer no 5xx while the chains mine blocks fast", async () => {
  const d = local.devnet;
  let mining = true;
  const miners = Array.from({ length: 2 }, async () => {
    while (mining) {
      await evmMine(d.chains.settlement.rpcUrl);
      await Bun.sleep(2);
    }
  });
  const failures: string[] = [];
  const reads = Array.from({ length: 3 }, async () => {
    for (let i = 0; i < 60; i++) {
      const r = await call("GET", `${d.controlUrl}/sim/v1/status`);
      if (r.status !== 200) failures.push(`status ${r.status}: ${r.text.slice(0, 300)}`);
    }
  });
  const l1 = (async () => {
    for (let i = 0; i < 20; i++) {
      const r = await call("POST", `${d.controlUrl}/sim/v1/mine`, { body: { blocks: 2 } });
      if (r.status !== 200) failures.push(`mine ${r.status}: ${r.text.slice(0, 300)}`);
    }
  })();
  const startBlock = BigInt(
    ((await call("GET", `${d.controlUrl}/sim/v1/status`)).json as { settlement: { blockNumber: string } }).settlement
      .blockNumber,
  );
  await Promise.all([...reads, l1]);
  mining = false;
  await Promise.all(miners);
  const end = (await call("GET", `${d.controlUrl}/sim/v1/status`)).json as { settlement: { blockNumber: string } };
  // The settlement chain did advance meanwhile (hundreds of blocks), so the reads did race its head.
  expect(BigInt(end.settlement.blockNumber) - startBlock).toBeGreaterThan(100n);
  expect(failures).toEqual([]);
}, 180_000);
