import { describe, expect, test } from "bun:test";
import { DEFAULT_PROTOCOL_VERSION, parseProtocolVersion, UnknownProtocolVersionError } from "./protocolVersion.ts";

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
});
