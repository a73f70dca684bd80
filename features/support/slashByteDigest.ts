/**
 * Upstream's v1.2.5 node keys a stored commitment as `cm/<block>/<inverted amount>/<digest as raw bytes>` and its
 * cleanup deletes every key it cannot split at "/" into four parts (`p2p/pkg/preconfirmation/store/store.go`,
 * `ClearCommitmentIndexes`): a digest holding the byte 0x2f ("/") makes such a key. The suite reports what befalls
 * a commitment of that kind instead of judging it (docs/conformance.md §10).
 */

/** The docs/divergences.md entry of that defect, and the name of its observation. */
export const SLASH_BYTE_DIGEST = "Commitment digest holding a 0x2f byte";

/** Whether a digest (hex, with or without 0x) holds the byte 0x2f: on a byte boundary, not any "2f" of its text. */
export function holdsSlashByte(digestHex: string): boolean {
  return Buffer.from(digestHex.toLowerCase().replace(/^0x/, ""), "hex").includes(0x2f);
}
