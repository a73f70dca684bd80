import type * as grpc from "@grpc/grpc-js";

const raw = (b: Buffer) => b;

/**
 * A server-streaming call with raw request bytes (no schema on either side, so a test can send what no generated
 * client would): every message's bytes, and the final status when it is an error.
 */
export async function rawServerStream(
  client: grpc.Client,
  path: string,
  bytes: Uint8Array,
): Promise<{ messages: Buffer[]; error?: grpc.ServiceError }> {
  const call = client.makeServerStreamRequest(path, raw, raw, Buffer.from(bytes));
  const messages: Buffer[] = [];
  try {
    for await (const m of call) messages.push(m as Buffer);
    return { messages };
  } catch (e) {
    return { messages, error: e as grpc.ServiceError };
  }
}
