/**
 * Key exchange (p2p.md "Encryption", upstream pkg/keyexchange): a bidder gives providers the AES key its bids are
 * sealed with. The EncryptedKeysMessage holds the key ECIES-encrypted to each provider's PKE key and the AES-GCM
 * sealed text "mev-commit bidder <address> setup <unix seconds>"; the bidder signs keccak256 of the encoded message
 * (v = 0/1). A provider accepts it from a bidder peer whose address signed it, when one of the keys opens with its
 * ECIES key, the text has that form, and the timestamp is at most 60 s old.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Address, getAddress } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";
import {
  type EKMWithSignature,
  EKMWithSignatureSchema,
  EncryptedKeysMessageSchema,
} from "../../gen/proto/p2p/keyexchange/v1/keyexchange_pb.ts";
import { openAesGcm, sealAesGcm } from "./aesGcm.ts";
import { eciesDecrypt, eciesEncrypt } from "./ecies.ts";
import { recoverMessageSigner, signMessageHash } from "./hashSignature.ts";

export const TIMESTAMP_MAX_AGE_S = 60;

export class KeyExchangeError extends MevCommitError {}

export function timestampMessage(bidder: Address, unixSeconds: number): string {
  return `mev-commit bidder ${getAddress(bidder)} setup ${unixSeconds}`;
}

/** The seconds of a timestamp message (upstream parseTimestampMessage: five space-separated fields). */
export function parseTimestampMessage(text: string): number {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5 || parts[0] !== "mev-commit" || parts[1] !== "bidder" || parts[3] !== "setup")
    throw new KeyExchangeError("message format is incorrect");
  if (!/^[+-]?\d+$/.test(parts[4]!)) throw new KeyExchangeError("invalid timestamp");
  return Number(parts[4]);
}

export function sealKeyExchange(o: {
  bidderPrivateKey: Uint8Array | string;
  bidder: Address;
  aesKey: Uint8Array;
  /** Each provider's PKE (ECIES) public key. */
  providerKeys: readonly Uint8Array[];
  nowSeconds?: number;
}): EKMWithSignature {
  const message = toBinary(
    EncryptedKeysMessageSchema,
    create(EncryptedKeysMessageSchema, {
      EncryptedKeys: o.providerKeys.map((k) => eciesEncrypt(k, o.aesKey)),
      TimestampMessage: sealAesGcm(
        o.aesKey,
        new TextEncoder().encode(timestampMessage(o.bidder, o.nowSeconds ?? Math.floor(Date.now() / 1000))),
      ),
    }),
  );
  return create(EKMWithSignatureSchema, { Message: message, Signature: signMessageHash(o.bidderPrivateKey, message) });
}

/** The bidder's AES key, or a KeyExchangeError / SignatureVerificationError. */
export function openKeyExchange(
  ekm: EKMWithSignature,
  o: { bidder: Address; eciesPrivateKey: Uint8Array; nowSeconds?: number },
): Uint8Array {
  const signer = recoverMessageSigner(ekm.Message, ekm.Signature);
  if (getAddress(signer) !== getAddress(o.bidder))
    throw new KeyExchangeError(`observed address mismatch: signed by ${signer}, sent by ${o.bidder}`);
  let message;
  try {
    message = fromBinary(EncryptedKeysMessageSchema, ekm.Message);
  } catch (e) {
    throw new KeyExchangeError(`failed to unmarshal message: ${(e as Error).message}`);
  }
  let aesKey: Uint8Array | undefined;
  for (const k of message.EncryptedKeys) {
    try {
      aesKey = eciesDecrypt(o.eciesPrivateKey, k);
      break;
    } catch {
      // not for us: try the next
    }
  }
  if (!aesKey) throw new KeyExchangeError("none of the AES keys could be decrypted");
  let text: string;
  try {
    text = new TextDecoder().decode(openAesGcm(aesKey, message.TimestampMessage));
  } catch (e) {
    throw new KeyExchangeError(`failed to decrypt message: ${(e as Error).message}`);
  }
  const seconds = parseTimestampMessage(text);
  if ((o.nowSeconds ?? Math.floor(Date.now() / 1000)) - seconds > TIMESTAMP_MAX_AGE_S)
    throw new KeyExchangeError("the timestamp is more than 1 minute old");
  return aesKey;
}
