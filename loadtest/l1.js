/**
 * What both k6 scripts (market.js, gate.js) need of the L1: a transaction hash no bid used, and the block number to
 * bid for, read at most every 250 ms per VU.
 */
import http from "k6/http";

export function randomHash() {
  let h = "";
  for (let i = 0; i < 64; i++) h += "0123456789abcdef"[Math.floor(Math.random() * 16)];
  return h;
}

let cachedBlock = { at: 0, number: 0 };
/** The L1 block number at `rpcUrl` (read at most every 250 ms; `fresh` reads it now). */
export function l1Block(rpcUrl, fresh = false) {
  if (!fresh && Date.now() - cachedBlock.at < 250) return cachedBlock.number;
  const r = http.post(rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }), {
    headers: { "content-type": "application/json" },
    tags: { name: "eth_blockNumber" },
  });
  cachedBlock = { at: Date.now(), number: parseInt(JSON.parse(r.body).result, 16) };
  return cachedBlock.number;
}
