import { afterEach, expect, test } from "bun:test";
import { libp2pLoggerOption } from "./quietLogger.ts";

const debug = process.env.DEBUG;
afterEach(() => {
  if (debug === undefined) delete process.env.DEBUG;
  else process.env.DEBUG = debug;
});

test("with DEBUG unset, every libp2p component and stream shares one logger that is off", () => {
  delete process.env.DEBUG;
  const { logger } = libp2pLoggerOption();
  const a = logger!.forComponent("libp2p:yamux");
  expect(a.enabled).toBe(false);
  expect(logger!.forComponent("libp2p:mss")).toBe(a);
  expect(a.newScope("outbound:1")).toBe(a);
  a("nothing %s", "printed");
  a.error("nor this");
  a.trace("nor this");
});

test("with DEBUG set, libp2p keeps its own loggers", () => {
  process.env.DEBUG = "libp2p:*";
  expect(libp2pLoggerOption()).toEqual({});
});
