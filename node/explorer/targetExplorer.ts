import { Elysia } from "elysia";
import { createPublicClient, http } from "viem";
import { serve } from "../api/serve.ts";
import type { ContractAddresses } from "../chain/deploy.ts";
import { protocolEventPoller } from "../chain/protocolEvents.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import type { Target } from "../clients/target.ts";
import { TOPICS } from "../notify/topics.ts";
import { parseProtocolVersion } from "../protocol/protocolVersion.ts";
import { rulesOf } from "../protocol/rules.ts";
import { logger } from "../util/log.ts";
import { ChainView } from "./chainView.ts";
import { explorerPage } from "./explorerApi.ts";
import { ExplorerHub, type NotificationFeed } from "./explorerHub.ts";

const log = logger("explorer");

/** A bidder node's notifications over its public API (`POST /v1/subscribe`, every topic), while the page is open. */
export function subscribeFeed(bidderUrl: string): NotificationFeed {
  return (on) => {
    let stream: NdjsonStream<{ topic: string; value: Record<string, unknown> }> | undefined;
    let closed = false;
    void (async () => {
      try {
        stream = await NdjsonStream.open("POST", `${bidderUrl}/v1/subscribe`, { topics: TOPICS });
        if (closed) return stream.close();
        for (let l = await stream.next(); l; l = await stream.next()) if ("result" in l) on(l.result);
      } catch (e) {
        if (!closed) log.warn("the bidder's notification stream failed", { bidderUrl, error: e });
      }
    })();
    return () => {
      closed = true;
      stream?.close();
    };
  };
}

export interface RunningExplorer {
  url: string;
  hub: ExplorerHub;
  stop(): Promise<void>;
}

/**
 * The explorer against any target (another implementation's nodes, or the devnet itself seen from outside): what its
 * settlement chain's protocol events and its bidder's public notification stream tell. Per-provider outcomes of each
 * bid exist only in the reference devnet; the page says so.
 */
export async function startTargetExplorer(
  target: Target,
  listen: { host: string; port: number },
): Promise<RunningExplorer> {
  const client = createPublicClient({ transport: http(target.settlementRpcUrl) });
  const events = protocolEventPoller(
    client as never,
    target.contracts as unknown as ContractAddresses,
    undefined,
    undefined,
    250,
    rulesOf(parseProtocolVersion(target.protocol)),
  );
  const chain = new ChainView(events);
  const nodes = [
    ...(target.bidderAddress
      ? [{ name: "bidder", role: "bidder", url: target.bidderUrl, address: target.bidderAddress }]
      : []),
    ...(target.providerAddresses ?? []).map((address, i) => ({
      name: `provider-${i}`,
      role: "provider",
      url: target.providerUrls?.[i],
      address,
    })),
  ];
  const hub = new ExplorerHub({
    mode: "target",
    chain,
    notifications: target.bidderUrl ? subscribeFeed(target.bidderUrl) : undefined,
    info: () => ({
      name: target.name,
      nodes,
      l1: { rpcUrl: target.l1RpcUrl, chainId: target.l1ChainId },
      settlement: { rpcUrl: target.settlementRpcUrl, chainId: target.settlementChainId },
      contracts: target.contracts,
      controlUrl: target.controlUrl ?? null,
      protocol: parseProtocolVersion(target.protocol),
    }),
  });
  await events.start();
  const served = serve(new Elysia().use(explorerPage(hub)), listen.host, listen.port, "explorer");
  return {
    url: `${served.url}/explorer/`,
    hub,
    async stop() {
      hub.stop();
      events.stop();
      await served.stop();
    },
  };
}
