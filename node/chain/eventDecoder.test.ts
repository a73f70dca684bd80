import { expect, test } from "bun:test";
import { type AbiEvent, decodeEventLog, encodeAbiParameters, encodeEventTopics, type Hex, parseAbiItem } from "viem";
import {
  bidderRegistryAbi,
  blockTrackerAbi,
  oracleAbi,
  preconfManagerAbi,
  providerRegistryAbi,
  validatorOptInRouterAbi,
} from "./contracts.ts";
import { EventDecodeError, eventDecoder } from "./eventDecoder.ts";

/** A value of an ABI type, for encoding a sample log. */
function sample(type: string, i: number): unknown {
  if (type.endsWith("[]")) return [sample(type.slice(0, -2), i), sample(type.slice(0, -2), i + 1)];
  if (type === "address") return `0x${(i + 1).toString(16).padStart(40, "0")}`;
  if (type === "bool") return i % 2 === 0;
  if (type === "string") return `text ${i}`;
  if (type === "bytes") return `0x${"ab".repeat(65 + i)}`;
  if (type.startsWith("bytes"))
    return `0x${(i + 7)
      .toString(16)
      .padStart(2, "0")
      .repeat(Number(type.slice(5)))}`;
  if (type.startsWith("uint") || type.startsWith("int")) return BigInt(1000 + i);
  throw new Error(`no sample for ${type}`);
}

const events = [
  preconfManagerAbi,
  bidderRegistryAbi,
  providerRegistryAbi,
  oracleAbi,
  blockTrackerAbi,
  validatorOptInRouterAbi,
].flatMap((abi) => (abi as readonly { type: string }[]).filter((x) => x.type === "event") as AbiEvent[]);

test("decodes every protocol event exactly as viem's decodeEventLog", () => {
  expect(events.length).toBeGreaterThan(10);
  for (const item of events) {
    if (item.inputs.some((p) => p.type === "tuple" || p.type.startsWith("tuple"))) continue;
    const values = item.inputs.map((p, i) => sample(p.type, i));
    const topics = encodeEventTopics({
      abi: [item],
      eventName: item.name,
      args: Object.fromEntries(
        item.inputs.filter((p) => p.indexed).map((p) => [p.name, values[item.inputs.indexOf(p)]]),
      ),
    } as never) as Hex[];
    const data = encodeAbiParameters(
      item.inputs.filter((p) => !p.indexed),
      values.filter((_, i) => !item.inputs[i]!.indexed) as never,
    );
    const viem = decodeEventLog({ abi: [item], topics: topics as never, data });
    expect({ event: item.name, args: eventDecoder(item)({ topics, data }) }).toEqual({
      event: item.name,
      args: (viem.args ?? {}) as never,
    });
  }
});

test("unnamed inputs give an array in the event's order; a dynamic indexed input is its topic", () => {
  const item = parseAbiItem("event E(uint256, string indexed, address)") as AbiEvent;
  const topics = encodeEventTopics({ abi: [item], args: ["hello"] } as never) as Hex[];
  const data = encodeAbiParameters(
    [item.inputs[0]!, item.inputs[2]!],
    [5n, "0x00000000000000000000000000000000000000aa"],
  );
  expect(eventDecoder(item)({ topics, data })).toEqual(
    decodeEventLog({ abi: [item], topics: topics as never, data }).args as never,
  );
});

test("a log that does not fit its event throws", () => {
  const item = parseAbiItem("event E(bytes32 indexed a, uint64 b)") as AbiEvent;
  const decode = eventDecoder(item);
  const [selector] = encodeEventTopics({ abi: [item] } as never) as Hex[];
  expect(() => decode({ topics: [selector!], data: "0x" })).toThrow(EventDecodeError);
  expect(() => decode({ topics: [selector!, `0x${"11".repeat(32)}`], data: "0x" })).toThrow(EventDecodeError);
  expect(() => decode({ topics: [selector!, `0x${"11".repeat(32)}`], data: "0x1234" })).toThrow();
});
