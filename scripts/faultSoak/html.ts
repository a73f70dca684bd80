/**
 * The fault soak's report page: one self-contained index.html (Chart.js and the data inlined, in the simulation
 * report's style) with the faults on a time line above the bids' outcomes and the commitments' latencies, on the
 * same time axis, then the figures and the checker's findings.
 */
import { chartLibrary, esc, REPORT_STYLE, scriptSafe, table } from "../../scenarios/sim/report/html.ts";
import type { CheckResult } from "./checker.ts";
import type { AppliedFault, Figures } from "./figures.ts";
import type { ClientBid } from "./records.ts";
import { describeFault } from "./schedule.ts";

/** The canvases the page draws, by id. */
export const FAULT_PLOTS = ["faults", "outcomes", "latency"] as const;

export interface ReportData {
  figures: Figures;
  findings: CheckResult["findings"];
  faults: AppliedFault[];
  /** Per bid, seconds from the start: when sent, how many commitments, and each commitment's latency by provider. */
  bids: { t: number; n: number; answered: boolean; latency: { provider: number; ms: number }[] }[];
  providerNames: string[];
  startedAt: string;
  commit: string;
}

export function reportData(
  o: Omit<ReportData, "bids"> & { clientBids: ClientBid[]; providerAddresses: string[]; t0: number },
): ReportData {
  const { clientBids, providerAddresses, t0, ...rest } = o;
  return {
    ...rest,
    bids: clientBids.map((b) => ({
      t: (b.sentAt - t0) / 1000,
      n: b.commitments.length,
      answered: b.answered,
      latency: b.commitments.map((c) => ({ provider: providerAddresses.indexOf(c.provider), ms: c.at - b.sentAt })),
    })),
  };
}

export function renderFaultSoakHtml(d: ReportData): string {
  const f = d.figures;
  const plot = (id: (typeof FAULT_PLOTS)[number], title: string, note: string) =>
    `<figure><figcaption>${esc(title)}</figcaption><div class="plot"><canvas id="${id}"></canvas></div><p class="note">${esc(note)}</p></figure>`;
  const bad = f.lost + f.duplicates + f.disagreements;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fault soak, protocol ${esc(f.protocol)} (seed ${f.seed})</title>
<style>
${REPORT_STYLE}  .timeline figure { margin-bottom: .6rem; } .timeline .plot { height: 220px; }
</style>
</head>
<body>
<h1>Fault soak</h1>
<p class="lead">Protocol ${esc(f.protocol)} · seed ${f.seed} · ${f.minutes} min · ${f.streams} client streams through one bidder · ${f.providers} providers · started ${esc(d.startedAt)} · commit ${esc(d.commit)}</p>
<div class="cards">
  <div class="card">bids sent<b>${f.bids.sent}</b></div>
  <div class="card">answered<b>${f.bids.answered}</b></div>
  <div class="card">commitments per bid<b>${f.commitments.perBid}</b></div>
  <div class="card">faults applied<b>${f.faults.applied}</b></div>
  <div class="card">acknowledged lost<b class="${f.lost ? "bad" : "ok"}">${f.lost}</b></div>
  <div class="card">duplicates<b class="${f.duplicates ? "bad" : "ok"}">${f.duplicates}</b></div>
  <div class="card">disagreements<b class="${f.disagreements ? "bad" : "ok"}">${f.disagreements}</b></div>
  <div class="card">median recovery<b>${f.recovery.medianMs === null ? "–" : `${(f.recovery.medianMs / 1000).toFixed(1)} s`}</b></div>
</div>
${
  f.silentAfterLastHeal.length
    ? `<p class="bad">Never came back: ${esc(f.silentAfterLastHeal.join(", "))} committed to no bid sent after the last heal.</p>`
    : ""
}
<h2>Time line</h2>
<div class="timeline">
${plot("faults", "Faults", "Each fault from when it was set to its heal, on its link (a pair of hosts, or one host: all its traffic).")}
${plot("outcomes", "Bids' outcomes", "Each bid at the time it was sent: how many commitments its stream delivered (red: the stream did not end normally).")}
${plot("latency", "Commitment latency", "Each acknowledged commitment: from the bid sent to the commitment read by the client, by provider.")}
</div>
<h2>The checker ${bad ? `<span class="bad">found ${bad}</span>` : '<span class="ok">found nothing</span>'}</h2>
${table(
  ["fate of the acknowledged commitments", "count"],
  Object.entries(f.fates).map(([k, v]) => [k, v]),
)}
<p class="note">settled / slashed: as the chain says; not-won: stored, and another provider won its block; pending: its block is past the checked horizon; lost: none of these. Committed but never acknowledged to a client (a stream cut by a fault): ${f.unacknowledged.nodes} in the nodes' record, ${f.unacknowledged.chain} stored on the chain, ${f.unacknowledged.settled} of them settled (paid for by the bidder).</p>
${
  d.findings.length
    ? table(
        ["kind", "subject", "detail"],
        d.findings.map((x) => [x.kind, x.subject, x.detail]),
      )
    : ""
}
<h2>Recovery after each heal</h2>
${table(
  ["fault", "healed at (s)", "first commitment after the heal"],
  f.recovery.each.map((r) => [
    r.fault,
    (r.healedAt / 1000).toFixed(1),
    r.ms === null ? "none" : `${(r.ms / 1000).toFixed(1)} s`,
  ]),
)}
${
  d.faults.some((x) => x.error)
    ? `<h2 class="warn">Faults that could not be set</h2><ul>${d.faults
        .filter((x) => x.error)
        .map((x) => `<li>${esc(describeFault(x.spec))}: ${esc(x.error!)}</li>`)
        .join("")}</ul>`
    : ""
}
<p class="note">Every figure: summary.json (beside this page).</p>
<script>${scriptSafe(chartLibrary())}</script>
<script type="application/json" id="data">${scriptSafe(
    JSON.stringify({
      ...d,
      faults: d.faults.map((x) => ({ ...x, label: describeFault(x.spec), link: x.spec.hosts.join("/") })),
    }),
  )}</script>
<script>${scriptSafe(PAGE_SCRIPT)}</script>
</body>
</html>
`;
}

const PAGE_SCRIPT = `
(function () {
  var d = JSON.parse(document.getElementById("data").textContent);
  var colors = ["#3b6fd8", "#e0712c", "#2a9d55", "#b33d8e", "#8a6d1e", "#1b9aa8", "#6b4fc4"];
  var kindColor = { partition: "#c23b3b", loss: "#e0712c", bandwidth: "#3b6fd8", delay: "#6b4fc4" };
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  var end = d.figures.minutes * 60;
  d.bids.forEach(function (b) { if (b.t > end) end = b.t; });
  var x = { type: "linear", min: 0, max: Math.ceil(end), title: { display: true, text: "seconds from the start" } };
  var charts = {};
  function draw(id, config) { charts[id] = new Chart(document.getElementById(id), config); }
  var links = [];
  d.faults.forEach(function (f) { if (links.indexOf(f.link) < 0) links.push(f.link); });
  var kinds = {};
  d.faults.forEach(function (f) {
    if (f.error) return;
    var k = f.spec.partition ? "partition" : f.spec.lossPercent !== undefined ? "loss" : f.spec.rateKbit !== undefined ? "bandwidth" : "delay";
    (kinds[k] = kinds[k] || []).push({ x: [f.at / 1000, f.until / 1000], y: f.link, label: f.label });
  });
  draw("faults", { type: "bar", data: { labels: links, datasets: Object.keys(kinds).map(function (k) {
      return { label: k, data: kinds[k], backgroundColor: kindColor[k], grouped: false, barPercentage: 0.8 }; }) },
    options: { indexAxis: "y", scales: { x: x, y: { type: "category", labels: links } },
      plugins: { tooltip: { callbacks: { label: function (c) { return c.raw.label; } } } } } });
  draw("outcomes", { type: "scatter", data: { datasets: [
      { label: "answered", data: d.bids.filter(function (b) { return b.answered; }).map(function (b) { return { x: b.t, y: b.n }; }), backgroundColor: colors[2], pointRadius: 2 },
      { label: "no normal end", data: d.bids.filter(function (b) { return !b.answered; }).map(function (b) { return { x: b.t, y: b.n }; }), backgroundColor: "#c23b3b", pointRadius: 3 } ] },
    options: { scales: { x: x, y: { min: -0.2, max: d.figures.providers + 0.2, ticks: { stepSize: 1 }, title: { display: true, text: "commitments" } } } } });
  draw("latency", { type: "scatter", data: { datasets: d.providerNames.map(function (name, i) {
      var pts = [];
      d.bids.forEach(function (b) { b.latency.forEach(function (l) { if (l.provider === i) pts.push({ x: b.t, y: l.ms }); }); });
      return { label: name, data: pts, backgroundColor: colors[i % colors.length], pointRadius: 2 }; }) },
    options: { scales: { x: x, y: { type: "logarithmic", title: { display: true, text: "ms" } } } } });
  window.faultSoakCharts = Object.keys(charts);
  document.body.setAttribute("data-rendered", "true");
})();
`;
