/**
 * Compiles the Solidity contracts in `node/chain/contracts/` with the pinned `solc` npm package (standard JSON,
 * optimizer on) and caches the result under `<repo>/.cache/contracts/<sha256>.json`, keyed by the sources, the
 * compiler version and the settings, so that a restart does not recompile. The compiled contracts are also committed
 * (`compiled-contracts.json`, written by `bun node/chain/compile.ts --write-abi-ts`): a fresh clone whose sources
 * match them runs no solc at all (a cold solc-js compile takes 19 to 111 s on a 2-core machine);
 * contracts.test.ts fails when the sources changed and they were not written again.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import type { Abi, Hex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";

/**
 * The deployable contracts (one `.sol` file each): the five core contracts of the settlement chain and the
 * validator opt-in registry of the L1 chain.
 */
export const CONTRACT_NAMES = [
  "BlockTracker",
  "ProviderRegistry",
  "BidderRegistry",
  "PreconfManager",
  "Oracle",
  "ValidatorOptInRouter",
] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

export interface CompiledContract {
  abi: Abi;
  /** Creation bytecode (0x-prefixed). */
  bytecode: Hex;
}

export interface CompiledContracts {
  solcVersion: string;
  /** sha256 of compiler version, settings and sources: the cache key. */
  sourceHash: string;
  contracts: Record<ContractName, CompiledContract>;
}

export class ContractCompileError extends MevCommitError {
  constructor(readonly errors: string[]) {
    super(`solidity compilation failed:\n${errors.join("\n")}`, { context: { errors } });
  }
}

export const CONTRACTS_DIR = resolve(import.meta.dir, "contracts");
const REPO_ROOT = resolve(import.meta.dir, "../..");
export const DEFAULT_CACHE_DIR = join(REPO_ROOT, ".cache", "contracts");
/** The committed compile of the current sources (see the file comment). */
export const COMMITTED_CONTRACTS = resolve(import.meta.dir, "compiled-contracts.json");

export const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
} as const;

export function solcPackageVersion(): string {
  const require = createRequire(import.meta.url);
  return (require("solc/package.json") as { version: string }).version;
}

export type SoliditySources = Record<string, { content: string }>;

function readSources(dir: string): Record<string, { content: string }> {
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".sol"))
    .sort()) {
    sources[file] = { content: readFileSync(join(dir, file), "utf8") };
  }
  return sources;
}

/** sha256 of the compiler version, the settings and the sources: the cache key of a compile. */
export function hashInputs(version: string, sources: SoliditySources, settings: object = SETTINGS): string {
  const h = createHash("sha256");
  h.update(`solc ${version}\n`);
  h.update(JSON.stringify(settings));
  for (const [name, { content }] of Object.entries(sources)) {
    h.update(`\n--- ${name} ${content.length}\n`);
    h.update(content);
  }
  return h.digest("hex");
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

function runSolc(sources: SoliditySources): CompiledContracts["contracts"] {
  return runSolcOn(sources, CONTRACT_NAMES, (name) => `${name}.sol`);
}

/** Compiles `sources` and returns contract `name` of source unit `unitOf(name)` for every name. */
export function runSolcOn<N extends string>(
  sources: SoliditySources,
  names: readonly N[],
  unitOf: (name: N) => string,
  settings: object = SETTINGS,
): Record<N, CompiledContract> {
  const require = createRequire(import.meta.url);
  const solc = require("solc") as { compile(input: string): string };
  const output = JSON.parse(solc.compile(JSON.stringify({ language: "Solidity", sources, settings }))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error").map((e) => e.formattedMessage);
  if (errors.length) throw new ContractCompileError(errors);
  const out = {} as Record<N, CompiledContract>;
  for (const name of names) {
    const c = output.contracts?.[unitOf(name)]?.[name];
    if (!c) throw new ContractCompileError([`contract ${name} missing from solc output`]);
    out[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  return out;
}

/** The cache key of the sources in `sourcesDir`: sha256 of the compiler version, the settings and the sources. */
export function contractSourceHash(sourcesDir = CONTRACTS_DIR): string {
  return hashInputs(solcPackageVersion(), readSources(sourcesDir));
}

/** The committed compile, if it is one of exactly these inputs. */
function readCommitted(sourceHash: string): CompiledContracts | undefined {
  if (!existsSync(COMMITTED_CONTRACTS)) return undefined;
  const committed = JSON.parse(readFileSync(COMMITTED_CONTRACTS, "utf8")) as CompiledContracts;
  return committed.sourceHash === sourceHash && CONTRACT_NAMES.every((n) => committed.contracts[n]?.bytecode)
    ? committed
    : undefined;
}

let memo: { key: string; value: CompiledContracts } | undefined;

/**
 * Returns ABI and bytecode of every contract, from the in-memory memo, the disk cache, or a fresh compile
 * (a few seconds with solc-js; the result is cached).
 */
export async function compileContracts(
  opts: { cacheDir?: string; sourcesDir?: string; force?: boolean } = {},
): Promise<CompiledContracts> {
  const cacheDir = opts.cacheDir ?? DEFAULT_CACHE_DIR;
  const sources = readSources(opts.sourcesDir ?? CONTRACTS_DIR);
  const solcVersion = solcPackageVersion();
  const sourceHash = hashInputs(solcVersion, sources);
  const key = `${cacheDir}:${sourceHash}`;
  if (!opts.force && memo?.key === key) return memo.value;

  const file = join(cacheDir, `${sourceHash}.json`);
  if (!opts.force && existsSync(file)) {
    try {
      const cached = JSON.parse(readFileSync(file, "utf8")) as CompiledContracts;
      if (cached.sourceHash === sourceHash && CONTRACT_NAMES.every((n) => cached.contracts[n]?.bytecode)) {
        memo = { key, value: cached };
        return cached;
      }
    } catch {
      // unreadable cache entry: recompile and overwrite
    }
  }
  const committed = opts.force || opts.sourcesDir ? undefined : readCommitted(sourceHash);
  if (committed) {
    memo = { key, value: committed };
    return committed;
  }

  const value: CompiledContracts = { solcVersion, sourceHash, contracts: runSolc(sources) };
  mkdirSync(cacheDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value));
  renameSync(tmp, file);
  memo = { key, value };
  return value;
}

interface AbiParam {
  type: string;
  name?: string;
  indexed?: boolean;
  components?: readonly AbiParam[];
}

function formatParam(p: AbiParam): string {
  let type = p.type;
  if (type.startsWith("tuple")) type = `(${(p.components ?? []).map(formatParam).join(", ")})${type.slice(5)}`;
  return [type, p.indexed ? "indexed" : "", p.name ?? ""].filter(Boolean).join(" ");
}

/** Human-readable signatures (viem `parseAbi` syntax, parameter names kept), sorted like solc's output. */
export function formatHumanReadableAbi(abi: Abi): string[] {
  // biome-ignore lint/suspicious/useIterableCallbackReturn: the switch returns for every type of ABI item
  return abi.map((item) => {
    const params = (xs: readonly AbiParam[] | undefined) => (xs ?? []).map(formatParam).join(", ");
    switch (item.type) {
      case "function": {
        const mut = item.stateMutability === "nonpayable" ? "" : ` ${item.stateMutability}`;
        const outs = item.outputs.length ? ` returns (${params(item.outputs)})` : "";
        return `function ${item.name}(${params(item.inputs)})${mut}${outs}`;
      }
      case "event":
        return `event ${item.name}(${params(item.inputs)})`;
      case "error":
        return `error ${item.name}(${params(item.inputs)})`;
      case "constructor":
        return `constructor(${params(item.inputs)})${item.stateMutability === "payable" ? " payable" : ""}`;
      case "fallback":
        return `fallback() external${item.stateMutability === "payable" ? " payable" : ""}`;
      case "receive":
        return "receive() external payable";
    }
  });
}

/** The generated part of contracts.ts: one typed `parseAbi([...])` constant per contract. */
export function abiTsBlock(compiled: CompiledContracts): string {
  const out: string[] = [];
  for (const name of CONTRACT_NAMES) {
    const varName = `${name[0]!.toLowerCase()}${name.slice(1)}Abi`;
    const lines = formatHumanReadableAbi(compiled.contracts[name].abi).map((s) => `  ${JSON.stringify(s)},`);
    out.push(`export const ${varName} = parseAbi([\n${lines.join("\n")}\n]);\n`);
  }
  return out.join("\n");
}

export const CONTRACTS_TS = resolve(import.meta.dir, "contracts.ts");
const BEGIN = "// BEGIN GENERATED ABIS (bun node/chain/compile.ts --write-abi-ts)\n";
const END = "// END GENERATED ABIS\n";

/** The generated block currently in contracts.ts. */
export function currentAbiTsBlock(): string {
  const src = readFileSync(CONTRACTS_TS, "utf8");
  const a = src.indexOf(BEGIN);
  const b = src.indexOf(END);
  if (a < 0 || b < a) throw new Error(`generated ABI markers missing in ${CONTRACTS_TS}`);
  return `${src.slice(a + BEGIN.length, b).trim()}\n`;
}

/**
 * `bun node/chain/compile.ts` compiles (cached); `--force` recompiles; `--abi-ts` prints the typed ABI block of
 * contracts.ts; `--write-abi-ts` rewrites that block in place and writes compiled-contracts.json (run it after
 * changing a contract; `contracts.test.ts` fails until both match the sources).
 */
if (import.meta.main) {
  const started = performance.now();
  const compiled = await compileContracts({ force: process.argv.includes("--force") });
  if (process.argv.includes("--abi-ts")) {
    console.log(abiTsBlock(compiled));
  } else if (process.argv.includes("--write-abi-ts")) {
    const src = readFileSync(CONTRACTS_TS, "utf8");
    const a = src.indexOf(BEGIN);
    const b = src.indexOf(END);
    if (a < 0 || b < a) throw new Error(`generated ABI markers missing in ${CONTRACTS_TS}`);
    writeFileSync(CONTRACTS_TS, `${src.slice(0, a + BEGIN.length)}\n${abiTsBlock(compiled)}\n${src.slice(b)}`);
    writeFileSync(COMMITTED_CONTRACTS, `${JSON.stringify(compiled, null, 1)}\n`);
    console.log(`updated ${CONTRACTS_TS} and ${COMMITTED_CONTRACTS}`);
  } else {
    console.log(
      `compiled ${CONTRACT_NAMES.length} contracts (solc ${compiled.solcVersion}) in ${Math.round(performance.now() - started)} ms`,
    );
  }
}
