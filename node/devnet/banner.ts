import { type Address, formatEther } from "viem";
import { devAccount, ROLES } from "../chain/accounts.ts";
import { providerRegistryAbi } from "../chain/contracts.ts";
import type { DevnetTarget } from "../clients/target.ts";
import type { Devnet } from "./startDevnet.ts";

/** Dev accounts a user's own nodes take with --no-nodes: the ones the devnet's bidder and first providers would use. */
export const FOREIGN_NODE_ACCOUNTS = {
  bidder: ROLES.bidder,
  providers: [ROLES.firstProvider, ROLES.firstProvider + 1],
} as const;

/** A gRPC URL as grpcurl and upstream's tools take it: `host:port`, and whether it is TLS. */
function rpc(url: string | undefined): string {
  if (!url) return "-";
  const u = new URL(url);
  return `${u.host}   (${u.protocol === "https:" ? "TLS, self-signed: grpcurl -insecure" : "plaintext: grpcurl -plaintext"} ${u.host} list)`;
}

/**
 * Each of the devnet's providers' stake as ProviderRegistry holds it now (what `get_stake` answers): after slashes,
 * withdrawals or added stake it is no longer the --provider-stake they registered with.
 */
export async function providerStakes(d: Devnet): Promise<bigint[]> {
  const t = d.targetFile();
  return Promise.all(
    (t.providerAddresses ?? []).map((provider) =>
      d.settlementClient.readContract({
        address: d.contracts.providerRegistry,
        abi: providerRegistryAbi,
        functionName: "getProviderStake",
        args: [provider as Address],
      }),
    ),
  );
}

/**
 * What a user needs to start working, printed once the devnet is up. Never prints private keys. `stakes`: the
 * providers' stakes on the chain (providerStakes); without them the banner says what each registers with.
 */
export function banner(d: Devnet, stakes?: readonly bigint[]): string {
  const t = d.targetFile();
  const c = d.config;
  // What the bidder runs (a setting its data dir saved may have been resumed); node processes: what they were told.
  const perProvider = c.rules.deposits === "provider";
  const autodeposit =
    d.hasNodes && !d.procs && !perProvider ? d.bidder.windowDeposits.auto.amountPerWindow : c.autodepositAmount;
  const minutes = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms} ms`);
  const deposits = perProvider
    ? `Bidder deposit per provider at start: ${c.autodepositAmount !== undefined ? `${formatEther(c.autodepositAmount)} ETH` : "none"}`
    : `Bidder auto-deposit: ${autodeposit !== undefined ? `${formatEther(autodeposit)} ETH per window` : "off"}`;
  const lines = [
    "",
    "mev-commit devnet is up",
    "",
    `  Protocol ${c.rules.version} (upstream ${c.rules.upstream}): ${
      perProvider
        ? `deposits per bidder and provider, bidder withdrawal period ${minutes(c.bidderWithdrawalPeriodMs)} of chain time${c.bidderWithdrawalPeriodMs !== 600_000 ? " (upstream deploys 10 min)" : ""}${c.bidOptionsSlash ? "; the oracle slashes unmet position constraints (--bid-options-slash-enabled)" : ""}`
        : "deposits per 10-block window"
    }`,
    "",
    "  Nodes",
    ...nodeLines(d, t),
    "",
    "  Chains",
    `    L1           ${t.l1RpcUrl}   chain id ${t.l1ChainId}   ${c.l1BlockTime > 0 ? `a block every ${c.l1BlockTime} s` : "mined through the control API"}`,
    `    settlement   ${t.settlementRpcUrl}   chain id ${t.settlementChainId}   ${c.settlementBlockTimeMs > 0 ? `a block every ${c.settlementBlockTimeMs} ms while transactions are pending` : "a block per transaction"}`,
    "",
    "  Contracts (settlement chain)",
    ...Object.entries(t.contracts).map(([k, v]) => `    ${k.padEnd(18)} ${v}`),
    `    validator opt-in   ${t.validatorOptInRouter ?? "-"}   (L1 chain)`,
    "",
    "  Dev accounts (Anvil's default mnemonic)",
    `    owner        ${devAccount(ROLES.deployer).address}`,
    `    oracle       ${devAccount(ROLES.oracle).address}`,
    ...accountLines(d, t, stakes),
    "",
    ...(d.hasNodes
      ? [
          `  ${deposits}` + `;  built-in provider responder: ${c.autoAccept ? "accept all" : "off"}`,
          `  Target file for the conformance suite: ${d.dir.targetFile}`,
        ]
      : [
          `  Target file for the conformance suite: ${d.dir.targetFile}  (add bidderUrl, providerUrls, bidderAddress, providerAddresses)`,
        ]),
    `  Data dir: ${d.dir.root}  (restart keeps state; --fresh starts clean)`,
    "",
    "  Ctrl-C stops everything.",
    "",
  ];
  return lines.join("\n");
}

/** The banner's Nodes section: each node's URLs and address (or what --no-nodes leaves to the user), the APIs. */
function nodeLines(d: Devnet, t: DevnetTarget): string[] {
  const c = d.config;
  const nodes = d.hasNodes
    ? [
        `    bidder       ${t.bidderUrl}   ${t.bidderAddress}   (OpenAPI: ${t.bidderUrl}/swagger)`,
        `                 gRPC ${rpc(t.bidderRpcUrl)}`,
        ...t.providerUrls!.flatMap((u, i) => [
          `    provider-${i}   ${u}   ${t.providerAddresses![i]}   (OpenAPI: ${u}/swagger)`,
          `                 gRPC ${rpc(t.providerRpcUrls?.[i])}`,
        ]),
      ]
    : [
        "    none (--no-nodes): start your own bidder and providers against the chains and contracts below, for example",
        `    with dev accounts ${FOREIGN_NODE_ACCOUNTS.bidder} (bidder) and ${FOREIGN_NODE_ACCOUNTS.providers.join(", ")} (providers) of Anvil's default mnemonic;`,
        "    providers that register and stake on-chain take part in the winner schedule while they post bundles or",
        "    heartbeats to the control API (a --role provider node does; --provider-liveness-blocks).",
      ];
  return [
    ...(c.networkChoice
      ? [`    network      ${c.network}: ${c.networkChoice} (--network auto; --network libp2p|processes|… overrides)`]
      : []),
    ...nodes,
    `    control      ${t.controlUrl}/sim/v1/status`,
    `    explorer     ${d.explorerUrl}   (live: blocks, bids and each provider's outcome, deposits, stakes)`,
    `    beacon       ${t.beaconUrl}/eth/v1/beacon/genesis   (simulated beacon schedule: slot N is L1 block N)`,
    ...(d.bootnodeAddrs().length
      ? [`    bootnode     ${d.bootnodeAddrs()[0]}   (nodes meet over libp2p; more join with npm run node -- --role …)`]
      : []),
    ...(d.procs
      ? [
          `    processes    one per node (${d.config.network === "netns" ? "each on a network namespace of its own" : "on this host"}): ${[d.procs.bidder, ...d.procs.providers].map((p) => `${p.name} pid ${p.pid}`).join(", ")}; logs in ${d.dir.root}/nodes/`,
        ]
      : []),
  ];
}

/** The dev accounts of the devnet's nodes, or the ones free for a user's own nodes with --no-nodes. */
function accountLines(d: Devnet, t: DevnetTarget, stakes?: readonly bigint[]): string[] {
  const c = d.config;
  return [
    ...(d.hasNodes
      ? [
          `    bidder       ${devAccount(ROLES.bidder).address}`,
          ...t.providerAddresses!.map(
            (a, i) =>
              `    provider-${i}   ${a}   ${stakes?.[i] !== undefined ? `stake ${formatEther(stakes[i])} ETH (on chain now)` : `registers with a stake of ${formatEther(c.providerStake)} ETH`}`,
          ),
        ]
      : [
          `    free for your bidder     ${FOREIGN_NODE_ACCOUNTS.bidder}: ${devAccount(FOREIGN_NODE_ACCOUNTS.bidder).address}`,
          ...FOREIGN_NODE_ACCOUNTS.providers.map((i) => `    free for your provider   ${i}: ${devAccount(i).address}`),
        ]),
  ];
}
