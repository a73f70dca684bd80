/**
 * The report page: one self-contained index.html (Chart.js and the data inlined, nothing fetched), with the
 * plots of a run, its figures and the checks against the chain.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Summary } from "./summary.ts";

/** The canvases the page draws, by id (the browser test checks each one). */
export const PLOTS = ["first-commitment", "per-block", "provider-rewards", "bidder-spend", "decay", "windows"] as const;

const require = createRequire(import.meta.url);
let chartJs: string | undefined;
export function chartLibrary(): string {
  // The package's exports do not name the UMD build: find it beside the main entry (dist/).
  chartJs ??= readFileSync(join(dirname(require.resolve("chart.js")), "chart.umd.min.js"), "utf8");
  return chartJs;
}

/** Text safe inside a <script> element. */
export const scriptSafe = (text: string) => text.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
export const esc = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

const eth = (wei: string | bigint) => {
  const v = Number(BigInt(wei)) / 1e18;
  return v === 0 ? "0" : `${v.toFixed(6).replace(/\.?0+$/, "")} ETH`;
};

/**
 * A check's figure as the rest of the page shows amounts: in ETH. A check holds wei, alone or as the auto-deposit
 * check writes it (`<wei> × <windows>`, `<wei> in window <n>, …`).
 */
export function checkFigure(text: string): string {
  if (/^\d+$/.test(text)) return eth(text);
  return text
    .replace(/^(\d+) × /, (_, wei: string) => `${eth(wei)} × `)
    .replace(/(^|, )(\d+) in window /g, (_, sep: string, wei: string) => `${sep}${eth(wei)} in window `);
}

export function table(head: string[], rows: (string | number)[][], cls = ""): string {
  return `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(String(c))}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;
}

/** The page style, shared with the other reports built like this one (the fault soak's). */
export const REPORT_STYLE = `  body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1.5rem; color: #1d2433; }
  h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.1rem; margin-top: 2rem; border-bottom: 1px solid #dde; }
  .lead { color: #556; margin: 0 0 1rem; }
  .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: .6rem; }
  .card { background: #f4f6fb; border-radius: 6px; padding: .6rem .8rem; } .card b { display: block; font-size: 1.25rem; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); gap: 1rem; }
  figure { margin: 0; background: #fff; border: 1px solid #e3e6ef; border-radius: 6px; padding: .6rem; }
  figcaption { font-weight: 600; } .plot { position: relative; height: 280px; } .note { color: #667; font-size: 12px; margin: .3rem 0 0; }
  table { border-collapse: collapse; width: 100%; margin: .5rem 0; font-variant-numeric: tabular-nums; }
  th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #eef; } th { background: #f4f6fb; }
  .ok { color: #17803d; } .bad { color: #b3261e; font-weight: 600; } .warn { color: #8a5a00; }
`;

export function renderHtml(summary: Summary): string {
  const s = summary;
  const t = s.totals;
  const checksOk = s.checks.filter((c) => c.ok).length;
  const plot = (id: (typeof PLOTS)[number], title: string, note: string) =>
    `<figure><figcaption>${esc(title)}</figcaption><div class="plot"><canvas id="${id}"></canvas></div><p class="note">${esc(note)}</p></figure>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Simulation ${esc(s.scenario.name)} (seed ${s.scenario.seed})</title>
<style>
${REPORT_STYLE}</style>
</head>
<body>
<h1>${esc(s.scenario.name)}</h1>
<p class="lead">${esc(s.scenario.description || "")}</p>
<p class="lead">Seed ${s.scenario.seed} · ${esc(s.environment)} · protocol ${esc(s.protocol)} · L1 blocks ${s.blocks.first}–${s.blocks.last ?? "–"} (${s.blocks.run} of ${s.blocks.planned} run${s.interrupted ? ", <b>interrupted</b>" : ""}, ${s.blocks.drained} more mined to settle) · started ${esc(s.timing.startedAt)}, ${(s.timing.durationMs / 1000).toFixed(1)} s</p>
${s.error ? `<p class="bad">The run stopped early: ${esc(s.error)}</p>` : ""}
<div class="cards">
  <div class="card">bids<b>${t.bids}</b></div>
  <div class="card">commitments<b>${t.commitments}</b></div>
  <div class="card">rejected<b>${t.rejected}</b></div>
  <div class="card">settled<b>${t.settled}</b></div>
  <div class="card">slashed<b>${t.slashed}</b></div>
  <div class="card">paid to providers<b>${eth(t.paid)}</b></div>
  <div class="card">slashed from stakes<b>${eth(t.slashedAmount)}</b></div>
  <div class="card">checks against the chain<b class="${s.checksPassed ? "ok" : "bad"}">${checksOk} / ${s.checks.length}</b></div>
</div>
<h2>Plots</h2>
<div class="grid">
${plot("first-commitment", "Time to first commitment", "SendBid sent → first commitment streamed back (wall clock; varies between runs).")}
${plot("per-block", "Bids and commitments per block", "Per L1 block of the run: bids sent, commitments received, winner commitments settled and slashed.")}
${plot("provider-rewards", "Provider rewards and slashes over time", "Cumulative, by the block committed to: rewards net of the protocol fee (solid), stake slashed (dashed).")}
${plot("bidder-spend", "Bidder spend against decay", "For settled commitments: the bids, what was paid, and what decay saved the bidder.")}
${plot("decay", "Payment against dispatch time", "Each settled winner commitment: paid / bid against where in the decay window the provider dispatched.")}
${plot("windows", "Window deposits and refunds", "Per deposit window, from the bidder registry: deposited, withdrawn, still in the window.")}
</div>
<h2>Checks against the chain</h2>
${table(
  ["check", "subject", "report (nodes' APIs)", "chain", ""],
  s.checks.map((c) => [c.name, c.subject, checkFigure(c.report), checkFigure(c.chain), c.ok ? "✓" : "✗ differs"]),
  "checks",
)}
<h2>Providers</h2>
${table(
  [
    "provider",
    "policy",
    "dispatch at",
    "builder",
    "accepted",
    "rejected",
    "blocks won",
    "settled",
    "slashed",
    "rewards (net)",
    "slashes",
  ],
  s.providers.map((p) => [
    p.name,
    p.policy,
    p.dispatchAt,
    p.builder,
    p.accepted,
    p.rejected,
    p.blocksWon,
    p.settled,
    p.slashed,
    eth(p.rewards),
    eth(p.slashes),
  ]),
)}
<h2>Bidders</h2>
${table(
  [
    "bidder",
    "strategy",
    "deposit",
    "bids",
    "with commitments",
    "errors",
    "settled",
    "slashed",
    "spend",
    "decay saved",
    "deposited",
    "refunded",
    "left",
  ],
  s.bidders.map((b) => [
    b.name,
    b.strategy,
    b.deposit.replace(/(\d+)$/, (w) => eth(w)),
    b.bids,
    b.bidsWithCommitments,
    b.bidErrors,
    b.settled,
    b.slashed,
    eth(b.spend),
    eth(b.decaySaved),
    eth(b.deposited),
    eth(b.refunded),
    eth(b.leftInWindows),
  ]),
)}
${
  s.bots.length
    ? `<h2>Bidder bots</h2>${table(
        ["bot", "slots of the run announced opted in", "slots it bid for"],
        s.bots.map((b) => [b.bidder, b.announcedSlots, b.slotsBidFor]),
      )}`
    : ""
}
${s.validators ? `<p class="note">Validators: ${s.validators.optedIn} of ${s.validators.keys} proposers of the first two epochs opted in.</p>` : ""}
<h2>Blocks</h2>
${table(
  ["#", "L1 block", "winner", "bids", "commitments", "errors", "settled", "slashed", "paid", "slashed amount"],
  s.perBlock.map((p) => [
    p.step,
    p.block,
    p.winner,
    p.bids,
    p.commitments,
    p.bidErrors,
    p.settled,
    p.slashed,
    eth(p.paid),
    eth(p.slashedAmount),
  ]),
)}
${s.warnings.length ? `<h2 class="warn">Warnings</h2><ul>${s.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul>` : ""}
<p class="note">Raw events: events.csv · every figure: summary.json (beside this page).</p>
<script>${scriptSafe(chartLibrary())}</script>
<script type="application/json" id="summary">${scriptSafe(JSON.stringify(summary))}</script>
<script>${scriptSafe(PAGE_SCRIPT)}</script>
</body>
</html>
`;
}

/** Draws the plots from the inlined summary. */
const PAGE_SCRIPT = `
(function () {
  var s = JSON.parse(document.getElementById("summary").textContent);
  var toEth = function (w) { return Number(BigInt(w)) / 1e18; };
  var colors = ["#3b6fd8", "#e0712c", "#2a9d55", "#b33d8e", "#8a6d1e", "#1b9aa8", "#6b4fc4", "#c23b3b", "#5a7a2a"];
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  var charts = {};
  function draw(id, config) {
    charts[id] = new Chart(document.getElementById(id), config);
  }
  var ethAxis = { title: { display: true, text: "ETH" }, beginAtZero: true };
  var blocks = s.perBlock.map(function (p) { return p.block; });

  var h = s.timing.firstCommitmentHistogram;
  draw("first-commitment", { type: "bar", data: {
      labels: h.map(function (b) { return b.fromMs + "–" + b.toMs; }),
      datasets: [{ label: "bids", data: h.map(function (b) { return b.count; }), backgroundColor: colors[0] }] },
    options: { scales: { x: { title: { display: true, text: "ms" } }, y: { beginAtZero: true, title: { display: true, text: "bids" } } } } });

  draw("per-block", { data: { labels: blocks, datasets: [
      { type: "bar", label: "bids", data: s.perBlock.map(function (p) { return p.bids; }), backgroundColor: colors[0] },
      { type: "bar", label: "commitments", data: s.perBlock.map(function (p) { return p.commitments; }), backgroundColor: colors[2] },
      { type: "line", label: "settled", data: s.perBlock.map(function (p) { return p.settled; }), borderColor: colors[5], backgroundColor: colors[5] },
      { type: "line", label: "slashed", data: s.perBlock.map(function (p) { return p.slashed; }), borderColor: colors[7], backgroundColor: colors[7] } ] },
    options: { scales: { x: { title: { display: true, text: "L1 block" } }, y: { beginAtZero: true } } } });

  var pr = [];
  s.providers.forEach(function (p, i) {
    pr.push({ type: "line", label: p.name + " rewards", data: p.overTime.map(function (o) { return toEth(o.rewards); }), borderColor: colors[i % colors.length], backgroundColor: colors[i % colors.length] });
    pr.push({ type: "line", label: p.name + " slashes", data: p.overTime.map(function (o) { return toEth(o.slashes); }), borderColor: colors[i % colors.length], borderDash: [6, 4], backgroundColor: "transparent" });
  });
  draw("provider-rewards", { type: "line", data: { labels: blocks, datasets: pr },
    options: { scales: { x: { title: { display: true, text: "L1 block" } }, y: ethAxis } } });

  draw("bidder-spend", { type: "bar", data: { labels: s.bidders.map(function (b) { return b.name; }), datasets: [
      { label: "settled bids", data: s.bidders.map(function (b) { return toEth(b.settledBidAmount); }), backgroundColor: colors[0] },
      { label: "spend", data: s.bidders.map(function (b) { return toEth(b.spend); }), backgroundColor: colors[1] },
      { label: "decay saved", data: s.bidders.map(function (b) { return toEth(b.decaySaved); }), backgroundColor: colors[2] } ] },
    options: { scales: { y: ethAxis } } });

  var byProvider = {};
  s.commitments.forEach(function (c) {
    if (c.status !== "settled") return;
    (byProvider[c.provider] = byProvider[c.provider] || []).push({ x: c.dispatchAt, y: Number(BigInt(c.payment) * 10000n / BigInt(c.bidAmount)) / 10000 });
  });
  draw("decay", { type: "scatter", data: { datasets: s.providers.map(function (p, i) {
      return { label: p.name, data: byProvider[p.name] || [], backgroundColor: colors[i % colors.length], pointRadius: 4 }; }) },
    options: { scales: { x: { min: 0, max: 1, title: { display: true, text: "dispatch (fraction of the decay window)" } },
                         y: { min: 0, max: 1.05, title: { display: true, text: "paid / bid" } } } } });

  draw("windows", { type: "bar", data: { labels: s.windows.map(function (w) { return "window " + w.window; }), datasets: [
      { label: "deposited", data: s.windows.map(function (w) { return toEth(w.deposits); }), backgroundColor: colors[0] },
      { label: "refunded", data: s.windows.map(function (w) { return toEth(w.refunds); }), backgroundColor: colors[2] },
      { label: "left", data: s.windows.map(function (w) { return toEth(w.left); }), backgroundColor: colors[1] } ] },
    options: { scales: { y: ethAxis } } });

  window.simulationCharts = Object.keys(charts);
  document.body.setAttribute("data-rendered", "true");
})();
`;
