/**
 * What a pass leaves on a target's chains that no teardown can take back, said at its end. ProviderRegistry keeps a
 * stake until its owner withdraws it after an unstake request, so the suite cannot undo: a provider account a scenario
 * registers (notifications.feature, "registers and then unstakes"), a target provider's unstake request
 * (queries.feature, provider 3), stake added to a target provider, or slashed from it. Printed after the pass, as
 * targetSettings.ts prints the settings it put back, so a target is never left changed without a word. The suite's own
 * devnet is thrown away at the end of the run and is not read.
 *
 * Registrations are read from ProviderRegistry's logs after each scenario (a devnet keeps the logs of its last blocks
 * only), target providers' stakes and unstake requests from the contract at the pass's start and end.
 */
import { After, AfterAll, Before } from "@cucumber/cucumber";
import { type Address, formatEther, parseEventLogs } from "viem";
import { providerRegistryAbi } from "./abi.ts";
import { chainOf } from "./chain.ts";
import { targetDown } from "./health.ts";
import { recordLeftOnTarget } from "./leftOnTarget.ts";
import { providerLabel } from "./providerNames.ts";
import { run } from "./run.ts";
import type { Target } from "./target.ts";

interface ProviderState {
  stake: bigint;
  unstakeRequested: boolean;
}

interface Pass {
  target: Target;
  /** Each target provider's stake and unstake request at the pass's first scenario. */
  before: Map<string, ProviderState>;
  /** The next settlement block whose ProviderRegistry logs are not read yet. */
  nextBlock: bigint;
  /** Provider accounts registered during the pass that are not the target's providers. */
  registered: Set<Address>;
}

let pass: Pass | undefined;

async function providerState(target: Target, provider: Address): Promise<ProviderState> {
  const client = chainOf(target).settlement;
  const address = target.contracts.providerRegistry as Address;
  const [stake, requested] = await Promise.all([
    client.readContract({ address, abi: providerRegistryAbi, functionName: "getProviderStake", args: [provider] }),
    client.readContract({ address, abi: providerRegistryAbi, functionName: "withdrawalRequests", args: [provider] }),
  ]);
  return { stake, unstakeRequested: requested !== 0n };
}

/** Reads ProviderRegistry's registrations since the last read. */
async function scan(p: Pass): Promise<void> {
  const client = chainOf(p.target).settlement;
  const head = await client.getBlockNumber({ cacheTime: 0 });
  if (head < p.nextBlock) return;
  const logs = await client.getLogs({
    address: p.target.contracts.providerRegistry as Address,
    fromBlock: p.nextBlock,
    toBlock: head,
  });
  const own = new Set(p.target.providerAddresses.map((a) => a.toLowerCase()));
  for (const l of parseEventLogs({ abi: providerRegistryAbi, logs, eventName: "ProviderRegistered" }))
    if (!own.has(l.args.provider.toLowerCase())) p.registered.add(l.args.provider);
  p.nextBlock = head + 1n;
}

Before({ timeout: 30_000 }, async () => {
  if (pass || run().ownDevnet || targetDown()) return;
  const target = run().target;
  const before = new Map<string, ProviderState>();
  try {
    for (const a of target.providerAddresses) before.set(a.toLowerCase(), await providerState(target, a as Address));
    const nextBlock = (await chainOf(target).settlementBlockNumber()) + 1n;
    pass = { target, before, nextBlock, registered: new Set() };
  } catch (e) {
    console.log(
      `\nleft unknown: what this pass leaves on the target's chains (${(e as Error).message.split("\n")[0]})`,
    );
  }
});

After({ timeout: 30_000 }, async () => {
  if (pass && !targetDown()) await scan(pass).catch(() => {});
});

/** One line per thing the pass left on the chains (empty when it left nothing). */
async function onChainLeftovers(p: Pass): Promise<string[]> {
  await scan(p);
  const lines: string[] = [];
  for (const [i, a] of p.target.providerAddresses.entries()) {
    const was = p.before.get(a.toLowerCase());
    if (!was) continue;
    const now = await providerState(p.target, a as Address);
    const name = `${providerLabel(i)} ${a}`;
    if (now.unstakeRequested && !was.unstakeRequested)
      lines.push(`left: ${name} asked to unstake (its owner withdraws the stake; it leaves the winner schedule)`);
    if (now.stake !== was.stake)
      lines.push(
        `left: ${name}'s stake is ${formatEther(now.stake)} ETH, it was ${formatEther(was.stake)} ETH (stake added or slashed)`,
      );
  }
  for (const provider of p.registered) {
    const now = await providerState(p.target, provider);
    lines.push(
      `left: provider account ${provider} registered by a scenario, ${formatEther(now.stake)} ETH staked, ${
        now.unstakeRequested
          ? "unstake requested (out of the winner schedule; the stake stays until withdrawn)"
          : "not unstaked (a devnet keeps it in the winner schedule only while something posts for it)"
      }`,
    );
  }
  return lines;
}

AfterAll({ timeout: 60_000 }, async () => {
  const p = pass;
  pass = undefined;
  if (!p) return;
  const lines = await onChainLeftovers(p).catch((e: Error) => [
    `left unknown: what this pass left on the target's chains (${e.message.split("\n")[0]})`,
  ]);
  recordLeftOnTarget(lines);
  if (lines.length)
    console.log(`\nWhat this pass left on the target's chains:\n${lines.map((l) => `  ${l}`).join("\n")}`);
});
