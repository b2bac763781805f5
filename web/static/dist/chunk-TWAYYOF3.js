import {
  MapRenderer,
  SIDE_COLORS,
  SOLDIER,
  streamReplay
} from "./chunk-O2PYIN3Y.js";

// static/dom.js
function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === void 0 || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== void 0 && c !== false));
  return el;
}

// static/format.js
var intl = null;
function fixed(value) {
  return value == null ? "–" : value.toFixed(2);
}
function num(value) {
  if (Number.isSafeInteger(value)) {
    const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, ",");
    return value < 0 || Object.is(value, -0) ? `-${digits}` : digits;
  }
  intl ??= new Intl.NumberFormat("en-US");
  return intl.format(value);
}

// static/outcome.js
function sideLabel(replay, side, storedAs = null) {
  const name = replay.header.sides[side].name;
  return `${"AB"[side]} (${storedAs && storedAs !== name ? `${name}, stored as ${storedAs}` : name})`;
}
function percentLess(less, more) {
  const pct = (1 - less / more) * 100;
  if (pct >= 1) return `${pct >= 99.5 && pct < 100 ? pct.toFixed(1) : Math.round(pct)}%`;
  return `${pct.toPrecision(2)}%`;
}
function forfeitText(replay, side) {
  const f = replay.result.sides[side].forfeit;
  const when = f.tick === 0 && replay.ticks === 0 ? "at init" : `in tick ${f.tick}`;
  return `${sideLabel(replay, side)} forfeited ${when}: ${f.kind}${f.detail ? ` (${f.detail})` : ""}`;
}
function describeOutcome(replay) {
  const r = replay.result;
  const [a, b] = r.sides;
  const winner = r.winner;
  const banked = `banked ${a.banked}-${b.banked}`;
  const last = replay.lastApplied >= 0 ? replay.frames[replay.lastApplied] : null;
  const bothDestroyed = last !== null && last.k[0] <= 0 && last.k[1] <= 0;
  const prefix = bothDestroyed ? `both colonies destroyed in tick ${last.t}; ` : "";
  const wins = winner === null ? "Draw" : `${sideLabel(replay, winner)} wins`;
  switch (r.reason) {
    case "forfeit": {
      const who = [0, 1].filter((s) => r.sides[s].forfeit !== null);
      return {
        winner,
        headline: winner === null ? "Draw: both sides forfeited" : `${wins} by forfeit`,
        detail: who.map((s) => forfeitText(replay, s)).join("; ")
      };
    }
    case "sweep": {
      const loser = 1 - winner;
      return {
        winner,
        headline: `${wins} by sweep`,
        detail: `${"AB"[loser]}'s colony destroyed in tick ${r.ticks - 1}; ${banked}`
      };
    }
    case "score":
      return { winner, headline: `${wins} on score`, detail: `${prefix}${banked}` };
    case "fuel": {
      const [w, l] = winner === 0 ? [a, b] : [b, a];
      return {
        winner,
        headline: `${wins} on fuel`,
        detail: `${prefix}level on ${banked}; ${"AB"[winner]} used ${percentLess(w.fuel_total, l.fuel_total)} less fuel (${num(w.fuel_total)} vs ${num(l.fuel_total)})`
      };
    }
    case "draw":
      return {
        winner,
        headline: "Draw",
        detail: `${prefix}level on ${banked} and on fuel (${num(a.fuel_total)} each)`
      };
    default:
      return { winner, headline: `${wins} (${r.reason})`, detail: banked };
  }
}

// static/panels.js
var STATS = [
  "colony hp",
  "banked",
  "energy",
  "workers",
  "soldiers",
  "ore carried",
  "fuel",
  "of the cap",
  "memory",
  "of its cap"
];
var WHOLE_CHARGE = ["trap", "fuel", "timeout"];
var percent = (share) => {
  const pct = 100 * share;
  return `${pct >= 0.1 || pct === 0 ? pct.toFixed(1) : pct.toPrecision(2)}%`;
};
function sidePanel(r, { state, frame }, s) {
  const cap = r.header.limits.fuel_per_tick;
  const units = state === null ? [] : [...state.units[s].values()];
  const soldiers = units.filter((u) => u.kind === SOLDIER).length;
  const fuel = frame === null ? null : frame.f[s];
  const memory = frame === null ? null : r.series.memory[s][frame.t];
  const memoryCap = r.header.limits.max_memory_bytes;
  const forfeit = r.result ? r.result.sides[s].forfeit : null;
  const chargedWhole = frame !== null && forfeit !== null && forfeit.tick === frame.t && WHOLE_CHARGE.includes(forfeit.kind);
  const values = {
    "colony hp": `${state === null ? r.config.colony_hp : state.colonyHp[s]} / ${r.config.colony_hp}`,
    banked: state === null ? "0" : num(state.banked[s]),
    energy: state === null ? "–" : num(state.energy[s]),
    workers: state === null ? "–" : String(units.length - soldiers),
    soldiers: state === null ? "–" : String(soldiers),
    "ore carried": state === null ? "–" : num(units.reduce((n, u) => n + u.carry, 0)),
    fuel: fuel === null ? "–" : num(fuel),
    "of the cap": fuel === null || !cap ? "–" : `${percent(fuel / cap)}${chargedWhole ? ` · ${forfeit.kind}: charged whole` : ""}`,
    memory: memory === null || memory === void 0 ? "–" : num(memory),
    "of its cap": memory === null || memory === void 0 || !memoryCap ? "–" : percent(memory / memoryCap)
  };
  const raw = frame !== null && Array.isArray(frame.n) ? frame.n[s] : null;
  const note = raw === null || raw === void 0 ? null : typeof raw === "string" ? raw : Number.isInteger(raw) ? `(note dropped: returned length ${raw})` : "(note dropped)";
  return { values, charged: chargedWhole ? forfeit.kind : null, note };
}

// static/viewer.js
var SPEEDS = [1, 2, 4, 8, 16, 32];
var PLAY = "▶";
var PAUSE = "❚❚";
var TICKS_PER_SECOND = 10;
function mountViewer(element, options) {
  return new Viewer(element, options);
}
var STATIC = new URL(/\/dist\/[^/]*$/.test(new URL(import.meta.url).pathname) ? "../" : "./", import.meta.url);
function ensureStyle(href) {
  const name = href.slice(href.lastIndexOf("/"));
  const links = [...document.querySelectorAll('link[rel="stylesheet"]')];
  const linked = links.find((link2) => new URL(link2.href).pathname.endsWith(name));
  if (linked !== void 0) return Promise.resolve();
  const link = h("link", { rel: "stylesheet", href: new URL(href, STATIC).href });
  document.head.append(link);
  return loaded(link);
}
function loaded(link) {
  return new Promise((resolve) => {
    link.addEventListener("load", resolve, { once: true });
    link.addEventListener("error", resolve, { once: true });
  });
}
var Viewer = class {
  constructor(element, { replayUrl, tick = null, keyboard = true, onTick = null, headers = null, storedAs = null } = {}) {
    if (!replayUrl) throw new TypeError("mountViewer: replayUrl is required");
    ensureStyle("./viewer.css");
    this.element = element;
    this.replayUrl = replayUrl;
    this.storedAs = storedAs;
    this.onTick = onTick;
    this.replay = null;
    this.renderer = null;
    this.charts = null;
    this.tick = -1;
    this.playing = false;
    this.speed = 1;
    this.vision = null;
    this.metrics = { mounted: performance.now(), header: null, firstFrame: null, shown: null, streamDone: null };
    this._wanted = tick !== null && Number.isInteger(tick) && tick >= 0 ? tick : 0;
    this._cur = null;
    this._uiPending = false;
    this._markersPending = false;
    this._abort = new AbortController();
    this._build();
    if (keyboard) {
      this._onKey = (e) => this._key(e);
      document.addEventListener("keydown", this._onKey);
    }
    this._onResize = () => {
      this._room = null;
      this._resize();
    };
    window.addEventListener("resize", this._onResize);
    this._room = null;
    this._roomWatch = new ResizeObserver(([entry]) => {
      this._room = Math.round(entry.contentRect.width);
    });
    this._roomWatch.observe(this.ui.board);
    this._setState("loading");
    const sink = {
      response: () => this._attach(),
      header: (replay) => this._onHeader(replay),
      frames: (replay) => this._onFrames(replay),
      done: (replay) => this._onDone(replay)
    };
    this.loaded = streamReplay(this.replayUrl, sink, { signal: this._abort.signal, headers }).catch((err) => {
      if (err.name !== "AbortError") this._fail(err);
      throw err;
    });
    this.loaded.catch(() => {
    });
  }
  // ------------------------------------------------------------------ layout
  _build() {
    this._stats = [{}, {}];
    const side = (s) => h(
      "section",
      { class: "fv-side", dataset: { side: String(s) } },
      h("h2", { class: "fv-name" }),
      h(
        "dl",
        { class: "fv-stats" },
        ...STATS.flatMap((name) => [h("dt", {}, name), this._stats[s][name] = h("dd", {}, "–")])
      ),
      h("p", { class: "fv-note", hidden: "" })
    );
    this.ui = {
      title: h("div", { class: "fv-title" }, "loading the replay…"),
      outcome: h("div", { class: "fv-outcome" }),
      sides: [side(0), side(1)],
      canvas: h("canvas", { class: "fv-canvas", role: "img", "aria-label": "the map" }),
      banner: h("div", { class: "fv-banner", role: "status", hidden: "" }),
      scrubber: h("input", {
        class: "fv-scrubber",
        type: "range",
        min: "0",
        max: "0",
        value: "0",
        step: "1",
        disabled: "",
        "aria-label": "tick",
        oninput: (e) => {
          this.pause();
          this.seek(Number(e.target.value));
        }
      }),
      tickLabel: h("span", { class: "fv-tick" }, "tick –"),
      play: this._button(PLAY, "play / pause (space)", () => this.toggle(), "fv-play"),
      speed: h(
        "select",
        { class: "fv-speed", "aria-label": "speed", onchange: (e) => this.setSpeed(Number(e.target.value)) },
        ...SPEEDS.map((s) => h("option", { value: String(s) }, `${s}x`))
      ),
      vision: h(
        "select",
        {
          class: "fv-vision",
          "aria-label": "vision",
          onchange: (e) => this.setVision(e.target.value === "" ? null : Number(e.target.value))
        },
        h("option", { value: "" }, "vision: off"),
        h("option", { value: "0" }, "vision: A"),
        h("option", { value: "1" }, "vision: B")
      ),
      charts: h("div", { class: "fv-charts" }),
      status: h("div", { class: "fv-status", role: "alert" })
    };
    const u = this.ui;
    const board = h("div", { class: "fv-board" }, u.canvas, u.banner);
    this.ui.board = board;
    const controls = h(
      "div",
      { class: "fv-controls" },
      this._button("|◀◀", "first tick (Home)", () => this._jump(0)),
      this._button("◀|", "step back (←)", () => this.step(-1)),
      u.play,
      this._button("|▶", "step forward (→)", () => this.step(1)),
      this._button("▶▶|", "last tick (End)", () => this._jump(Infinity)),
      u.scrubber,
      u.tickLabel,
      u.speed,
      u.vision
    );
    this._root = h(
      "div",
      { class: "fv" },
      u.title,
      u.outcome,
      h("div", { class: "fv-main" }, u.sides[0], board, u.sides[1]),
      controls,
      u.status,
      u.charts
    );
  }
  /**
   * Put the viewer's elements in the page: when the replay's response has arrived (or failed),
   * not when it mounts. Elements added while the response is awaited made the browser style,
   * lay out and paint them first, and the response's turn came only after that frame.
   */
  _attach() {
    if (!this._destroyed && this._root.parentNode !== this.element) this.element.replaceChildren(this._root);
  }
  _button(text, title, action, cls = "") {
    return h("button", {
      type: "button",
      class: `fv-button ${cls}`.trim(),
      title,
      "aria-label": title,
      onclick: (e) => {
        action();
        if (e.detail > 0) e.currentTarget.blur();
      }
    }, text);
  }
  _setState(state) {
    this.element.dataset.state = state;
  }
  _resize() {
    if (this.renderer === null) return;
    if (this._fit()) this._render();
    if (this.charts !== null) this.charts.resize();
  }
  /** Size the canvas to the page; whether its size changed (it is then blank). */
  _fit() {
    const room = this._room || this.ui.board.clientWidth || 640;
    const tall = Math.max(240, window.innerHeight - 220);
    return this.renderer.resize(Math.min(room, tall * this.replay.width / this.replay.height));
  }
  // ------------------------------------------------------------------ the stream
  /** The header has been read. */
  _onHeader(replay) {
    this.metrics.header = performance.now();
    this.replay = replay;
    const hd = replay.header;
    const label = (s) => sideLabel(replay, s, this.storedAs?.[s]);
    const name = (s) => h("span", { class: `fv-side-${s}` }, label(s));
    const where = [`seed ${hd.seed}`, `${replay.width}×${replay.height}`, `${replay.config.max_ticks} ticks`];
    if (hd.case) where.push(`case ${hd.case.slug}/${hd.case.version}`);
    this.ui.title.replaceChildren(name(0), " vs ", name(1), h("span", { class: "fv-where" }, ` · ${where.join(" · ")}`));
    this.ui.sides.forEach((el, s) => {
      const title = el.querySelector(".fv-name");
      title.textContent = label(s);
      title.title = `sha256 ${hd.sides[s].sha256}`;
      title.style.color = SIDE_COLORS[s];
    });
    this.ui.outcome.textContent = "";
    this.renderer = new MapRenderer(this.ui.canvas, replay);
    this._fit();
    this._roomWatch.disconnect();
    this._room = null;
    requestAnimationFrame(() => {
      if (this.tick < 0 && !this._destroyed) this._render();
    });
    this._setState("streaming");
  }
  /** More frames have been read. */
  _onFrames(replay) {
    if (this.tick < 0) {
      this._show(Math.min(this._wanted, replay.ticks - 1), { panels: false });
      this.metrics.firstFrame = performance.now();
      requestAnimationFrame(() => {
        if (this._destroyed) return;
        this._panels(this._lastView);
        this.metrics.shown = performance.now();
      });
      this.ui.scrubber.disabled = false;
      Promise.all([import("./charts-TBC2A5RS.js"), ensureStyle("./vendor/uplot/uPlot.min.css")]).then(([{ Charts }]) => {
        if (this.charts !== null || this._destroyed) return;
        this.charts = new Charts(this.ui.charts, replay, (t, how) => this._pick(t, how));
        this.charts.setTick(Math.max(0, this.tick));
      });
    }
    this._scheduleUi();
  }
  /** The result has been read. */
  _onDone(replay) {
    this.metrics.streamDone = performance.now();
    const outcome = describeOutcome(replay);
    this.ui.outcome.replaceChildren(
      h("strong", { class: outcome.winner === null ? "" : `fv-side-${outcome.winner}` }, outcome.headline),
      h("span", { class: "fv-detail" }, ` — ${outcome.detail}`)
    );
    this.ui.outcome.dataset.reason = replay.result.reason;
    this._refreshUi();
    this._render();
    this._setState("ready");
  }
  _fail(err) {
    this._attach();
    this.pause();
    this.ui.status.textContent = err instanceof Error ? err.message : String(err);
    this._setState("error");
  }
  /** Coalesce the stream's updates (scrubber, charts, a wanted tick) into one per animation frame. */
  _scheduleUi() {
    if (this._uiPending) return;
    this._uiPending = true;
    requestAnimationFrame(() => {
      this._uiPending = false;
      this._refreshUi();
    });
  }
  _refreshUi() {
    const r = this.replay;
    if (r === null) return;
    const last = r.ticks - 1;
    this.ui.scrubber.max = String(Math.max(0, last));
    if (this._wanted !== null && this.tick !== this._wanted && last >= 0) {
      this._show(Math.min(this._wanted, last));
    }
    if (this._wanted !== null && (this.tick === this._wanted || r.complete)) {
      this._wanted = null;
      if (this.onTick !== null) this.onTick(this.tick, this.playing);
    }
    if (this.charts !== null) this.charts.update();
    this._label();
  }
  // ------------------------------------------------------------------ moving
  /** Show tick t (clamped to the frames read so far). */
  seek(t) {
    const r = this.replay;
    if (r === null || r.ticks === 0) return;
    this._wanted = null;
    this._show(Math.max(0, Math.min(r.ticks - 1, Math.round(t))));
  }
  step(delta) {
    this.pause();
    this.seek(Math.max(0, this.tick) + delta);
  }
  _jump(t) {
    this.pause();
    this.seek(t);
  }
  play() {
    const r = this.replay;
    if (r === null || r.ticks === 0 || this.playing) return;
    if (this.tick >= r.ticks - 1 && r.complete) this.seek(0);
    this.playing = true;
    this.ui.play.textContent = PAUSE;
    let last = null;
    let due = 0;
    const loop = (now) => {
      if (!this.playing) return;
      if (last !== null) due += (now - last) / 1e3 * TICKS_PER_SECOND * this.speed;
      last = now;
      const steps = Math.floor(due);
      if (steps > 0) {
        due -= steps;
        const end = this.replay.ticks - 1;
        const to = Math.min(end, this.tick + steps);
        if (to !== this.tick) this._show(to);
        if (to >= end && this.replay.complete) {
          this.pause();
          return;
        }
      }
      this._raf = requestAnimationFrame(loop);
    };
    this._raf = requestAnimationFrame(loop);
  }
  pause() {
    if (!this.playing) return;
    this.playing = false;
    cancelAnimationFrame(this._raf);
    this.ui.play.textContent = PLAY;
    if (this.onTick !== null) this.onTick(this.tick, false);
  }
  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }
  setSpeed(speed) {
    if (!SPEEDS.includes(speed)) return;
    this.speed = speed;
    this.ui.speed.value = String(speed);
  }
  /** Show side 0's or 1's vision, or none (null). */
  setVision(side) {
    this.vision = side === 0 || side === 1 ? side : null;
    this.ui.vision.value = this.vision === null ? "" : String(this.vision);
    this._render();
  }
  _pick(t, how) {
    if (how === "click") this.pause();
    else if (this.playing) return;
    this.seek(t);
  }
  _key(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || this.replay === null) return;
    const t = e.target;
    if (t instanceof HTMLElement && t !== this.ui.scrubber) {
      if (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName)) return;
      if (t.tagName === "BUTTON" && (e.key === " " || e.key === "Enter")) return;
    }
    const actions = {
      " ": () => this.toggle(),
      ArrowLeft: () => this.step(e.shiftKey ? -10 : -1),
      ArrowRight: () => this.step(e.shiftKey ? 10 : 1),
      Home: () => this._jump(0),
      End: () => this._jump(Infinity),
      v: () => this.setVision(this.vision === null ? 0 : this.vision === 0 ? 1 : null),
      "+": () => this.setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(this.speed) + 1)]),
      "-": () => this.setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(this.speed) - 1)])
    };
    const action = actions[e.key];
    if (action === void 0) return;
    e.preventDefault();
    action();
  }
  // ------------------------------------------------------------------ drawing
  /** The drawn state of tick t, the state before it, and its frame. */
  view(t) {
    const r = this.replay;
    if (t < 0 || r.ticks === 0) return { state: null, prev: null, frame: null };
    const frame = r.frames[t];
    if (frame === r.forfeitFrame) {
      return { state: t > 0 ? this._stateAt(t - 1) : null, prev: null, frame };
    }
    const prev = t > 0 ? this._stateAt(t - 1) : null;
    const state = r.advance(prev === null ? null : prev.clone(), t);
    this._cur = { t, state };
    return { state, prev, frame };
  }
  _stateAt(t) {
    return this._cur !== null && this._cur.t === t ? this._cur.state : this.replay.stateAt(t);
  }
  _show(t, { panels = true } = {}) {
    this.tick = t;
    this._render({ panels });
    if (this.onTick !== null && this._wanted === null) this.onTick(t, this.playing);
  }
  /** Draw the tick shown: the map, and (unless `panels` is false) the panels beside it. */
  _render({ panels = true } = {}) {
    if (this.renderer === null) return;
    const view = this.view(this.tick);
    this._lastView = view;
    this.renderer.draw(view, { vision: this.vision });
    if (panels) this._panels(view);
    this._label();
    this._scheduleMarkers();
    this.ui.canvas.setAttribute("aria-label", `the map at tick ${this.tick}`);
    this.element.dataset.tick = String(this.tick);
  }
  /**
   * Move the charts' tick markers (and their legends) on the next animation frame, not
   * in the seek: a jump draws the map at once and the markers follow before the frame
   * is painted (during play, one frame later); a drag over many ticks moves them once.
   */
  _scheduleMarkers() {
    if (this.charts === null || this._markersPending) return;
    this._markersPending = true;
    requestAnimationFrame(() => {
      this._markersPending = false;
      if (this.charts !== null && !this._destroyed) this.charts.setTick(Math.max(0, this.tick));
    });
  }
  _label() {
    const r = this.replay;
    if (r === null) return;
    this.ui.scrubber.value = String(Math.max(0, this.tick));
    const last = r.ticks - 1;
    const total = r.complete ? `${last}` : `${last}…`;
    this.ui.tickLabel.textContent = this.tick < 0 ? "no ticks" : `tick ${this.tick} / ${total}`;
  }
  /** The sides' statistics and notes, and the forfeit banner, of `view`. */
  _panels(view) {
    this._sides(view);
    this._banner(view);
  }
  _sides(view) {
    this.ui.sides.forEach((el, s) => {
      const { values, charged, note } = sidePanel(this.replay, view, s);
      for (const name of STATS) {
        const cell = this._stats[s][name];
        if (cell.textContent !== values[name]) cell.textContent = values[name];
      }
      const capCell = this._stats[s]["of the cap"];
      const why = charged ? `a tick whose call ends in a ${charged} is charged the whole fuel_per_tick (rules §8.6)` : "";
      if (capCell.title !== why) capCell.title = why;
      capCell.classList.toggle("fv-charged-whole", charged !== null);
      const box = el.querySelector(".fv-note");
      box.hidden = note === null;
      box.textContent = note ?? "";
    });
  }
  _banner({ frame }) {
    const r = this.replay;
    const banner = this.ui.banner;
    const initForfeit = r.complete && r.ticks === 0;
    if (r.complete && (initForfeit || frame !== null && frame === r.forfeitFrame)) {
      const who = [0, 1].filter((s) => r.result.sides[s].forfeit !== null);
      banner.replaceChildren(...who.map((s) => h("div", { class: `fv-side-${s}` }, forfeitText(r, s))));
      banner.hidden = false;
    } else {
      banner.hidden = true;
    }
  }
  /** Stop streaming and playing, and let go of the page's keys. */
  destroy() {
    this._destroyed = true;
    this.pause();
    this._abort.abort();
    if (this._onKey) document.removeEventListener("keydown", this._onKey);
    window.removeEventListener("resize", this._onResize);
    this._roomWatch.disconnect();
    if (this.charts !== null) this.charts.destroy();
    this.element.replaceChildren();
  }
};

export {
  h,
  fixed,
  num,
  mountViewer
};
