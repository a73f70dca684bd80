/**
 * `/sim/v1/network/faults`: the network faults of a `--network netns` devnet at run time (docs/devnet.md, Network
 * faults). GET lists the faults in place and which kinds this machine offers; POST sets one (in place of any on the
 * same host or pair); DELETE removes one (`?hosts=a,b`) or all. On any other devnet each call but GET answers
 * FailedPrecondition with the reason.
 */
import { Elysia, t } from "elysia";
import { FAULT_KINDS, type FaultKind, type FaultSpec } from "../faults/faultSpec.ts";
import type { NetFaults } from "../faults/netFaults.ts";
import { FailedPreconditionError } from "../protocol/grpcCodes.ts";

export interface NetworkFaultsStatus {
  /** The kinds of fault this devnet can set now; the others with why not (no netns, no netem in the kernel, …). */
  available: FaultKind[];
  unavailable: Partial<Record<FaultKind, string>>;
  /** The faults in place. */
  faults: FaultSpec[];
  /**
   * The hosts a fault may name (bidder, provider-0, …) and their addresses, then the pseudo-hosts a host can be cut
   * from (root: the devnet's own namespace; settlement: its settlement chain's RPC, with its port); empty without netns.
   */
  hosts: { name: string; ip: string; port?: number }[];
}

export function networkFaultsStatus(faults: NetFaults | undefined, why: string): NetworkFaultsStatus {
  if (!faults)
    return {
      available: [],
      unavailable: Object.fromEntries(FAULT_KINDS.map((k) => [k, why])),
      faults: [],
      hosts: [],
    };
  return {
    ...faults.available(),
    faults: faults.list(),
    hosts: faults.places(),
  };
}

/** `why`: what a devnet without faults says (it was not started with --network netns). */
export function networkFaultsApi(faults: NetFaults | undefined, why: string) {
  const need = (): NetFaults => {
    if (!faults) throw new FailedPreconditionError(why);
    return faults;
  };
  return new Elysia({ name: "sim-network-faults" })
    .get("/sim/v1/network/faults", () => networkFaultsStatus(faults, why), {
      detail: { summary: "The network faults in place, and the kinds this devnet can set (and why not the others)" },
    })
    .post(
      "/sim/v1/network/faults",
      ({ body }) => {
        const set = need().set(body);
        return { set, ...networkFaultsStatus(faults, why) };
      },
      {
        body: t.Object(
          {
            hosts: t.Array(t.String(), {
              minItems: 1,
              maxItems: 2,
              description:
                "one host (bidder, provider-0, …: all its traffic) or a pair (only the traffic between them); a pair may be a host and root (the devnet's own namespace: chains, control API, clients on this machine), clients (the clients of its own APIs there) or settlement (the settlement chain's RPC), for a partition or loss",
            }),
            partition: t.Optional(t.Boolean({ description: "pairs: no packet passes between them" })),
            lossPercent: t.Optional(t.Integer({ description: "each packet dropped with this chance (1 to 100)" })),
            rateKbit: t.Optional(
              t.Integer({
                description: "what the host sends (a pair: what each sends to the other) capped at this rate (kbit/s)",
              }),
            ),
            delayMs: t.Optional(
              t.Integer({
                description: "added to what the host sends (a pair: what each sends to the other; needs netem)",
              }),
            ),
            jitterMs: t.Optional(t.Integer({ description: "random variation of the delay (needs netem)" })),
          },
          { additionalProperties: true },
        ),
        detail: {
          summary: "Set a network fault on a host or between a pair (replaces the one there)",
          description:
            "Partition and loss are nftables drop rules in the hosts' namespaces; bandwidth a tbf and delay a netem qdisc on the host's interface (a pair: an htb class per peer, the netem under it). " +
            "A kind this machine lacks answers FailedPrecondition with the reason (GET lists them).",
        },
      },
    )
    .delete(
      "/sim/v1/network/faults",
      ({ query }) => {
        const healed = need().heal(query.hosts === undefined ? undefined : query.hosts.split(","));
        return { healed, ...networkFaultsStatus(faults, why) };
      },
      {
        query: t.Object({
          hosts: t.Optional(t.String({ description: "a host or a pair, comma-separated (default: every fault)" })),
        }),
        detail: { summary: "Heal: remove the fault on a host or pair, or every fault" },
      },
    );
}
