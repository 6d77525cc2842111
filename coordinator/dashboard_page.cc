// The dashboard page (dashboard.h): plain HTML, CSS and JavaScript, no
// outside files, so that it works on a machine without internet. It polls
// /api/dashboard every 2 s and redraws; the charts are SVG polylines.
#include "coordinator/dashboard.h"

namespace mmapzero::coordinator {

const char kDashboardHtml[] = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mmapzero</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 20px; color: #1b1f24; background: #f6f7f9; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  h2 { font-size: 15px; margin: 18px 0 6px; }
  .muted { color: #667; }
  table { border-collapse: collapse; background: #fff; }
  th, td { padding: 4px 10px; border-bottom: 1px solid #e3e6ea; text-align: right; white-space: nowrap; }
  th:first-child, td:first-child, td.text { text-align: left; }
  tr.job { cursor: pointer; }
  tr.job.selected { background: #e8f0fe; }
  .state-running { color: #0b7a29; font-weight: 600; }
  .state-failed { color: #b3261e; font-weight: 600; }
  .charts { display: grid; grid-template-columns: repeat(2, 460px); gap: 12px; }
  .chart { background: #fff; border: 1px solid #e3e6ea; padding: 8px; }
  .chart h3 { font-size: 13px; margin: 0 0 4px; font-weight: 600; }
  .chart svg { display: block; }
  .lag-high { color: #b3261e; font-weight: 600; }
</style>
</head>
<body>
<h1>mmapzero</h1>
<div class="muted">coordinator dashboard &middot; <span id="updated">loading</span></div>
<h2>Jobs</h2>
<table id="jobs">
  <thead><tr><th>job</th><th>name</th><th>state</th><th>workload</th><th>buffers</th>
  <th>latency</th><th>speed-up over heuristic</th><th>best return</th>
  <th>heuristic return</th><th>found by</th><th>learner step</th><th>games</th>
  <th>actors</th><th>elapsed</th></tr></thead>
  <tbody></tbody>
</table>
<h2 id="selected-title">Job</h2>
<div class="charts">
  <div class="chart"><h3>best simulated latency</h3><svg id="chart-latency" width="440" height="160"></svg></div>
  <div class="chart"><h3>best normalised return</h3><svg id="chart-best" width="440" height="160"></svg></div>
  <div class="chart"><h3>learner steps</h3><svg id="chart-steps" width="440" height="160"></svg></div>
  <div class="chart"><h3>games per second</h3><svg id="chart-games" width="440" height="160"></svg></div>
  <div class="chart"><h3>moves per second</h3><svg id="chart-moves" width="440" height="160"></svg></div>
</div>
<h2>Workers</h2>
<table id="workers">
  <thead><tr><th>worker</th><th>name</th><th>role</th><th>job</th>
  <th>parameter version</th><th>lag (versions behind the learner)</th></tr></thead>
  <tbody></tbody>
</table>
<script>
"use strict";
let selected = null;
let updates = 0;

function text(value) { return document.createTextNode(String(value)); }
function cell(row, value, cls) {
  const td = row.insertCell();
  td.appendChild(text(value));
  if (cls) td.className = cls;
  return td;
}
function seconds(ms) {
  if (ms <= 0) return "-";
  const s = Math.round(ms / 1000);
  return s < 120 ? s + " s" : Math.round(s / 60) + " min";
}

// Draws points [[x, y], ...] into svg as a polyline with its y range.
function draw(svg, points, format) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const ns = "http://www.w3.org/2000/svg";
  const w = +svg.getAttribute("width"), h = +svg.getAttribute("height");
  const left = 56, bottom = 18, top = 6, right = 6;
  const add = (name, attrs, content) => {
    const e = document.createElementNS(ns, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (content !== undefined) e.appendChild(text(content));
    svg.appendChild(e);
    return e;
  };
  add("rect", {x: left, y: top, width: w - left - right, height: h - top - bottom,
               fill: "#fafbfc", stroke: "#e3e6ea"});
  if (points.length === 0) {
    add("text", {x: left + 10, y: h / 2, fill: "#667", "font-size": 12}, "no data yet");
    return;
  }
  const xs = points.map(p => p[0]), ys = points.map(p => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
  let y0 = Math.min(...ys), y1 = Math.max(...ys);
  if (y1 - y0 < 1e-9) { y0 -= 1e-3 + Math.abs(y0) * 0.01; y1 += 1e-3 + Math.abs(y1) * 0.01; }
  const px = x => left + (x - x0) / (x1 - x0) * (w - left - right);
  const py = y => top + (1 - (y - y0) / (y1 - y0)) * (h - top - bottom);
  add("polyline", {points: points.map(p => px(p[0]).toFixed(1) + "," + py(p[1]).toFixed(1)).join(" "),
                   fill: "none", stroke: "#1a73e8", "stroke-width": 1.6});
  add("text", {x: left - 4, y: top + 10, "text-anchor": "end", "font-size": 11}, format(y1));
  add("text", {x: left - 4, y: h - bottom, "text-anchor": "end", "font-size": 11}, format(y0));
  add("text", {x: left, y: h - 4, "font-size": 11, fill: "#667"}, "0 s");
  add("text", {x: w - right, y: h - 4, "text-anchor": "end", "font-size": 11, fill: "#667"},
      Math.round((x1 - x0) / 1000) + " s");
}

// Microseconds in the unit that reads: "812.4 us", "12.345 ms", "3.210 s".
function latency(us) {
  if (us < 1e4) return us.toFixed(1) + " us";
  if (us < 1e7) return (us / 1e3).toFixed(3) + " ms";
  return (us / 1e6).toFixed(3) + " s";
}

// Per-second rates between consecutive samples of column `col`.
function rates(history, col) {
  const out = [];
  for (let i = 1; i < history.length; i++) {
    const dt = (history[i][0] - history[i - 1][0]) / 1000;
    if (dt > 0) out.push([history[i][0], (history[i][col] - history[i - 1][col]) / dt]);
  }
  return out;
}

function render(data) {
  const jobs = data.jobs;
  if (selected === null || !jobs.some(j => j.job_id === selected)) {
    const running = jobs.find(j => j.state === "running");
    selected = running ? running.job_id : (jobs.length ? jobs[0].job_id : null);
  }
  const body = document.querySelector("#jobs tbody");
  body.innerHTML = "";
  for (const j of jobs) {
    const row = body.insertRow();
    row.className = "job" + (j.job_id === selected ? " selected" : "");
    row.dataset.jobId = j.job_id;
    row.onclick = () => { selected = j.job_id; render(data); };
    const end = j.finished_unix_ms || data.now_unix_ms;
    cell(row, j.job_id, "text");
    cell(row, j.name || "", "text");
    cell(row, j.state, "text state-" + j.state);
    cell(row, j.workload, "text");
    cell(row, j.buffers);
    cell(row, j.best_latency_us > 0 ? latency(j.best_latency_us) : "-");
    cell(row, j.best_latency_us > 0 && j.heuristic_latency_us > 0
                  ? (j.heuristic_latency_us / j.best_latency_us).toFixed(4) + "x" : "-");
    cell(row, j.best_normalised_return.toFixed(4));
    cell(row, j.heuristic_normalised_return.toFixed(4));
    cell(row, j.best_solver || "", "text");
    cell(row, j.learner_step);
    cell(row, j.games);
    cell(row, j.actors);
    cell(row, j.started_unix_ms ? seconds(end - j.started_unix_ms) : "-");
  }
  const job = jobs.find(j => j.job_id === selected);
  document.getElementById("selected-title").textContent =
      job ? job.job_id + " (" + job.state + ", " + job.history.length + " samples)" : "no jobs yet";
  const h = job ? job.history : [];
  draw(document.getElementById("chart-latency"), h.filter(s => s[5] > 0).map(s => [s[0], s[5]]), latency);
  draw(document.getElementById("chart-best"), h.map(s => [s[0], s[1]]), y => y.toFixed(4));
  draw(document.getElementById("chart-steps"), h.map(s => [s[0], s[2]]), y => Math.round(y));
  draw(document.getElementById("chart-games"), rates(h, 3), y => y.toFixed(1));
  draw(document.getElementById("chart-moves"), rates(h, 4), y => Math.round(y));

  const workers = document.querySelector("#workers tbody");
  workers.innerHTML = "";
  for (const w of data.workers) {
    const jobsOf = w.jobs.length ? w.jobs : [{job_id: "-", parameter_version: "-", lag: "-"}];
    for (const wj of jobsOf) {
      const row = workers.insertRow();
      cell(row, w.worker_id, "text");
      cell(row, w.name, "text");
      cell(row, w.role, "text");
      cell(row, wj.job_id, "text");
      cell(row, wj.parameter_version);
      cell(row, wj.lag === null ? "-" : wj.lag, wj.lag > 50 ? "lag-high" : "");
    }
  }
  updates += 1;
  document.getElementById("updated").textContent =
      "updated " + new Date(data.now_unix_ms).toLocaleTimeString() + " (" + updates + " updates)";
}

async function refresh() {
  try {
    const reply = await fetch("/api/dashboard", {cache: "no-store"});
    if (!reply.ok) throw new Error(reply.status + " " + await reply.text());
    render(await reply.json());
  } catch (e) {
    document.getElementById("updated").textContent = "cannot reach the coordinator: " + e.message;
  }
}
refresh();
setInterval(refresh, 2000);
</script>
</body>
</html>
)html";

}  // namespace mmapzero::coordinator
