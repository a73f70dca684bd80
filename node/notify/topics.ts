import { InvalidArgumentError } from "../protocol/grpcCodes.ts";

/** Every notification topic a node publishes (api-behaviour §5; interface.md §6). */
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

export type Topic = (typeof TOPICS)[number];

/** Subscribe validation: an unknown topic fails the whole call with `invalid topic: <name>`. */
export function validateTopics(topics: readonly string[]): Topic[] {
  for (const t of topics) if (!isTopic(t)) throw new InvalidArgumentError(`invalid topic: ${t}`);
  return topics as Topic[];
}

export function isTopic(t: string): t is Topic {
  return (TOPICS as readonly string[]).includes(t);
}
