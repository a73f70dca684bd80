/** `--rpc-tls`: the devnet's certificate is made once into the data dir, and the gRPC server speaks TLS with it. */
import { afterAll, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAddress } from "viem";
import { DebugService as DebugPb } from "../gen/proto/debugapi/v1/debugapi_pb.ts";
import { InProcessNetwork } from "../network/network.ts";
import { Notifier } from "../notify/notifier.ts";
import { rulesOf } from "../protocol/rules.ts";
import { DebugService } from "../services/debugService.ts";
import { NotificationsService } from "../services/notificationsService.ts";
import { ValidatorApiService } from "../services/validatorApiService.ts";
import { GrpcCallError, GrpcClient } from "./client.ts";
import { serveGrpc } from "./server.ts";
import { devnetCertificate } from "./tls.ts";

const dir = mkdtempSync(join(tmpdir(), "rpc-tls-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const self = "0x00000000000000000000000000000000000000aa" as const;
const services = {
  role: "bidder" as const,
  address: self,
  notifications: new NotificationsService(new Notifier(), rulesOf("v1.1")),
  validator: new ValidatorApiService({ currentEpoch: async () => 1n, getValidators: async () => new Map() }),
  debug: new DebugService(new InProcessNetwork(), self, "bidder"),
};

test("a self-signed certificate for localhost and 127.0.0.1 is made once and reused", async () => {
  const cert = join(dir, "rpc-tls", "cert.pem");
  const key = join(dir, "rpc-tls", "key.pem");
  const first = await devnetCertificate(cert, key, "127.0.0.1");
  const x509 = new X509Certificate(first.cert);
  expect(x509.subjectAltName).toContain("DNS:localhost");
  expect(x509.subjectAltName).toContain("IP Address:127.0.0.1");
  expect(x509.publicKey.asymmetricKeyType).toBe("ec");
  expect(statSync(key).mode & 0o077).toBe(0);
  const again = await devnetCertificate(cert, key, "127.0.0.1");
  expect(again.cert.toString()).toBe(readFileSync(cert, "utf8"));
});

test("with TLS the node answers https:// clients (verification off, as upstream's tools dial) and refuses plaintext", async () => {
  const tls = await devnetCertificate(join(dir, "c.pem"), join(dir, "k.pem"), "127.0.0.1");
  const served = await serveGrpc(services, { host: "127.0.0.1", port: 0, tls }, "tls test node");
  try {
    expect(served.url).toBe(`https://127.0.0.1:${served.port}`);
    const secure = new GrpcClient(DebugPb, served.url);
    const topology = await secure.unary("getTopology");
    expect(topology.topology).toEqual({ self: { "Ethereum Address": getAddress(self), "Peer Type": "bidder" } });
    secure.close();
    const plain = new GrpcClient(DebugPb, `http://127.0.0.1:${served.port}`);
    const e = await plain.unary("getTopology", {}, 3_000).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(GrpcCallError);
    plain.close();
  } finally {
    await served.stop();
  }
});
