import { afterAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "bun";
import { cannotMakeHosts, NetnsHosts } from "./netnsHosts.ts";

const skip = cannotMakeHosts();
if (skip) console.warn(`netnsHosts test skipped: ${skip}`);
const hosts = new NetnsHosts(["a", "b"]);
const namespaces = () => spawnSync(["ip", "netns", "list"]).stdout.toString();

afterAll(() => hosts.tearDown());

test("hosts get addresses in their order, the caller .254; an unknown host is refused", () => {
  const [a, b] = [hosts.ipOf("a"), hosts.ipOf("b")];
  expect(a).toMatch(/^10\.\d+\.\d+\.1$/);
  expect(b).toBe(a.replace(/\.1$/, ".2"));
  expect(hosts.rootIp).toBe(a.replace(/\.1$/, ".254"));
  expect(() => hosts.ipOf("c" as "a")).toThrow(/no host c: the hosts are a, b/);
});

describe.skipIf(skip !== undefined)("network namespaces joined by a bridge", () => {
  test("a server on one host answers a client on the other and the caller; tearDown leaves nothing", async () => {
    hosts.setUp();
    expect(namespaces()).toContain(hosts.namespace("a"));
    const server = spawn(
      hosts.exec("a", [
        "bun",
        "-e",
        `Bun.serve({ hostname: "${hosts.ipOf("a")}", port: 27001, fetch: () => new Response("from a") }); console.log("up")`,
      ]),
      { stdout: "pipe" },
    );
    try {
      for await (const c of server.stdout) if (new TextDecoder().decode(c).includes("up")) break;
      const fromB = spawnSync(
        hosts.exec("b", ["bun", "-e", `console.log(await (await fetch("http://${hosts.ipOf("a")}:27001")).text())`]),
      );
      expect(fromB.stdout.toString().trim()).toBe("from a");
      expect(await (await fetch(`http://${hosts.ipOf("a")}:27001`)).text()).toBe("from a");
    } finally {
      server.kill();
      await server.exited;
    }
    hosts.tearDown();
    expect(namespaces()).not.toContain(hosts.namespace("a"));
    expect(namespaces()).not.toContain(hosts.namespace("hub"));
  }, 30_000);
});
