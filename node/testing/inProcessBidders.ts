import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "viem";
import { BidSender } from "../bidder/bids/bidSender.ts";
import { InProcessNetwork } from "../network/network.ts";
import { verifyBid } from "../protocol/bidSigning.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import { privateKeyToAddress } from "../protocol/secp256k1.ts";
import type { SignedBid } from "../protocol/types.ts";
import { BidderService } from "../services/bidderService.ts";
import { NodeStore } from "../store/db.ts";
import { CommitmentStore } from "../tracker/commitmentStore.ts";
import { committingProvider } from "./committingProvider.ts";
import { TEST_DOMAINS, TEST_KEYS } from "./testIdentities.ts";

export interface InProcessBidder {
  address: Address;
  network: InProcessNetwork;
  commitments: CommitmentStore;
  service: BidderService;
  /** The bids the provider was handed, in order, with the bidder it recovered from each signature. */
  received: { bid: SignedBid; bidder: Address }[];
}

/**
 * Bidder nodes in one process for tests of the bidder's API: each has the bidder service of a protocol version on
 * a store of its own and a real BidSender on an in-process network, where one provider verifies and commits to
 * every bid. `close` closes the stores and removes their folders.
 */
export class InProcessBidders {
  private readonly dirs: string[] = [];
  private readonly stores: NodeStore[] = [];

  bidder(rules: ProtocolRules): InProcessBidder {
    const dir = mkdtempSync(join(tmpdir(), "bidder-node-"));
    this.dirs.push(dir);
    const store = new NodeStore(join(dir, "bidder.db"));
    this.stores.push(store);
    const network = new InProcessNetwork();
    const received: InProcessBidder["received"] = [];
    network.connectProvider(
      committingProvider({ onBid: (bid) => received.push({ bid, bidder: verifyBid(bid, TEST_DOMAINS.bid) }) }),
    );
    const address = privateKeyToAddress(TEST_KEYS.bidder);
    const commitments = new CommitmentStore(store);
    const sender = new BidSender({
      privateKey: TEST_KEYS.bidder,
      address,
      domains: TEST_DOMAINS,
      network,
      commitments,
      timeoutMs: 5_000,
    });
    const service = new BidderService({
      sender,
      commitments: () => commitments,
      claimSlashedFunds: async () => 0n,
      rules,
    });
    return { address, network, commitments, service, received };
  }

  close(): void {
    for (const s of this.stores) s.close();
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}
