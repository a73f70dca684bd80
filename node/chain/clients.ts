import { createPublicClient, createWalletClient, defineChain, http, type Chain, type Hex } from "viem";
import { nonceManager, privateKeyToAccount } from "viem/accounts";

/** A viem chain description for a local chain known only by id and RPC URL. */
export function localChain(id: number, rpcUrl: string, name = `chain-${id}`): Chain {
  return defineChain({
    id,
    name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * Read and write clients for one account on one chain. The account keeps its own nonce, so concurrent
 * transactions from one node do not collide; polling is fast because chains here are local.
 */
export function chainClients(chain: Chain, privateKey: Hex) {
  const transport = http(chain.rpcUrls.default.http[0], { retryCount: 2, batch: false });
  const account = privateKeyToAccount(privateKey, { nonceManager });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 });
  const walletClient = createWalletClient({ chain, transport, account, pollingInterval: 50, cacheTime: 0 });
  return { chain, account, publicClient, walletClient };
}

export type ChainClients = ReturnType<typeof chainClients>;
