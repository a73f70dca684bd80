import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import { devAccount, ROLES } from "../chain/accounts.ts";
import { peerIdOf } from "../p2p/wire/peerIdentity.ts";
import { freePortBase } from "../testing/freePortBase.ts";
import { stopProcesses } from "../testing/stopProcesses.ts";
import { until } from "../util/deadline.ts";
import { freePorts } from "../util/ports.ts";

/**
 * docs/p2p.md's "A provider of your own" runs as written: its lines one after another in bash, a devnet, a key, a
 * provider process, its stake through its own API and a bid, and the bid gets a commitment from that provider. Only
 * what a reader's machine has and this one must not use is changed: the devnet's and the provider's ports (a free port
 * base and free ports); the lines run in a directory of the test's own (the key file, .devnet/, the node's store),
 * `npm run X --` is the package.json script it names, and the devnet and the provider get `--parent-pid`.
 */
const ROOT = resolve(import.meta.dir, "../..");
const DOC = readFileSync(join(ROOT, "docs", "p2p.md"), "utf8");
const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> })
  .scripts;

/** The lines of the code block after the `own-provider` marker. */
function docLines(): string[] {
  const block = /<!-- own-provider:[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(DOC)?.[1];
  if (!block) throw new Error("docs/p2p.md has no own-provider code block");
  return block
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

const dir = mkdtempSync(join(tmpdir(), "own-provider-"));
const children: { proc: Subprocess; name: string }[] = [];
afterAll(async () => {
  try {
    await stopProcesses(children);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

/** A doc line on this test's ports, run in the test's directory (its key file, .devnet/ and the node's store). */
function onOwnPorts(line: string, base: number, p2p: number): string {
  let out = line
    .replaceAll("13510", String(base + 10))
    .replaceAll("14022", String(p2p))
    .replaceAll("14023", String(p2p + 1))
    .replaceAll("14024", String(p2p + 2));
  if (out === "npm run node") out += ` -- --port-base ${base} --fresh`;
  // The nodes stop by themselves if this test process dies before afterAll stops them (--new-key starts none).
  if (out.startsWith("npm run node --") && !out.includes("--new-key")) out += ` --parent-pid ${process.pid}`;
  return out.replace(/^npm run (\S+)( --)?/, (_m, name: string) => {
    const script = SCRIPTS[name];
    if (!script) throw new Error(`docs/p2p.md runs npm run ${name}, which package.json does not have`);
    return script.replace(/^bun /, `bun ${ROOT}/`);
  });
}

/** Starts a line in the background; its output is collected. */
function background(cmd: string, name: string): { out: () => string; proc: Subprocess } {
  const proc = spawn(["bash", "-c", `exec ${cmd}`], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  children.push({ proc, name });
  let text = "";
  const dec = new TextDecoder();
  for (const s of [proc.stdout, proc.stderr])
    void (async () => {
      for await (const c of s) text += dec.decode(c);
    })();
  return { proc, out: () => text };
}

function run(cmd: string): string {
  const r = Bun.spawnSync(["bash", "-c", cmd], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const out = r.stdout.toString() + r.stderr.toString();
  if (r.exitCode !== 0) throw new Error(`${cmd} exited ${r.exitCode}:\n${out}`);
  return out;
}

describe("docs/p2p.md, a provider of your own", () => {
  test("the doc's bootnode is the devnet's", () => {
    const id = peerIdOf(devAccount(ROLES.bootnode).privateKey).toString();
    expect(docLines().join("\n")).toContain(`--bootnodes /ip4/127.0.0.1/tcp/13510/p2p/${id} `);
  });

  test("its lines, run as written, give a bid a commitment from the new provider", async () => {
    const lines = docLines();
    expect(lines.map((l) => l.split(" ").slice(0, 4).join(" "))).toEqual([
      "npm run node",
      "npm run node --",
      "npm run node --",
      'curl -X POST "localhost:14023/v1/provider/stake/20000000000000000000?bls_public_keys=0x$(openssl',
      "npm run bid",
    ]);
    const base = await freePortBase(2);
    const [p2p] = await freePorts(1);
    const [devnetLine, keyLine, providerLine, stakeLine, bidLine] = lines.map((l) => onOwnPorts(l, base, p2p!));
    const devnet = background(devnetLine!, "devnet");
    await until(
      "the devnet's banner",
      120_000,
      () => existsSync(join(dir, ".devnet", "target.json")) && /Ctrl-C/.test(devnet.out()),
    );
    const started = Date.now();

    const key = run(keyLine!);
    expect(key).toContain(`address  ${devAccount(10).address}`);
    const provider = background(providerLine!, "provider");
    await until("the provider's API", 60_000, () => /API\s+http/.test(provider.out()));
    // As at a reader's pace, the stake call comes after the provider's first bootstrap tick: once it says it waits.
    await until("the provider's wait for its stake", 60_000, () =>
      provider.out().includes("not staked: this provider dials its bootnodes once"),
    );

    const stake = run(stakeLine!);
    expect(stake).toContain('"amount":"20000000000000000000"');
    await until("the provider in the network", 30_000, () => /peer connected .*type=bidder/.test(provider.out()));
    const bid = run(bidLine!);
    const seconds = (Date.now() - started) / 1000;
    expect(bid.toLowerCase()).toContain(`"provideraddress": "${devAccount(10).address.slice(2).toLowerCase()}"`);
    expect(bid).toContain("3 commitment(s)");
    expect(provider.out()).not.toContain("handshake refused");
    console.log(`docs/p2p.md: from the devnet's banner to the new provider's commitment: ${seconds.toFixed(1)} s`);
  }, 240_000);
});
