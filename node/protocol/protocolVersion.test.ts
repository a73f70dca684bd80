import { describe, expect, test } from "bun:test";
import {
  DEFAULT_PROTOCOL_VERSION,
  PROTOCOL_PROFILES,
  PROTOCOL_VERSIONS,
  parseProtocolVersion,
  profileOf,
  UnknownProtocolVersionError,
} from "./protocolVersion.ts";

describe("protocol versions", () => {
  test("absent means v1.1; known names parse; anything else is a named error", () => {
    expect(DEFAULT_PROTOCOL_VERSION).toBe("v1.1");
    expect(parseProtocolVersion(undefined)).toBe("v1.1");
    expect(parseProtocolVersion("v1.2")).toBe("v1.2");
    for (const bad of ["1.2", "v1.3", "V1.2", ""]) {
      expect(() => parseProtocolVersion(bad)).toThrow(UnknownProtocolVersionError);
    }
    expect(() => parseProtocolVersion("1.2")).toThrow('unknown protocol version "1.2": expected one of v1.1, v1.2');
  });

  test("each profile is keyed by its own version and the switch points differ as upstream-head-delta §5 says", () => {
    for (const v of PROTOCOL_VERSIONS) expect(PROTOCOL_PROFILES[v].version).toBe(v);
    const [v11, v12] = [profileOf("v1.1"), profileOf("v1.2")];
    expect([v11.deposits, v12.deposits]).toEqual(["window", "provider"]);
    expect([v11.p2p.preconfirmation, v12.p2p.preconfirmation]).toEqual(["3.0.0", "4.0.0"]);
    expect(v11.p2p.handshake).toBe(v12.p2p.handshake);
    expect([v11.emptySlashAmount, v12.emptySlashAmount]).toEqual(["zero", "bidAmount"]);
    expect(v11.addedTopics).toEqual([]);
    expect(v12.addedTopics).toHaveLength(3);
    expect([v11.bidOptions, v12.bidOptions]).toEqual([false, true]);
    expect([v11.refundEvent, v12.refundEvent]).toEqual(["FundsRetrieved", "FundsUnlocked"]);
    expect([v11.slashPays, v12.slashPays]).toEqual(["decayedPlusSlashAmount", "slashAmount"]);
  });
});
