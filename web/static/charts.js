// Charts over ticks (uPlot): banked, unit counts, fuel per tick with its cap, and
// each side's memory with its cap (format version 3 records it).
// A marker follows the viewer's tick; the chart's cursor moves the viewer.

import uPlot from "./vendor/uplot/uPlot.esm.js";
import { SIDE_COLORS } from "./draw.js";

const AXIS = { stroke: "#9aa4b2", grid: { stroke: "#262d36", width: 1 }, ticks: { stroke: "#262d36", width: 1 } };
let nextSyncKey = 0;

/** 1200 -> "1.2k", 5000000 -> "5M". */
function compact(v) {
  if (v === null || v === undefined) return "";
  for (const [unit, size] of [["G", 1e9], ["M", 1e6], ["k", 1e3]]) {
    if (Math.abs(v) >= size) return `${+(v / size).toPrecision(3)}${unit}`;
  }
  return String(v);
}

/** 1048576 -> "1 MiB", 65536 -> "64 KiB": memory as wasm counts it, in pages of 64 KiB. */
function bytes(v) {
  if (v === null || v === undefined) return "";
  if (Math.abs(v) >= 2 ** 20) return `${+(v / 2 ** 20).toPrecision(3)} MiB`;
  if (Math.abs(v) >= 2 ** 10) return `${+(v / 2 ** 10).toPrecision(3)} KiB`;
  return `${v} B`;
}

function line(label, color, extra = {}) {
  return { label, stroke: color, width: 1.5, points: { show: false }, ...extra };
}

/**
 * The charts of `replay` in `container`: banked, units, fuel and, for a replay that
 * records it, memory beside fuel. `onPick(tick, how)` is called when the user points
 * at a tick: how is "click" (a press) or "hover" (a move).
 */
export class Charts {
  constructor(container, replay, onPick) {
    this.replay = replay;
    this.container = container;
    this.onPick = onPick;
    this.tick = 0;
    const cap = replay.header.limits.fuel_per_tick;
    const [a, b] = replay.header.sides.map((s, i) => `${"AB"[i]} ${s.name}`);
    const sync = `fv-${nextSyncKey++}`;
    const capLine = (value) => (value === undefined ? [] : [line("cap", "#c0c7d0", { dash: [6, 4], width: 1 })]);
    const capData = (value, n) => (value === undefined ? [] : [new Array(n).fill(value)]);
    this.specs = [
      {
        title: "Banked",
        series: [line(a, SIDE_COLORS[0]), line(b, SIDE_COLORS[1])],
        data: (s) => [s.banked[0], s.banked[1]],
      },
      {
        title: "Units",
        series: [
          line("A workers", SIDE_COLORS[0]),
          line("A soldiers", SIDE_COLORS[0], { dash: [4, 3] }),
          line("B workers", SIDE_COLORS[1]),
          line("B soldiers", SIDE_COLORS[1], { dash: [4, 3] }),
        ],
        data: (s) => [s.workers[0], s.soldiers[0], s.workers[1], s.soldiers[1]],
      },
      {
        title: "Fuel per tick",
        // Logarithmic: the fuel used and the far higher cap both stay readable
        // (a tick that used no fuel leaves a gap).
        scale: { distr: 3, log: 10 },
        values: (u, splits) => splits.map(compact),
        // One line per power of ten: the log axis's own 2..9 lines crowd a short chart.
        splits: (u, axis, min, max) => {
          const out = [];
          for (let p = 10 ** Math.floor(Math.log10(Math.max(1, min))); p <= max * 1.0001; p *= 10) out.push(p);
          return out;
        },
        positive: true,
        series: [line(a, SIDE_COLORS[0]), line(b, SIDE_COLORS[1]), ...capLine(cap)],
        data: (s, n) => [s.fuel[0], s.fuel[1], ...capData(cap, n)],
      },
    ];
    if (replay.recordsMemory) {
      const memoryCap = replay.header.limits.max_memory_bytes;
      this.specs.push({
        title: "Memory",
        // From 0 to the cap (or past it, for a memory forfeit): how near the cap a side came.
        scale: { range: (u, min, max) => [0, 1.05 * Math.max(max ?? 0, memoryCap ?? 0, 1)] },
        values: (u, splits) => splits.map(bytes),
        // Whole powers of two of bytes, a page (64 KiB) at the least, at most five lines.
        splits: (u, axis, min, max) => {
          let step = 2 ** 16;
          while (max / step > 4) step *= 2;
          const out = [];
          for (let v = 0; v <= max; v += step) out.push(v);
          return out;
        },
        series: [line(a, SIDE_COLORS[0]), line(b, SIDE_COLORS[1]), ...capLine(memoryCap)],
        data: (s, n) => [s.memory[0], s.memory[1], ...capData(memoryCap, n)],
      });
    }
    this.plots = this.specs.map((spec) => this._plot(spec, sync));
  }

  _plot(spec, sync) {
    const box = document.createElement("div");
    box.className = "fv-chart";
    this.container.append(box);
    const opts = {
      title: spec.title,
      width: this._width(),
      height: 170,
      scales: { x: { time: false }, y: spec.scale ?? {} },
      axes: [AXIS, { ...AXIS, size: 56, ...(spec.values ? { values: spec.values, splits: spec.splits } : {}) }],
      series: [{ label: "tick" }, ...spec.series],
      cursor: { sync: { key: sync }, drag: { x: false, y: false }, points: { show: false } },
      legend: { live: true },
      // uPlot resets the legend to the cursor (none) after new data: show the viewer's tick again.
      hooks: { setLegend: [(u) => this._legend(u)] },
    };
    const plot = new uPlot(opts, this._data(spec), box);
    plot.spec = spec;
    const now = document.createElement("div");
    now.className = "fv-now";
    plot.over.append(now);
    plot.nowMarker = now;
    const pick = (event, how) => {
      const rect = plot.over.getBoundingClientRect();
      const tick = Math.round(plot.posToVal(event.clientX - rect.left, "x"));
      const last = this.replay.ticks - 1;
      if (last >= 0) this.onPick(Math.max(0, Math.min(last, tick)), how);
    };
    plot.over.addEventListener("mousedown", (e) => pick(e, "click"));
    plot.over.addEventListener("mousemove", (e) => pick(e, e.buttons & 1 ? "click" : "hover"));
    return plot;
  }

  _width() {
    const w = this.container.clientWidth || 900;
    // Three charts in a row; four in two rows of two, so that fuel and memory sit side by side.
    const columns = w < 900 ? 1 : this.specs.length === 4 ? 2 : 3;
    return Math.max(240, Math.floor((w - (columns - 1) * 12) / columns));
  }

  _data(spec) {
    const n = this.replay.ticks;
    let ys = spec.data(this.replay.series, n);
    if (spec.positive) ys = ys.map((y) => y.map((v) => (v > 0 ? v : null)));
    return [Array.from({ length: n }, (_, i) => i), ...ys];
  }

  /** New frames arrived: redraw with them. */
  update() {
    for (const plot of this.plots) plot.setData(this._data(plot.spec));
    this._placeMarkers();
  }

  resize() {
    const width = this._width();
    for (const plot of this.plots) plot.setSize({ width, height: 170 });
    this._placeMarkers();
  }

  setTick(tick) {
    this.tick = tick;
    this._placeMarkers();
  }

  _placeMarkers() {
    for (const plot of this.plots) {
      this._legend(plot);
      const x = plot.valToPos(this.tick, "x");
      plot.nowMarker.style.transform = `translateX(${Number.isFinite(x) ? x : 0}px)`;
    }
  }

  /** The legend shows the values at the viewer's tick while the mouse points nowhere else. */
  _legend(plot) {
    if (plot.cursor.idx == null && plot.legend.idx !== this.tick && this.tick < this.replay.ticks) {
      plot.setLegend({ idx: this.tick }, false);
    }
  }

  destroy() {
    for (const plot of this.plots) plot.destroy();
    this.container.replaceChildren();
  }
}
