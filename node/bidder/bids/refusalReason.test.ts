import { describe, expect, test } from "bun:test";
import { NO_ACTIVE_RECEIVERS } from "../../network/network.ts";
import {
  DeadlineExceededError,
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
} from "../../protocol/grpcCodes.ts";
import { refusalMessage, refusalReason } from "./refusalReason.ts";

describe("refusalReason", () => {
  test("names each refusal of the provider node (node/provider/bids) from the error it throws", () => {
    expect(refusalReason(new InternalError(NO_ACTIVE_RECEIVERS))).toBe("no_application");
    expect(refusalReason(new FailedPreconditionError("insufficient balance"))).toBe("allowance_used");
    expect(refusalReason(new FailedPreconditionError("balance not found for window 3"))).toBe("deposit_missing");
    expect(refusalReason(new InvalidArgumentError("verifying bid: bad signature"))).toBe("invalid_bid");
    expect(refusalReason(new DeadlineExceededError("context deadline exceeded"))).toBe("decision_timeout");
    expect(refusalReason(new FailedPreconditionError("bid rejected"))).toBe("rejected_by_application");
    expect(refusalReason(new DeadlineExceededError("context canceled"))).toBe("canceled");
    expect(refusalReason(new Error("connection reset"))).toBe("error");
  });

  test("a peer's status message (over libp2p) counts as the message", () => {
    const peer = Object.assign(new Error("rpc error: code = 9"), { statusMessage: "insufficient balance" });
    expect(refusalMessage(peer)).toBe("insufficient balance");
    expect(refusalReason(peer)).toBe("allowance_used");
  });

  test("the bidder's own timeout", () => {
    const e = Object.assign(new Error("no answer within 5000 ms"), { name: "BidTimeoutError" });
    expect(refusalReason(e)).toBe("bidder_timeout");
  });

  test("a provider of another protocol version", () => {
    const peer = Object.assign(new Error("rpc error: code = 9"), {
      statusMessage: "preconfirmation protocol mismatch: this provider speaks /mev-commit/preconfirmation/4.0.0 …",
    });
    expect(refusalReason(peer)).toBe("protocol_mismatch");
    expect(refusalReason(new Error("protocol selection failed"))).toBe("protocol_mismatch");
  });
});
