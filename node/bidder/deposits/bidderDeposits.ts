/**
 * What the bidder node needs of its deposit service, whichever protocol version it runs: v1.1's window deposits
 * (AutoDepositor resumes auto-deposit after a restart) or v1.2's deposits per provider (DepositServiceV12 reads the
 * deposit manager's implementation and refuses to start without one, as upstream does).
 */
export interface BidderDeposits {
  /** Called once the node follows the chain, before it serves its APIs. */
  resume(): Promise<void>;
  /** Stops whatever runs in the background. */
  close(): void;
}
