import { InvalidArgumentError } from "../protocol/grpcCodes.ts";
import type { ProtocolRules } from "../protocol/rules.ts";

/** The notification topics of the pinned interface (api-behaviour §5; interface.md §6), published by every node. */
export const TOPICS = [
  "peer_connected",
  "peer_disconnected",
  "validator_opted_in",
  "epoch_validators_opted_in",
  "provider_registered",
  "provider_deregistered",
  "provider_slashed",
  "provider_deposit",
  "commitment_store_failed",
  "commitment_open_failed",
] as const;

/** Topics the v1.2 line added (upstream-head-delta §1.6); accepted and published on v1.2 nodes only. */
export const V12_TOPICS = ["other_provider_won_block", "transaction_settled", "transaction_payment"] as const;

export type Topic = (typeof TOPICS)[number] | (typeof V12_TOPICS)[number];

/** The topics a node of `rules` accepts: the pinned ten, then the version's added ones. */
export function topicsOf(rules: ProtocolRules): readonly Topic[] {
  const added = rules.addedTopics.filter((t): t is Topic => (V12_TOPICS as readonly string[]).includes(t));
  return [...TOPICS, ...added];
}

/** Subscribe validation: a topic unknown to this version fails the whole call with `invalid topic: <name>`. */
export function validateTopics(topics: readonly string[], rules: ProtocolRules): Topic[] {
  for (const t of topics) if (!isTopic(t, rules)) throw new InvalidArgumentError(`invalid topic: ${t}`);
  return topics as Topic[];
}

export function isTopic(t: string, rules: ProtocolRules): t is Topic {
  return (topicsOf(rules) as readonly string[]).includes(t);
}
