import { type AbiEvent, type AbiParameter, decodeAbiParameters, type Hex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { hexToBytes } from "../protocol/bytes.ts";

/** A log that does not fit its event's ABI (too few topics, data too short). */
export class EventDecodeError extends MevCommitError {}

export type EventArgs = Record<string, unknown> | unknown[];

/**
 * A decoder for one (non-anonymous) event, with the same result as viem's `decodeEventLog` for a log whose topic 0
 * is known to be this event: indexed arguments from the topics (a dynamic type's topic is its hash, kept as is),
 * the others from the data; by name when every input has one. viem's decodeEventLog formats the ABI item and
 * hashes its signature again for every log to find it (~10 of its ~24 µs); the event followers decode every log
 * of a busy chain, and already know the item from topic 0.
 */
export function eventDecoder(item: AbiEvent): (log: { topics: readonly Hex[]; data: Hex }) => EventArgs {
  const indexed = item.inputs.filter((p) => p.indexed);
  const data = item.inputs.filter((p) => !p.indexed);
  const named = item.inputs.every((p) => p.name);
  const dynamic = (p: AbiParameter) =>
    p.type === "string" || p.type === "bytes" || p.type === "tuple" || p.type.endsWith("]");
  return (log) => {
    if (log.topics.length < indexed.length + 1)
      throw new EventDecodeError(`${item.name}: ${log.topics.length - 1} indexed topics, ${indexed.length} expected`);
    const indexedValues = indexed.map((p, i) =>
      dynamic(p) ? log.topics[i + 1] : decodeAbiParameters([p], hexToBytes(log.topics[i + 1]!))[0],
    );
    let dataValues: readonly unknown[] = [];
    if (data.length) {
      if (log.data === "0x") throw new EventDecodeError(`${item.name}: no data for ${data.length} argument(s)`);
      dataValues = decodeAbiParameters(data, hexToBytes(log.data));
    }
    if (!named) {
      let i = 0;
      let d = 0;
      return item.inputs.map((p) => (p.indexed ? indexedValues[i++] : dataValues[d++]));
    }
    const args: Record<string, unknown> = {};
    indexed.forEach((p, i) => {
      args[p.name!] = indexedValues[i];
    });
    data.forEach((p, i) => {
      args[p.name!] = dataValues[i];
    });
    return args;
  };
}
