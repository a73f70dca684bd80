import {
  type Chain,
  createNonceManager,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  type NonceManager,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { jsonRpc } from "viem/nonce";
import { type KillSwitch, killableTransport } from "../util/killSwitch.ts";
import { localHttp } from "./localHttp.ts";
import { type TxRequest, txPipelineFor } from "./txPipeline.ts";

/** A viem chain description for a local chain known only by id and RPC URL. */
export function localChain(id: number, rpcUrl: string, name = `chain-${id}`): Chain {
  return defineChain({
    id,
    name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

const nonceManagers = new Map<string, NonceManager>();

/**
 * The nonce manager of every account on the chain at `rpcUrl`. One per chain endpoint, not viem's process-wide one:
 * a second devnet in the same process (tests) runs fresh chains with the same chain ids, where the nonces a
 * process-wide manager remembers from the first would leave every transaction pending forever.
 */
export function nonceManagerFor(rpcUrl: string): NonceManager {
  let m = nonceManagers.get(rpcUrl);
  if (!m) nonceManagers.set(rpcUrl, (m = createNonceManager({ source: jsonRpc() })));
  return m;
}

/**
/**
 * Read and write clients for one account on one chain. Contract transactions go through `txs` (node/chain/
 * txPipeline.ts: nonces kept locally, native signing, batched sends, receipts read per block); the wallet client
 * (whose nonce manager is viem's) is for the rare other sends. Polling is fast because chains here are local. With
 * `life`, the clients and `txs` go silent once it is killed (a node of the devnet killed through the control API).
 */
export function chainClients(chain: Chain, privateKey: Hex, life?: KillSwitch) {
  const plain = localHttp(chain.rpcUrls.default.http[0]!);
  const transport = life ? killableTransport(plain, life) : plain;
  const account = privateKeyToAccount(privateKey, { nonceManager: nonceManagerFor(chain.rpcUrls.default.http[0]!) });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 });
  const walletClient = createWalletClient({ chain, transport, account, pollingInterval: 50, cacheTime: 0 });
  const pipeline = txPipelineFor(chain, privateKey);
  const txs = {
    send: (req: TxRequest) => pipeline.send(req, life),
    receipt: (hash: Hex, timeoutMs?: number) => pipeline.receipt(hash, timeoutMs, life),
  };
  return { chain, account, publicClient, walletClient, txs };
}

export type ChainClients = ReturnType<typeof chainClients>;
