import { formatEther } from "viem";
import { devAccount, ROLES } from "../chain/accounts.ts";
import type { Devnet } from "./startDevnet.ts";

/** What a user needs to start working, printed once the devnet is up. Never prints private keys. */
export function banner(d: Devnet): string {
  const t = d.target();
  const c = d.config;
  const lines = [
    "",
    "mev-commit devnet is up",
    "",
    "  Nodes",
    `    bidder       ${t.bidderUrl}   ${t.bidderAddress}   (OpenAPI: ${t.bidderUrl}/swagger)`,
    ...t.providerUrls.map((u, i) => `    provider-${i}   ${u}   ${t.providerAddresses[i]}   (OpenAPI: ${u}/swagger)`),
    `    control      ${t.controlUrl}/sim/v1/status`,
    `    beacon       ${t.beaconUrl}/eth/v1/beacon/genesis   (simulated beacon schedule: slot N is L1 block N)`,
    "",
    "  Chains",
    `    L1           ${t.l1RpcUrl}   chain id ${t.l1ChainId}   ${c.l1BlockTime > 0 ? `a block every ${c.l1BlockTime} s` : "mined through the control API"}`,
    `    settlement   ${t.settlementRpcUrl}   chain id ${t.settlementChainId}   automine`,
    "",
    "  Contracts (settlement chain)",
    ...Object.entries(t.contracts).map(([k, v]) => `    ${k.padEnd(18)} ${v}`),
    `    validator opt-in   ${t.validatorOptInRouter ?? "-"}   (L1 chain)`,
    "",
    "  Dev accounts (Anvil's default mnemonic)",
    `    owner        ${devAccount(ROLES.deployer).address}`,
    `    oracle       ${devAccount(ROLES.oracle).address}`,
    `    bidder       ${devAccount(ROLES.bidder).address}`,
    ...t.providerAddresses.map((a, i) => `    provider-${i}   ${a}   staked ${formatEther(c.providerStake)} ETH`),
    "",
    `  Bidder auto-deposit: ${c.autodepositAmount !== undefined ? `${formatEther(c.autodepositAmount)} ETH per window` : "off"}` +
      `;  built-in provider responder: ${c.autoAccept ? "accept all" : "off"}`,
    `  Target file for the conformance suite: ${d.dir.targetFile}`,
    `  Data dir: ${d.dir.root}  (restart keeps state; --fresh starts clean)`,
    "",
    "  Ctrl-C stops everything.",
    "",
  ];
  return lines.join("\n");
}
