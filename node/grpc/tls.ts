import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { generate } from "selfsigned";
import { MevCommitError } from "../../lib/errors.ts";

/** A PEM certificate chain and its private key for the gRPC listeners. */
export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

export class TlsFileError extends MevCommitError {}

/** Reads `--rpc-tls-cert` / `--rpc-tls-key`. */
export function readTlsFiles(certPath: string, keyPath: string): TlsFiles {
  try {
    return { cert: readFileSync(certPath), key: readFileSync(keyPath) };
  } catch (e) {
    throw new TlsFileError(
      `cannot read the RPC TLS certificate or key (${certPath}, ${keyPath}): ${(e as Error).message}`,
      { cause: e },
    );
  }
}

/**
 * The devnet's own certificate for `--rpc-tls`: a self-signed P-256 certificate for localhost, 127.0.0.1 and ::1
 * (plus `host` when it is another name or address), made once and kept in the data dir. Clients dial it with
 * verification off, or trust the file.
 */
export async function devnetCertificate(certPath: string, keyPath: string, host: string): Promise<TlsFiles> {
  if (existsSync(certPath) && existsSync(keyPath)) return readTlsFiles(certPath, keyPath);
  const isIp = /^[0-9.]+$|:/.test(host);
  const altNames = [
    { type: 2 as const, value: "localhost" },
    { type: 7 as const, ip: "127.0.0.1" },
    { type: 7 as const, ip: "::1" },
    ...(["localhost", "127.0.0.1", "::1", "0.0.0.0", "::"].includes(host)
      ? []
      : [isIp ? { type: 7 as const, ip: host } : { type: 2 as const, value: host }]),
  ];
  const pems = await generate([{ name: "commonName", value: "mev-commit devnet" }], {
    keyType: "ec",
    curve: "P-256",
    algorithm: "sha256",
    notAfterDate: new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames },
    ],
  });
  mkdirSync(dirname(certPath), { recursive: true });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert);
  return { cert: Buffer.from(pems.cert), key: Buffer.from(pems.private) };
}
