/**
 * The delay scenario's dispatch check (features/support/faults.ts dispatchProblems): a commitment's dispatch time
 * must be the one its provider's application chose, in the stream and in the bidder's record of the bid.
 */
import { describe, expect, test } from "bun:test";
import { digestHex, dispatchProblems } from "./support/faults.ts";

const BID = "ab".repeat(32);
const B64 = Buffer.from(BID, "hex").toString("base64");
const P = "90f79bf6eb2c4f870365e785982e1f101e93b906";

describe("the dispatch time of a delayed provider's commitment", () => {
  test("bid digests compare the same in hex (with or without 0x) and base64", () => {
    expect(digestHex(B64)).toBe(BID);
    expect(digestHex(`0x${BID.toUpperCase()}`)).toBe(BID);
  });

  test("the application's time in the stream and the bidder's record: no problem", () => {
    const chosen = new Map([[B64, 1_000n]]);
    expect(
      dispatchProblems([{ bid: BID, provider: P, dispatch: "1000" }], chosen, [
        { bid: `0x${BID}`, provider: `0x${P.toUpperCase()}`, dispatch: "1000" },
      ]),
    ).toEqual([]);
  });

  test("a time put in when the bidder heard, in the stream or in the record, is named", () => {
    const chosen = new Map([[B64, 1_000n]]);
    expect(
      dispatchProblems([{ bid: BID, provider: P, dispatch: "1250" }], chosen, [
        { bid: BID, provider: P, dispatch: "1000" },
      ]),
    ).toEqual([`the commitment to bid ${BID} in the stream carries dispatch time 1250, the application chose 1000`]);
    expect(
      dispatchProblems([{ bid: BID, provider: P, dispatch: "1000" }], chosen, [
        { bid: BID, provider: P, dispatch: "1230" },
      ]),
    ).toEqual([`the bidder's record of bid ${BID} has dispatch time 1230, the application chose 1000`]);
  });

  test("a commitment the application never chose a time for, or a record missing or twice, is named", () => {
    expect(dispatchProblems([{ bid: BID, provider: P, dispatch: "1" }], new Map(), [])).toEqual([
      `the application chose no dispatch time for bid ${BID}`,
    ]);
    const chosen = new Map([[BID, 1n]]);
    const row = { bid: BID, provider: P, dispatch: "1" };
    expect(dispatchProblems([row], chosen, [])).toEqual([`the bidder lists 0 commitments of ${P} to bid ${BID}`]);
    expect(dispatchProblems([row], chosen, [row, row])).toEqual([
      `the bidder lists 2 commitments of ${P} to bid ${BID}`,
    ]);
  });
});
