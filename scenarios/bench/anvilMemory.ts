/**
 * What an in-memory Anvil's resident memory costs per unit of chain data: per block mined, per transaction mined and
 * per storage slot written, measured on a bare Anvil started exactly as the devnet starts its settlement chain (fork
 * of an empty chain, no past states, the last `keepTxBlocks` blocks' transactions kept, the state dumped to a file
 * every few seconds). The soak (scripts/soak.ts) uses these costs to tell an Anvil that holds more chain data from
 * one that leaks; `npm run bench:anvil-memory` prints them.
 *
 * Three phases, each on a fresh chain so that one phase's hash-table growth does not land in another's: empty
 * blocks; transactions that each write one new slot, four a block; transactions that each write 64 new slots.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MevCommitError } from "../../lib/errors.ts";
import { type AnvilChain, startAnvil } from "../../node/chain/anvil.ts";
import { jsonRpc as rpc } from "../../node/chain/jsonRpc.ts";
import { SETTLEMENT_BLOCK_GAS_LIMIT } from "../../node/devnet/chains.ts";
import { SETTLEMENT_STATE_INTERVAL_S } from "../../node/devnet/config.ts";
import { freePort } from "../../node/util/ports.ts";
import { rssOf } from "./health.ts";

/** Bytes of resident memory per unit of chain data. */
export interface AnvilCosts {
  perBlock: number;
  perTx: number;
  perSlot: number;
}

/** A measurement that cannot be trusted: the chain lost the writes it measures, or its process is gone. */
export class AnvilMemoryError extends MevCommitError {}

function rssBytes(pid: number): number {
  const rss = rssOf(pid);
  if (rss === undefined) throw new AnvilMemoryError(`cannot read the rss of the Anvil process ${pid}`);
  return rss;
}

/** Runtime code that stores 1 in slots k … k+slots-1, k being the first word of the calldata. */
function slotWriter(slots: number): string {
  let code = "";
  for (let i = 0; i < slots; i++) {
    // biome-ignore lint/style/useTemplate: the code is spelt opcode by opcode (PUSH1 1, CALLDATALOAD, ADD, SSTORE)
    code += "6001" + "600035" + (i ? "60" + i.toString(16).padStart(2, "0") + "01" : "") + "55";
  }
  code += "00";
  const len = code.length / 2;
  // CODECOPY(0, 12, len); RETURN(0, len): the 12-byte prefix returns the runtime code.
  // biome-ignore lint/style/useTemplate: the prefix is spelt opcode by opcode (PUSH2 len, CODECOPY, RETURN)
  return "0x61" + len.toString(16).padStart(4, "0") + "80600c6000396000f3" + code;
}

const FROM = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"; // dev account 0, unlocked on Anvil

/** A settlement-like chain in a scratch dir, and its pid. */
async function settlementLike(
  dir: string,
  keepTxBlocks: number | undefined,
): Promise<{ chain: AnvilChain; pid: number; url: string }> {
  const chain = await startAnvil({
    name: "growth",
    port: await freePort(),
    chainId: 31_337,
    mining: "manual",
    emptyFork: { keepStates: 0 },
    keepTxBlocks,
    blockGasLimit: SETTLEMENT_BLOCK_GAS_LIMIT,
    statePath: join(dir, "state.json"),
    stateIntervalS: SETTLEMENT_STATE_INTERVAL_S,
    pidDir: dir,
  });
  return { chain, pid: Number(readFileSync(join(dir, "anvil-growth.pid"), "utf8").trim()), url: chain.rpcUrl };
}

/**
 * Rss added by `blocks` blocks of `txsPerBlock` transactions that each write `slotsPerTx` new slots, in bytes,
 * measured after `warm` blocks of the same number of transactions writing one slot each (empty blocks when
 * `txsPerBlock` is 0): once more than `keepTxBlocks` blocks were mined, Anvil drops old blocks' transactions as fast
 * as new ones come, which is the steady state of a long run.
 */
async function phase(
  keepTxBlocks: number | undefined,
  warm: number,
  blocks: number,
  txsPerBlock: number,
  slotsPerTx: number,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "mev-commit-anvil-memory-"));
  const { chain, pid, url } = await settlementLike(dir, keepTxBlocks);
  try {
    const deploy = async (slots: number) => {
      const hash = await rpc<string>(url, "eth_sendTransaction", [
        { from: FROM, data: slotWriter(slots), gas: "0x1000000" },
      ]);
      await rpc(url, "evm_mine");
      return (await rpc<{ contractAddress: string }>(url, "eth_getTransactionReceipt", [hash])).contractAddress;
    };
    const [one, many] = txsPerBlock ? [await deploy(1), await deploy(slotsPerTx)] : ["", ""];
    let n = 0;
    const mine = async (count: number, to: string) => {
      for (let b = 0; b < count; b++) {
        for (let i = 0; i < txsPerBlock; i++, n++) {
          await rpc(url, "eth_sendTransaction", [
            { from: FROM, to, data: `0x${(BigInt(n) * 256n).toString(16).padStart(64, "0")}`, gas: "0x1000000" },
          ]);
        }
        await rpc(url, "evm_mine");
      }
    };
    await mine(warm, one);
    const before = rssBytes(pid);
    await mine(blocks, many);
    // The last transaction's last slot is written, or the phase measured reverted transactions.
    if (txsPerBlock) {
      const last = `0x${(BigInt(n - 1) * 256n + BigInt(slotsPerTx - 1)).toString(16)}`;
      if (BigInt(await rpc<string>(url, "eth_getStorageAt", [many, last, "latest"])) !== 1n)
        throw new AnvilMemoryError("the slot writes did not land (eth_getStorageAt read 0)");
    }
    return rssBytes(pid) - before;
  } finally {
    await chain.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Measures the three costs in the steady state of a chain that keeps `keepTxBlocks` blocks' transactions (undefined:
 * all, as `--settlement-keep-blocks 0`); about a minute on a quiet 2-core machine.
 */
export async function measureAnvilCosts(keepTxBlocks: number | undefined): Promise<AnvilCosts> {
  const warm = (keepTxBlocks ?? 0) + 100;
  const BLOCKS = 3_000;
  const perBlock = (await phase(keepTxBlocks, warm, BLOCKS, 0, 0)) / BLOCKS;
  const TX_BLOCKS = 1_500;
  const perTx = ((await phase(keepTxBlocks, warm, TX_BLOCKS, 4, 1)) - TX_BLOCKS * perBlock) / (4 * TX_BLOCKS);
  const SLOT_BLOCKS = 250;
  const slots = SLOT_BLOCKS * 4 * 64;
  const perSlot =
    ((await phase(keepTxBlocks, warm, SLOT_BLOCKS, 4, 64)) - SLOT_BLOCKS * perBlock - 4 * SLOT_BLOCKS * perTx) / slots;
  return { perBlock: Math.max(0, perBlock), perTx: Math.max(0, perTx), perSlot: Math.max(0, perSlot) };
}

export const formatCosts = (c: AnvilCosts) =>
  `${(c.perBlock / 1024).toFixed(2)} KiB a block, ${(c.perTx / 1024).toFixed(2)} KiB a transaction, ${c.perSlot.toFixed(0)} B a storage slot`;

/** How much chain data an Anvil holds: blocks, transactions mined (its accounts' nonces) and storage slots. */
export interface ChainData {
  blocks: number;
  txs: number;
  slots: number;
}

/**
 * Counts the chain data in an Anvil state file (`--state`). Undefined when the file cannot be read or parsed (Anvil
 * may be rewriting it: the caller tries again at its next sample).
 */
export function readChainData(stateFile: string): ChainData | undefined {
  try {
    const s = JSON.parse(readFileSync(stateFile, "utf8")) as {
      best_block_number?: string | number;
      accounts: Record<string, { nonce?: number | string; storage?: Record<string, string> }>;
    };
    let txs = 0;
    let slots = 0;
    for (const a of Object.values(s.accounts)) {
      txs += Number(a.nonce ?? 0);
      slots += Object.keys(a.storage ?? {}).length;
    }
    return { blocks: Number(s.best_block_number ?? 0), txs, slots };
  } catch {
    return undefined;
  }
}

/** `readChainData`, read once more half a second later when Anvil was rewriting the file. */
export async function readChainDataSoon(stateFile: string): Promise<ChainData | undefined> {
  const data = readChainData(stateFile);
  if (data !== undefined) return data;
  await Bun.sleep(500);
  return readChainData(stateFile);
}

/** Bytes of rss that `from` → `to` of chain data costs an Anvil, at `costs`. */
export const explainedBytes = (costs: AnvilCosts, from: ChainData, to: ChainData) =>
  Math.max(0, to.blocks - from.blocks) * costs.perBlock +
  Math.max(0, to.txs - from.txs) * costs.perTx +
  Math.max(0, to.slots - from.slots) * costs.perSlot;
