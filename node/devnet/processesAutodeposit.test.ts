/**
 * A devnet of node processes (`--network processes`) with auto-deposit, as `npm run node -- --network processes`
 * starts it: the bidder process deposits from the current window (`--autodeposit-current-window`), as the
 * in-process bidder does, so a bid for the next block finds a deposit at once instead of after the window ends.
 * A restart after a kill leaves auto-deposit to what the bidder's store saved. L1 blocks are mined by hand here, so
 * the window cannot change under the test.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { call } from "../clients/http.ts";
import { windowOfBlock } from "../protocol/windows.ts";
import { bidProviders } from "../testing/bidProviders.ts";
import { type LocalDevnet, startLocalDevnet } from "./localDevnet.ts";

let local: LocalDevnet;

beforeAll(async () => {
  local = await startLocalDevnet(
    { network: "processes", providers: 2, autoAccept: true, l1BlockTime: 0 },
    "reports/processes-autodeposit-devnet.log",
  );
}, 180_000);

afterAll(async () => {
  await local?.stop();
}, 60_000);

test("the bidder process's auto-deposit covers the current window: the first bid, for the next block, gets its commitments", async () => {
  const d = local.devnet;
  const { bidder, providers } = d.nodeEndpoints();
  const next = (await d.driver.blockNumber()) + 1n;
  const status = (await call("GET", `${bidder.url}/v1/bidder/auto_deposit_status`)).json as {
    windowBalances: { windowNumber: string }[];
    isAutodepositEnabled: boolean;
  };
  expect(status.isAutodepositEnabled).toBe(true);
  expect(status.windowBalances.map((w) => BigInt(w.windowNumber))).toContain(windowOfBlock(next));
  const all = providers.map((p) => p.address.toLowerCase()).sort();
  expect((await bidProviders(bidder.url, next, 1)) as string[]).toEqual(all);
}, 60_000);

test("a bidder killed through the control API comes back with its saved auto-deposit: on before a cancel, off after", async () => {
  const d = local.devnet;
  const enabled = async () =>
    (
      (await call("GET", `${d.nodeEndpoints().bidder.url}/v1/bidder/auto_deposit_status`)).json as {
        isAutodepositEnabled: boolean;
      }
    ).isAutodepositEnabled;
  const kill = async () =>
    expect((await call("POST", `${d.controlUrl}/sim/v1/nodes/bidder/kill`, { body: {} })).status).toBe(200);
  await kill();
  expect(await enabled()).toBe(true);
  const cancel = await call("POST", `${d.nodeEndpoints().bidder.url}/v1/bidder/cancel_auto_deposit`);
  expect(cancel.status).toBe(200);
  await kill();
  expect(await enabled()).toBe(false);
}, 120_000);
