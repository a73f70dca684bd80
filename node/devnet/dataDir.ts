import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";

/** Where a devnet keeps its state. Everything a restart needs lives here; `--fresh` deletes it. */
export class DataDir {
  readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  /** Deletes everything in it but the lock of the devnet that wipes it. */
  wipe(): void {
    if (!existsSync(this.root)) return;
    for (const entry of readdirSync(this.root))
      if (entry !== basename(this.lockFile)) rmSync(join(this.root, entry), { recursive: true, force: true });
  }

  ensure(): void {
    mkdirSync(this.root, { recursive: true });
  }

  /** Held by the devnet running on this data dir (its pid and ports): node/devnet/dataDirLock.ts. */
  get lockFile(): string {
    return join(this.root, "devnet.lock");
  }

  get pidDir(): string {
    return join(this.root, "run");
  }

  chainState(name: "l1" | "settlement"): string {
    return join(this.root, "chain", `${name}-state.json`);
  }

  store(name: string): string {
    return join(this.root, "stores", `${name}.sqlite`);
  }

  get contractsFile(): string {
    return join(this.root, "contracts.json");
  }

  /** The certificate `--rpc-tls` makes for the gRPC listeners, and its key. */
  get rpcTlsCert(): string {
    return join(this.root, "rpc-tls", "cert.pem");
  }

  get rpcTlsKey(): string {
    return join(this.root, "rpc-tls", "key.pem");
  }

  get targetFile(): string {
    return join(this.root, "target.json");
  }

  readJson<T>(file: string): T | undefined {
    if (!existsSync(file)) return undefined;
    return JSON.parse(readFileSync(file, "utf8")) as T;
  }

  /** Writes atomically (temp file + rename), so a crash never leaves half a file. */
  writeJson(file: string, value: unknown): void {
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
    renameSync(tmp, file);
  }
}
