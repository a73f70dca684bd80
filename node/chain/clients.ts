import { createNonceManager, createPublicClient, createWalletClient, defineChain, http, type Chain, type Hex, type HttpTransport, type HttpTransportConfig, type NonceManager } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { jsonRpc } from "viem/nonce";
import { killableTransport, type KillSwitch } from "../util/killSwitch.ts";
import { isHeadRace } from "./pastState.ts";
import { txPipelineFor, type TxRequest } from "./txPipeline.ts";

/** A viem chain description for a local chain known only by id and RPC URL. */
export function localChain(id: number, rpcUrl: string, name = `chain-${id}`): Chain {
  return defineChain({
    id,
    name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}


/** Pauses before each new attempt of a read that raced the chain's head (ms); its length bounds the attempts. */
const HEAD_RACE_BACKOFF_MS = [0, 5, 10, 20, 40, 80, 160];

/**
 * viem's HTTP transport for a chain this project reads while it advances: a read that raced the chain's head
 * (isHeadRace: a call at `latest` overtaken by a new block on a chain keeping no past states, as the devnet's
 * settlement chain with --settlement-history 0, or a block not made yet) is asked again, a few times with short
 * pauses, instead of failing its caller (an HTTP 500 of the control API, a node's failed read).
 */
export function localHttp(url: string, config: HttpTransportConfig = { retryCount: 2, batch: false }): HttpTransport {
  const base = http(url, config);
  return ((args: Parameters<HttpTransport>[0]) => {
    const t = base(args);
    const request = (async (req: { method?: unknown; params?: unknown }, opts: unknown) => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await (t.request as (r: unknown, o: unknown) => Promise<unknown>)(req, opts);
        } catch (e) {
          if (attempt >= HEAD_RACE_BACKOFF_MS.length || !isHeadRace(e, req)) throw e;
          if (HEAD_RACE_BACKOFF_MS[attempt]) await Bun.sleep(HEAD_RACE_BACKOFF_MS[attempt]!);
        }
      }
    }) as typeof t.request;
    return { ...t, request };
  }) as HttpTransport;
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
