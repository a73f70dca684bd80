import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/** proto/ is the single source of the wire: the committed node/gen/proto must be what `npm run proto` makes of it. */
const root = join(import.meta.dir, "..", "..");

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
}

test("node/gen/proto is up to date with proto/ (run `npm run proto` after editing a .proto)", () => {
  const out = mkdtempSync(join(tmpdir(), "proto-gen-"));
  try {
    const template = JSON.stringify({
      version: "v2",
      clean: true,
      // As buf.gen.yaml, into a temp dir.
      plugins: [{ local: "protoc-gen-es", strategy: "all", out, opt: ["target=ts", "import_extension=ts"] }],
    });
    // As buf.gen.v1.2.yaml: the v1.2 node API, a module of its own, into v1.2/.
    const templateV12 = JSON.stringify({
      version: "v2",
      plugins: [
        { local: "protoc-gen-es", strategy: "all", out: join(out, "v1.2"), opt: ["target=ts", "import_extension=ts"] },
      ],
    });
    const bin = join(root, "node_modules", ".bin");
    const generate = (args: string[]) => {
      const r = Bun.spawnSync([join(bin, "buf"), "generate", ...args], {
        cwd: root,
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      });
      expect(r.stderr.toString()).toBe("");
      expect(r.exitCode).toBe(0);
    };
    generate(["proto", "--exclude-path", "proto/v1.2", "--template", template]);
    generate(["proto/v1.2", "--template", templateV12]);
    const fresh = files(out);
    const committed = files(join(root, "node", "gen", "proto"));
    expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, text] of fresh) expect({ name, text: committed.get(name) }).toEqual({ name, text });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 60_000); // buf generate over every proto takes seconds on a loaded 2-core machine
