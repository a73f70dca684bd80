/** Barrel of the pure protocol code. Await `initCrypto()` once before any BN254 operation. */

export * from "./bidSigning.ts";
export * from "./bidValidation.ts";
export * from "./bn254.ts";
export * from "./bytes.ts";
export * from "./commitmentSigning.ts";
export * from "./decay.ts";
export * from "./depositValidation.ts";
export * from "./digest.ts";
export * from "./grpcCodes.ts";
export * from "./initCrypto.ts";
export * from "./jsonText.ts";
export * from "./processedBid.ts";
export * from "./protocolVersion.ts";
export * from "./protoJson.ts";
export * from "./protoValidation.ts";
export * from "./queryParams.ts";
export * from "./rawTransaction.ts";
export * from "./rules.ts";
export * from "./secp256k1.ts";
export * from "./types.ts";
export * from "./windows.ts";
export * from "./zkProof.ts";
