/**
 * go-msgio framing, the envelope of every message on a mev-commit stream (p2p.md "Framing"): a 4-byte big-endian
 * length, then that many bytes. go-msgio refuses frames above 8 MiB; so do we.
 */

import { MevCommitError } from "../../../lib/errors.ts";

export const MSGIO_MAX_SIZE = 8 * 1024 * 1024;
export const MSGIO_LENGTH_BYTES = 4;

export class MsgioFrameError extends MevCommitError {}

/** The 4-byte length prefix of a frame of `length` bytes. */
export function msgioLength(length: number): Uint8Array {
  if (!Number.isInteger(length) || length < 0 || length > MSGIO_MAX_SIZE)
    throw new MsgioFrameError(`frame of ${length} bytes (limit ${MSGIO_MAX_SIZE})`);
  const out = new Uint8Array(MSGIO_LENGTH_BYTES);
  new DataView(out.buffer).setUint32(0, length);
  return out;
}

/**
 * Reads a length prefix from the first bytes of `data`. Throws RangeError while fewer than 4 bytes are there,
 * MsgioFrameError for a length above the limit.
 */
export function readMsgioLength(data: {
  byteLength: number;
  subarray(start?: number, end?: number): Uint8Array;
}): number {
  if (data.byteLength < MSGIO_LENGTH_BYTES) throw new RangeError("incomplete msgio length");
  const head = data.subarray(0, MSGIO_LENGTH_BYTES);
  const length = new DataView(head.buffer, head.byteOffset, MSGIO_LENGTH_BYTES).getUint32(0);
  if (length > MSGIO_MAX_SIZE) throw new MsgioFrameError(`frame of ${length} bytes (limit ${MSGIO_MAX_SIZE})`);
  return length;
}

/** One whole frame: prefix and message. */
export function msgioFrame(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(MSGIO_LENGTH_BYTES + message.length);
  out.set(msgioLength(message.length));
  out.set(message, MSGIO_LENGTH_BYTES);
  return out;
}

/** Splits a byte buffer into complete frames; returns them and the unconsumed rest. */
export function splitMsgioFrames(buffer: Uint8Array): { frames: Uint8Array[]; rest: Uint8Array } {
  const frames: Uint8Array[] = [];
  let at = 0;
  while (buffer.length - at >= MSGIO_LENGTH_BYTES) {
    const length = readMsgioLength(buffer.subarray(at));
    if (buffer.length - at - MSGIO_LENGTH_BYTES < length) break;
    frames.push(buffer.subarray(at + MSGIO_LENGTH_BYTES, at + MSGIO_LENGTH_BYTES + length));
    at += MSGIO_LENGTH_BYTES + length;
  }
  return { frames, rest: buffer.subarray(at) };
}
