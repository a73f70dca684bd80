// The devnet explorer: one server-sent event stream (a snapshot, then every change), rendered with Preact and htm.

import htm from "htm";
import { h, render } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";

const html = htm.bind(h);
const MAX_BIDS = 500;

// ---------------------------------------------------------------- formatting

const short = (hex) => (hex && hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : hex || "");
const WEI_PER_ETH = 10n ** 18n;
function eth(wei) {
  if (wei === undefined || wei === null || wei === "") return "";
  const v = BigInt(wei);
  const neg = v < 0n;
  const a = neg ? -v : v;
  if (a !== 0n && a < 10n ** 12n) return `${neg ? "-" : ""}${a} wei`;
  const whole = a / WEI_PER_ETH;
  const frac = (a % WEI_PER_ETH).toString().padStart(18, "0").slice(0, 6).replace(/0+$/, "");
  return `${neg ? "-" : ""}${whole}${frac ? `.${frac}` : ""} ETH`;
}
const time = (ms) => new Date(ms).toLocaleTimeString();

// ---------------------------------------------------------------- state from the stream

function useExplorer() {
  const [state, setState] = useState({
    connected: false,
    ready: false,
    mode: "devnet",
    devnetOnly: [],
    info: {},
    bids: new Map(),
    blocks: new Map(),
    commitments: new Map(),
    deposits: new Map(),
    providers: new Map(),
    notes: [],
  });
  useEffect(() => {
    const es = new EventSource("api/events");
    const merge = (map, rows, key) => {
      const next = new Map(map);
      for (const r of rows) next.set(key(r), r);
      return next;
    };
    const trim = (map, n) => (map.size <= n ? map : new Map([...map].slice(map.size - n)));
    es.addEventListener("open", () => setState((s) => ({ ...s, connected: true })));
    es.addEventListener("error", () => setState((s) => ({ ...s, connected: false })));
    es.addEventListener("snapshot", (e) => {
      const d = JSON.parse(e.data);
      setState((s) => ({
        ...s,
        ready: true,
        connected: true,
        mode: d.mode,
        devnetOnly: d.devnetOnly,
        info: d.info,
        bids: new Map([...d.bids].reverse().map((b) => [b.digest, b])),
        blocks: new Map([...d.blocks].reverse().map((b) => [b.number, b])),
        commitments: new Map([...d.commitments].reverse().map((c) => [c.digest, c])),
        deposits: new Map(d.deposits.map((x) => [depositKey(x), x])),
        providers: new Map(d.providers.map((p) => [p.provider, p])),
        notes: d.notes,
      }));
    });
    es.addEventListener("bids", (e) => {
      const rows = JSON.parse(e.data);
      setState((s) => ({
        ...s,
        bids: trim(
          merge(s.bids, rows, (b) => b.digest),
          MAX_BIDS,
        ),
      }));
    });
    es.addEventListener("chain", (e) => {
      const c = JSON.parse(e.data);
      setState((s) => ({
        ...s,
        blocks: trim(
          merge(s.blocks, c.blocks, (b) => b.number),
          500,
        ),
        commitments: trim(
          merge(s.commitments, c.commitments, (x) => x.digest),
          1000,
        ),
        deposits: merge(s.deposits, c.deposits, depositKey),
        providers: merge(s.providers, c.providers, (p) => p.provider),
      }));
    });
    es.addEventListener("note", (e) => {
      const n = JSON.parse(e.data);
      setState((s) => ({ ...s, notes: [...s.notes.slice(-199), n] }));
    });
    return () => es.close();
  }, []);
  return state;
}

// ---------------------------------------------------------------- pieces

function Addr({ a, names }) {
  if (!a) return html`<span class="muted">-</span>`;
  const name = names.get(a.toLowerCase());
  return html`<span class="mono" title=${a}>${name ? html`<b>${name}</b> ` : ""}${short(a)}</span>`;
}

function Lifecycle({ l }) {
  if (!l) return null;
  return html`${l.stored ? html`<span class="step">stored</span>` : ""}${l.opened ? html`<span class="step">opened</span>` : ""}${
    l.settled ? html`<span class="step settled">settled: paid ${eth(l.settled.payment)}</span>` : ""
  }${l.slashed ? html`<span class="step slashed">slashed ${eth(l.slashed.amount)}${l.slashed.refund ? `, ${eth(l.slashed.refund)} back to the bidder` : ""}</span>` : ""}`;
}

function Outcome({ o, names }) {
  const label =
    o.outcome === "committed"
      ? `committed in ${o.ms} ms`
      : o.outcome === "pending"
        ? "waiting"
        : o.reasonText || o.outcome;
  return html`<div data-provider=${o.provider} data-outcome=${o.outcome} data-reason=${o.reason || ""}>
    <${Addr} a=${o.provider} names=${names} />
    <span class=${`chip ${o.outcome}`} title=${o.message || ""}>${label}</span>
    ${o.commitment ? html`<span class="mono muted step" title=${o.commitment.digest}>${short(o.commitment.digest)}</span>` : ""}
    <${Lifecycle} l=${o.lifecycle} />
  </div>`;
}

function Bids({ bids, names, devnetOnly }) {
  const rows = [...bids.values()].sort((a, b) => b.sentAt - a.sentAt);
  return html`<section class="wide" id="bids">
    <h2>Bids and each provider's outcome (${rows.length})</h2>
    ${devnetOnly.length ? html`<p class="needs">Needs the reference devnet: the bidder's per-provider outcomes are recorded by its nodes. The chain's commitments are below.</p>` : ""}
    <div class="scroll"><table>
      <thead><tr><th>sent</th><th>bid digest</th><th>block</th><th class="num">amount</th><th>transactions</th><th>providers</th></tr></thead>
      <tbody>${rows.map(
        (b) => html`<tr key=${b.digest} data-bid=${b.digest}>
          <td>${time(b.sentAt)}</td>
          <td class="mono" title=${b.digest}>${short(b.digest)}</td>
          <td>${b.blockNumber}</td>
          <td class="num">${eth(b.amount)}</td>
          <td class="mono" title=${b.txnHash}>${short(b.txnHash)}</td>
          <td><div class="chips">${b.providers.map((o) => html`<${Outcome} key=${o.provider} o=${o} names=${names} />`)}</div></td>
        </tr>`,
      )}</tbody>
    </table></div>
  </section>`;
}

function Commitments({ commitments, names }) {
  const rows = [...commitments.values()].reverse().slice(0, 300);
  return html`<section class="wide" id="commitments">
    <h2>Commitments on the settlement chain (${commitments.size})</h2>
    <div class="scroll"><table>
      <thead><tr><th>commitment digest</th><th>provider</th><th>bidder</th><th>block</th><th>transactions</th><th>lifecycle</th></tr></thead>
      <tbody>${rows.map(
        (c) => html`<tr key=${c.digest} data-commitment=${c.digest}>
          <td class="mono" title=${c.digest}>${short(c.digest)}</td>
          <td><${Addr} a=${c.provider} names=${names} /></td>
          <td><${Addr} a=${c.bidder} names=${names} /></td>
          <td>${c.blockNumber || html`<span class="muted">not opened</span>`}</td>
          <td class="mono" title=${c.txnHash || ""}>${short(c.txnHash)}</td>
          <td><${Lifecycle} l=${c} /></td>
        </tr>`,
      )}</tbody>
    </table></div>
  </section>`;
}

function Blocks({ blocks, perBlock, names }) {
  const rows = [...blocks.values()].reverse().slice(0, 200);
  // v1.2's BlockTracker has no windows.
  const windows = rows.some((b) => b.window !== undefined);
  return html`<section id="blocks">
    <h2>L1 blocks and their winners</h2>
    <div class="scroll"><table>
      <thead><tr><th>block</th>${windows ? html`<th>window</th>` : ""}<th>winner</th><th class="num">commitments</th></tr></thead>
      <tbody>${rows.map(
        (b) =>
          html`<tr key=${b.number} data-block=${b.number}><td>${b.number}</td>${windows ? html`<td>${b.window}</td>` : ""}<td><${Addr} a=${b.winner} names=${names} /></td><td class="num">${perBlock.get(b.number)?.commitments ?? 0}</td></tr>`,
      )}</tbody>
    </table></div>
  </section>`;
}

// A deposit is per window on protocol v1.1 and per provider on v1.2.
function depositKey(d) {
  return `${d.bidder}/${d.window ?? d.provider}`;
}

function Deposits({ deposits, names }) {
  const all = [...deposits.values()];
  const perProvider = all.some((d) => d.provider !== undefined);
  const rows = perProvider
    ? all.sort((a, b) => a.bidder.localeCompare(b.bidder) || a.provider.localeCompare(b.provider))
    : all.sort((a, b) => Number(b.window) - Number(a.window));
  const where = (d) => (perProvider ? html`<${Addr} a=${d.provider} names=${names} />` : html`${d.window}`);
  return html`<section id="deposits">
    <h2>${perProvider ? "Deposits per provider and their use" : "Deposits per window and their use"}</h2>
    <div class="scroll"><table>
      <thead><tr><th>bidder</th><th>${perProvider ? "provider" : "window"}</th><th class="num">deposited</th>${perProvider ? "" : html`<th class="num">per block</th>`}<th class="num">locked by opened bids</th><th class="num">paid</th><th class="num">returned</th></tr></thead>
      <tbody>${rows.map(
        (
          d,
        ) => html`<tr key=${depositKey(d)}><td><${Addr} a=${d.bidder} names=${names} /></td><td>${where(d)}${d.withdrawn ? html` <span class="muted">withdrawn</span>` : ""}</td>
          <td class="num">${eth(d.deposited)}</td>${perProvider ? "" : html`<td class="num">${eth((BigInt(d.deposited) / 10n).toString())}</td>`}<td class="num">${eth(d.locked)}</td><td class="num">${eth(d.paid)}</td><td class="num">${eth(d.returned)}</td></tr>`,
      )}</tbody>
    </table></div>
  </section>`;
}

function Providers({ providers, names }) {
  // The whole width: a slash's amounts must not push the table behind a scroll bar.
  return html`<section class="wide" id="providers">
    <h2>Providers: stake, rewards, slashes</h2>
    <table>
      <thead><tr><th>provider</th><th class="num">stake</th><th class="num">rewards</th><th class="num">paid</th><th class="num">slashed</th><th class="num">slashes</th></tr></thead>
      <tbody>${[...providers.values()].map(
        (p) =>
          html`<tr key=${p.provider}><td><${Addr} a=${p.provider} names=${names} /></td><td class="num">${eth(p.stake)}</td><td class="num">${eth(p.rewards)}</td><td class="num">${p.commitmentsPaid}</td><td class="num">${eth(p.slashed)}</td><td class="num">${p.slashes}</td></tr>`,
      )}</tbody>
    </table>
  </section>`;
}

function Notes({ notes, mode }) {
  return html`<section id="notes">
    <h2>Notifications (the bidder's stream)</h2>
    ${mode === "target" && !notes.length ? html`<p class="muted">None yet (the bidder's /v1/subscribe stream, read while this page is open).</p>` : ""}
    <div class="scroll"><table><tbody>${[...notes]
      .reverse()
      .map(
        (n, i) =>
          html`<tr key=${`${n.at}:${i}`}><td>${time(n.at)}</td><td><b>${n.topic}</b></td><td class="mono" style="white-space:normal">${JSON.stringify(n.value)}</td></tr>`,
      )}</tbody></table></div>
  </section>`;
}

/** Commitments per target block (bars) and the median time to a bid's first commitment (line), the last 40 blocks. */
function Chart_({ perBlock, devnetOnly }) {
  const canvas = useRef(null);
  const chart = useRef(null);
  useEffect(() => {
    chart.current = new window.Chart(canvas.current, {
      data: {
        labels: [],
        datasets: [
          { type: "bar", label: "commitments per block", data: [], yAxisID: "y", backgroundColor: "#60a5fa" },
          {
            type: "line",
            label: "median ms to first commitment",
            data: [],
            yAxisID: "ms",
            borderColor: "#f59e0b",
            backgroundColor: "#f59e0b",
            spanGaps: true,
          },
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: "commitments" } },
          ms: {
            position: "right",
            beginAtZero: true,
            grid: { drawOnChartArea: false },
            title: { display: true, text: "ms" },
          },
        },
      },
    });
    return () => chart.current.destroy();
  }, []);
  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    const blocks = [...perBlock.keys()].sort((a, b) => Number(a) - Number(b)).slice(-40);
    c.data.labels = blocks;
    c.data.datasets[0].data = blocks.map((b) => perBlock.get(b).commitments);
    c.data.datasets[1].data = blocks.map((b) => perBlock.get(b).medianFirstMs ?? null);
    c.update("none");
  }, [perBlock]);
  return html`<section id="chart">
    <h2>Commitments per block, time to the first commitment</h2>
    ${devnetOnly.length ? html`<p class="needs">Time to the first commitment needs the reference devnet.</p>` : ""}
    <div id="chart-box"><canvas id="per-block" ref=${canvas}></canvas></div>
  </section>`;
}

function Search({ onResults }) {
  const [q, setQ] = useState("");
  const submit = async (e) => {
    e.preventDefault();
    if (!q.trim()) return onResults(undefined);
    const res = await fetch(`api/search?q=${encodeURIComponent(q.trim())}`);
    onResults(res.ok ? await res.json() : { query: q, error: (await res.json()).message });
  };
  return html`<form onSubmit=${submit} id="search">
    <input placeholder="bid digest, commitment digest, transaction hash or address" value=${q} onInput=${(e) => setQ(e.target.value)} />
    <button type="submit">Search</button>
  </form>`;
}

function Results({ r, names, close }) {
  if (!r) return null;
  const bids = new Map((r.bids || []).map((b) => [b.digest, b]));
  const n =
    (r.bids?.length ?? 0) +
    (r.commitments?.length ?? 0) +
    (r.blocks?.length ?? 0) +
    (r.deposits?.length ?? 0) +
    (r.providers?.length ?? 0);
  return html`<section class="results" id="results">
    <h2>Search: <span class="mono">${r.query}</span> — ${r.error ?? `${n} found`} <button onClick=${close}>close</button></h2>
    ${bids.size ? html`<${Bids} bids=${bids} names=${names} devnetOnly=${[]} />` : ""}
    ${r.commitments?.length ? html`<${Commitments} commitments=${new Map(r.commitments.map((c) => [c.digest, c]))} names=${names} />` : ""}
    ${r.blocks?.length ? html`<p>Blocks won or recorded: ${r.blocks.map((b) => b.number).join(", ")}</p>` : ""}
    ${r.deposits?.length ? html`<${Deposits} deposits=${new Map(r.deposits.map((d) => [depositKey(d), d]))} names=${names} />` : ""}
    ${r.providers?.length ? html`<${Providers} providers=${new Map(r.providers.map((p) => [p.provider, p]))} names=${names} />` : ""}
  </section>`;
}

function App() {
  const s = useExplorer();
  const [results, setResults] = useState(undefined);
  const names = useMemo(
    () => new Map((s.info.nodes || []).map((n) => [String(n.address).toLowerCase(), n.name])),
    [s.info],
  );
  const perBlock = useMemo(() => {
    const m = new Map();
    const at = (b) => {
      if (!m.has(b)) m.set(b, { commitments: 0, first: [] });
      return m.get(b);
    };
    if (s.bids.size) {
      for (const b of s.bids.values()) {
        const row = at(b.blockNumber);
        const committed = b.providers.filter((p) => p.outcome === "committed");
        row.commitments += committed.length;
        if (committed.length) row.first.push(Math.min(...committed.map((p) => p.ms)));
      }
    } else for (const c of s.commitments.values()) if (c.blockNumber) at(c.blockNumber).commitments++;
    for (const row of m.values()) {
      const f = row.first.sort((a, b) => a - b);
      row.medianFirstMs = f.length ? f[Math.floor(f.length / 2)] : undefined;
    }
    return m;
  }, [s.bids, s.commitments]);
  useEffect(() => {
    if (s.ready) document.body.dataset.ready = "true";
  }, [s.ready]);
  const head = Math.max(0, ...[...s.blocks.keys()].map(Number));
  return html`
    <header>
      <h1>mev-commit ${s.mode === "devnet" ? "devnet" : "target"} explorer</h1>
      <span class="stat"><span class=${`live ${s.connected ? "on" : ""}`}></span>${s.connected ? "live" : "disconnected"}</span>
      <span class="stat">last recorded L1 block <b>${head || "-"}</b></span>
      <span class="stat">bids <b>${s.bids.size}</b></span>
      <span class="stat">commitments on chain <b>${s.commitments.size}</b></span>
      <${Search} onResults=${setResults} />
    </header>
    <main>
      ${s.ready ? "" : html`<p class="muted" id="connecting">${s.connected ? "Loading…" : "Connecting…"}</p>`}
      ${s.devnetOnly.length ? html`<div class="note" id="devnet-only">Against another implementation: the chains and the public API tell everything but these, which need the reference devnet: <b>${s.devnetOnly.join("; ")}</b>.</div>` : ""}
      <${Results} r=${results} names=${names} close=${() => setResults(undefined)} />
      <${Chart_} perBlock=${perBlock} devnetOnly=${s.devnetOnly} />
      <${Blocks} blocks=${s.blocks} perBlock=${perBlock} names=${names} />
      <${Bids} bids=${s.bids} names=${names} devnetOnly=${s.devnetOnly} />
      ${s.mode === "target" ? html`<${Commitments} commitments=${s.commitments} names=${names} />` : ""}
      <${Providers} providers=${s.providers} names=${names} />
      <${Deposits} deposits=${s.deposits} names=${names} />
      <${Notes} notes=${s.notes} mode=${s.mode} />
      ${s.mode === "devnet" ? html`<${Commitments} commitments=${s.commitments} names=${names} />` : ""}
    </main>`;
}

// The page's own "Connecting…" line goes: the app says where it stands from its first render on.
const root = document.getElementById("app");
root.replaceChildren();
render(html`<${App} />`, root);
