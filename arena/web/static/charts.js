/* The rating history chart of a tournament page, drawn by uPlot (static/vendor/uplot). */
"use strict";

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
  "#7f7f7f", "#bcbd22"];

Arena.init.push(function historyChart() {
  const box = document.getElementById("history-chart");
  if (!box || typeof uPlot === "undefined") return;
  const history = Arena.data(box.dataset.source);
  box.replaceChildren();
  const series = [{ label: "matches rated" }].concat(history.series.map((s, i) => ({
    label: s.label,
    stroke: PALETTE[i % PALETTE.length],
    width: 2,
    spanGaps: false,
    value: (u, v) => (v === null || v === undefined ? "-" : v.toFixed(2)),
  })));
  const width = Math.max(320, Math.min(box.clientWidth || 900, 1100));
  const options = {
    width,
    height: 300,
    series,
    scales: { x: { time: false } },
    axes: [{ label: "matches rated", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000] },
      { label: "rating (mu - 3 sigma)" }],
    legend: { live: true },
    cursor: { drag: { x: true, y: false } },
  };
  new uPlot(options, [history.x].concat(history.series.map((s) => s.values)), box);
});
