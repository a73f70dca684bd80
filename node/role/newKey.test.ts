import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { devAccount } from "../chain/accounts.ts";
import { peerIdOf } from "../p2p/wire/peerIdentity.ts";
import { privateKeyToAddress } from "../protocol/secp256k1.ts";
import { newKeyRequest, writeNewKey } from "./newKey.ts";
import { parseRoleArgs, RoleConfigError } from "./roleConfig.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "new-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A --role command line that uses the key file (the contracts file only has to parse). */
function keyOf(file: string) {
  const contracts = join(dir, "contracts.json");
  const a = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
  const names = ["blockTracker", "providerRegistry", "bidderRegistry", "preconfManager", "oracle"];
  writeFileSync(
    contracts,
    JSON.stringify({ ...Object.fromEntries(names.map((n) => [n, a])), settlementRpcUrl: "http://x" }),
  );
  const cfg = parseRoleArgs(["--role", "provider", "--key-file", file, "--contracts", contracts]);
  if (cfg === "help") throw new Error("help");
  return cfg.nodeKey;
}

describe("--new-key", () => {
  test("writes a random key that --key-file reads, as 64 hex digits without 0x, readable by its owner only", () => {
    const file = join(dir, "random.key");
    const k = writeNewKey(newKeyRequest(["--role", "provider", "--new-key", file])!);
    expect(readFileSync(file, "utf8")).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = keyOf(file);
    expect(k.address).toBe(privateKeyToAddress(key));
    expect(k.peerId).toBe(peerIdOf(key).toString());
    const other = join(dir, "random2.key");
    writeNewKey({ file: other });
    expect(readFileSync(other, "utf8")).not.toBe(readFileSync(file, "utf8"));
  });

  test("--dev-account N writes Anvil's dev account N", () => {
    const file = join(dir, "dev10.key");
    const k = writeNewKey(newKeyRequest(["--role", "provider", "--new-key", file, "--dev-account", "10"])!);
    expect(k.address).toBe(devAccount(10).address);
    expect(keyOf(file)).toBe(devAccount(10).privateKey);
  });

  test("never writes over a file, and takes no node flags", () => {
    const file = join(dir, "kept.key");
    writeFileSync(file, "keep me");
    expect(() => writeNewKey({ file })).toThrow(RoleConfigError);
    expect(readFileSync(file, "utf8")).toBe("keep me");
    expect(() => newKeyRequest(["--role", "provider", "--new-key", file, "--p2p-port", "1"])).toThrow(RoleConfigError);
    expect(() => newKeyRequest(["--role", "provider", "--new-key", file, "--dev-account", "x"])).toThrow(
      RoleConfigError,
    );
    expect(newKeyRequest(["--role", "provider", "--key-file", file])).toBeUndefined();
  });

  test("the CLI prints the address and peer id, and exits 2 on a file that exists", async () => {
    const file = join(dir, "cli.key");
    const run = (...args: string[]) =>
      Bun.spawnSync(["bun", "node/main.ts", "--role", "provider", "--new-key", file, ...args], { cwd: ROOT });
    const ok = run("--dev-account", "11");
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout.toString()).toContain(`address  ${devAccount(11).address}`);
    expect(ok.stdout.toString()).toContain(`peer id  ${peerIdOf(devAccount(11).privateKey).toString()}`);
    const again = run();
    expect(again.exitCode).toBe(2);
    expect(again.stderr.toString()).toStartWith(`error: --new-key: ${file} exists`);
  }, 60_000);
});

describe("the docs' --new-key commands", () => {
  // Each `npm run node -- --role … --new-key …` the docs show (in a code block or inline, wrapped lines joined).
  const docs = ["docs/p2p.md", "docs/interop.md", "docs/conformance.md"].map((d) =>
    readFileSync(join(ROOT, d), "utf8").replace(/\s+/g, " "),
  );
  const commands = docs.flatMap((text) =>
    [...text.matchAll(/npm run node -- (--role \w+ --new-key [^`#\n]*?)(?=\s*(?:`|#|npm run|$))/g)].map((m) =>
      m[1]!.trim().split(" "),
    ),
  );

  test("the docs show them (the extraction finds them)", () => {
    expect(commands.length).toBeGreaterThanOrEqual(3);
  });

  test.each(commands.map((args) => [args.join(" "), args]))(
    "%s: the --role CLI takes it as a key to write",
    (_c, args) => {
      expect(newKeyRequest(args as string[])?.file).toBeString();
    },
  );
});
