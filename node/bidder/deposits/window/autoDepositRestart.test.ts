/**
 * Auto-deposit across a restart of the bidder (a new AutoDepositor on the same store), on a real Anvil with the
 * protocol contracts. Upstream (api-behaviour §4.3-4.4) keeps auto-deposit in memory: CancelAutoDeposit stops it for
 * this run, and a restarted node deposits again only when its boot flags (--autodeposit-enabled) say so. Ours:
 * cancelling clears the saved setting, so a restart without flags leaves it off, as upstream's does; the start flags
 * (startRoleNode: replaceSaved, then startAutoDeposit) start it again, as upstream's do.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
import { ROLES } from "../../../chain/accounts.ts";
import { chainClients } from "../../../chain/clients.ts";
import { protocolEventPoller } from "../../../chain/protocolEvents.ts";
import { rulesOf } from "../../../protocol/rules.ts";
import { NodeStore } from "../../../store/db.ts";
import { chainPerTestFile, type Harness, key } from "../../../testing/chainHarness.ts";
import { AutoDepositor } from "./autoDepositor.ts";
import { DepositStore } from "./depositStore.ts";
import { BidderRegistryClient } from "./registry.ts";

let h: Harness;
chainPerTestFile({ name: "auto-deposit-restart", chainId: 31337, providers: 0 }, (x) => (h = x));

/** One run of the bidder's auto-depositor on the store at `path`; `stop` ends the run as a node stop does. */
function bidderRun(path: string) {
  const store = new NodeStore(path);
  const clients = chainClients(h.chain, key(ROLES.bidder));
  const registry = new BidderRegistryClient(clients, h.addresses);
  const events = protocolEventPoller(clients.publicClient, h.addresses, store, undefined, undefined, rulesOf("v1.1"));
  const auto = new AutoDepositor(registry, new DepositStore(store), events);
  return {
    auto,
    registry,
    stop() {
      auto.close();
      events.stop();
      store.close();
    },
  };
}

/** A first run that starts auto-deposit, 1 ETH per window from the current window. */
async function runWithAutoDeposit(path: string) {
  const run = bidderRun(path);
  const current = await run.registry.currentWindow();
  await run.auto.start(current, parseEther("1"));
  return { ...run, current };
}

function withStore(run: (path: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "auto-deposit-restart-"));
    try {
      await run(join(dir, "bidder.db"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  "cancelled, then restarted without start flags: auto-deposit stays off and deposits nothing",
  withStore(async (path) => {
    const first = await runWithAutoDeposit(path);
    const current = first.current;
    expect(first.auto.running).toBe(true);
    expect(await first.auto.stop(false)).toEqual([current, current + 1n]);
    expect(first.auto.running).toBe(false);
    first.stop();

    const second = bidderRun(path);
    await second.auto.resume();
    expect(second.auto.running).toBe(false);
    expect(second.auto.amountPerWindow).toBeUndefined();
    expect(await second.registry.getDeposit(current + 2n)).toBe(0n);
    second.stop();
  }),
  60_000,
);

test(
  "not cancelled, then restarted: the saved setting resumes (upstream's would be off without its boot flags)",
  withStore(async (path) => {
    const first = await runWithAutoDeposit(path);
    first.stop();

    const second = bidderRun(path);
    await second.auto.resume();
    expect(second.auto.running).toBe(true);
    expect(second.auto.amountPerWindow).toBe(parseEther("1"));
    second.stop();
  }),
  60_000,
);
