/**
 * `npm run node -- --role provider --new-key FILE [--dev-account N]`: writes a node key for `--key-file` (and for
 * upstream's `--priv-key-file`: 64 hex digits, no 0x, a newline) and says whose it is. A new random key holds no
 * funds; `--dev-account N` writes account N of Anvil's default mnemonic instead, which a devnet funds.
 */
import { existsSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Address, Hex } from "viem";
import { generatePrivateKey } from "viem/accounts";
import { argsErrorMessage } from "../../lib/cli.ts";
import { devAccount } from "../chain/accounts.ts";
import { peerIdOf } from "../p2p/wire/peerIdentity.ts";
import { privateKeyToAddress } from "../protocol/secp256k1.ts";
import { RoleConfigError } from "./roleConfig.ts";

export interface NewKeyRequest {
  file: string;
  /** Anvil's dev account of this index; undefined: a new random key. */
  devAccount?: number;
}

/** The --new-key request of a `--role` command line, or undefined when it has no --new-key. */
export function newKeyRequest(argv: string[]): NewKeyRequest | undefined {
  if (!argv.some((a) => a === "--new-key" || a.startsWith("--new-key="))) return undefined;
  let values: { "new-key"?: string; "dev-account"?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      allowPositionals: false,
      options: { role: { type: "string" }, "new-key": { type: "string" }, "dev-account": { type: "string" } },
    }));
  } catch (e) {
    throw new RoleConfigError(
      `${argsErrorMessage(e as Error)}; --new-key FILE takes only --dev-account N besides --role`,
    );
  }
  const file = values["new-key"];
  if (!file) throw new RoleConfigError("--new-key needs a file name");
  const n = values["dev-account"];
  if (n !== undefined && !/^\d{1,4}$/.test(n))
    throw new RoleConfigError(`--dev-account must be an account index (0 to 9999), got "${n}"`);
  return { file, devAccount: n === undefined ? undefined : Number(n) };
}

export interface WrittenKey {
  file: string;
  address: Address;
  peerId: string;
  devAccount?: number;
}

/** Writes the key (never over an existing file) and answers whose it is. */
export function writeNewKey(r: NewKeyRequest): WrittenKey {
  if (existsSync(r.file))
    throw new RoleConfigError(`--new-key: ${r.file} exists and is left as it is (use it with --key-file ${r.file})`);
  const key: Hex = r.devAccount === undefined ? generatePrivateKey() : devAccount(r.devAccount).privateKey;
  writeFileSync(r.file, `${key.slice(2)}\n`, { mode: 0o600 });
  return {
    file: r.file,
    address: privateKeyToAddress(key),
    peerId: peerIdOf(key).toString(),
    devAccount: r.devAccount,
  };
}

/** What `--new-key` prints. */
export function describeWrittenKey(k: WrittenKey): string {
  const whose =
    k.devAccount === undefined
      ? "a new random key: fund its address on the settlement chain before it stakes or deposits"
      : `dev account ${k.devAccount} of Anvil's default mnemonic (a devnet funds it; accounts 10 to 15 are free, docs/p2p.md)`;
  return `wrote ${k.file}: ${whose}\n  address  ${k.address}\n  peer id  ${k.peerId}\n`;
}
