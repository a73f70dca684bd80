import { describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { type MeshView, meshSettled } from "./meshView.ts";

const [B, P0, P1, P2] = ["0xb0", "0xa0", "0xa1", "0xa2"].map((a) => a.padEnd(42, "0") as Address);
const view = (address: Address, providers: Address[], bidders: Address[] = [B!]): MeshView => ({
  address,
  providers,
  bidders,
});

describe("meshSettled (one rule for in-process libp2p nodes and node processes)", () => {
  test("settled when the bidder and every running provider see each other", () => {
    const providers = [
      { address: P0!, expected: true, running: true, view: view(P0!, [P1!]) },
      { address: P1!, expected: true, running: true, view: view(P1!, [P0!]) },
    ];
    expect(meshSettled(view(B!, [P0!, P1!], []), providers)).toBe(true);
  });

  test("not while the bidder still sees a stopped provider, nor while a provider lacks the bidder or a peer", () => {
    const up = (p: Address, sees: Address[], bidders?: Address[]) => ({
      address: p,
      expected: true,
      running: true,
      view: view(p, sees, bidders),
    });
    const stopped = { address: P2!, expected: false, running: false };
    expect(meshSettled(view(B!, [P0!, P1!, P2!], []), [up(P0!, [P1!]), up(P1!, [P0!]), stopped])).toBe(false);
    expect(meshSettled(view(B!, [P0!, P1!], []), [up(P0!, [P1!], []), up(P1!, [P0!])])).toBe(false);
    expect(meshSettled(view(B!, [P0!, P1!], []), [up(P0!, []), up(P1!, [P0!])])).toBe(false);
    expect(
      meshSettled(view(B!, [P0!, P1!], []), [up(P0!, [P1!]), { address: P1!, expected: true, running: true }]),
    ).toBe(false);
  });

  test("a running provider without stake is waited for by nobody; addresses compare in any case", () => {
    const unstaked = { address: P1!, expected: false, running: true };
    expect(
      meshSettled(view(B!, [P0!.toUpperCase().replace("0X", "0x") as Address], []), [
        { address: P0!, expected: true, running: true, view: view(P0!, []) },
        unstaked,
      ]),
    ).toBe(true);
  });
});
