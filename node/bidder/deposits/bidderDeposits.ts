/** The bidder's deposit models: deposits per 10-block window (v1.1) or per provider (v1.2). */
export type DepositModelName = "window" | "perProvider";

/**
 * What the bidder node and its transports need of its deposit model, whichever it is: the model's name (the
 * transports serve that model's deposit calls: node/api/bidder/windowDeposits.ts or perProviderDeposits.ts,
 * node/grpc/windowDeposits.ts or perProviderDeposits.ts) and its life beside the calls. Window deposits
 * (window/windowDeposits.ts) resume auto-deposit after a restart; per-provider deposits
 * (perProvider/perProviderDeposits.ts) read the deposit manager's implementation and refuse to start without one, as
 * upstream does.
 */
export interface BidderDeposits {
  readonly model: DepositModelName;
  /** Called once the node follows the chain, before it serves its APIs. */
  resume(): Promise<void>;
  /** Stops whatever runs in the background. */
  close(): void;
}
