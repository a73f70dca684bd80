/** How the suite compares a gRPC status a client saw with the one a scenario expects. */

/**
 * A gRPC status seen by a client against the envelope a scenario expects. The message travels in the grpc-message
 * trailer, and an HTTP/2 field value may not begin or end with whitespace (RFC 9113 §8.2.1): grpc-go sends
 * `invalid topic: ` as it is, and the HTTP/2 layers of Bun and Node drop such a trailer, so the client sees no
 * message at all, while grpc-js percent-encodes the space and it arrives. So the messages are compared without their
 * outer whitespace, and when the expected one has outer whitespace and the client saw none, the code alone decides:
 * what the client could see agrees with the expectation.
 */
export function sameGrpcStatus(text: string, body: string): boolean {
  type Envelope = { error?: { code?: number; message?: string; details?: unknown[] } };
  let got: Envelope;
  try {
    got = JSON.parse(text) as Envelope;
  } catch {
    return false;
  }
  const want = JSON.parse(body) as Envelope;
  if (!got.error || !want.error || got.error.code !== want.error.code) return false;
  if (JSON.stringify(got.error.details ?? []) !== JSON.stringify(want.error.details ?? [])) return false;
  const gotMessage = got.error.message ?? "";
  const wantMessage = want.error.message ?? "";
  if (gotMessage.trim() === wantMessage.trim()) return true;
  return gotMessage === "" && wantMessage !== wantMessage.trim();
}
