// The console's worker dropdown: whose local runs the quick match and the tournament can use.
// The first entry is the server's own data directory (named after its host); then the
// connected workers, then the ones gone, whose runs are listed but cannot be chosen (the
// reason beside them). A chosen worker's run is sent by its sha256 with `worker` in the body:
// the site fetches its module from that worker then.

import { api, h, savedToken } from "./site.js";

export function workerPicker(onChange) {
  const select = h("select", { class: "site-worker", "aria-label": "worker" });
  const note = h("span", { class: "site-note site-worker-note", role: "status" });
  const state = { name: "", own: true, runs: [], reason: null };
  let workers = [];
  let shown = null; // what the selects show now: they are drawn again only when it changes
  // Reads may overlap (the periodic one, one after a quick match): only the newest answer
  // of each kind is drawn, so an older one (a worker still connected) never undoes a newer
  // (gone). The list of workers and a worker's runs are counted apart: reading the runs
  // does not make a list read still under way stale.
  let askedWorkers = 0;
  let askedRuns = 0;

  async function loadRuns() {
    const name = select.value;
    const mine = ++askedRuns;
    if (!name) {
      Object.assign(state, { name: "", own: true, runs: [], reason: null });
    } else {
      const listing = await api(`/api/workers/${encodeURIComponent(name)}/runs`, { token: savedToken() });
      if (mine !== askedRuns) return;
      const entry = workers.find((w) => w.name === name);
      Object.assign(state, { name, own: !!(entry && entry.own), runs: listing.runs, reason: listing.reason });
    }
    note.textContent = state.reason ? state.reason : `${state.runs.length} local run${state.runs.length === 1 ? "" : "s"}`;
    note.classList.toggle("site-error", !!state.reason);
    select.dataset.state = state.reason ? "gone" : "connected";
    const now = JSON.stringify(state);
    if (now !== shown) {
      shown = now;
      onChange();
    }
  }

  // `redraw`: the controllers changed, so the selects are drawn again whatever the worker.
  async function refresh(redraw = false) {
    if (redraw) shown = null;
    const keep = select.value;
    const mine = ++askedWorkers;
    let answered;
    try {
      answered = savedToken() ? await api("/api/workers", { token: savedToken() }) : [];
    } catch {
      answered = [];
    }
    if (mine !== askedWorkers) return; // a newer read draws its own answer
    workers = answered;
    const listed = JSON.stringify(workers.map((w) => [w.name, w.own, w.connected, w.reason]));
    if (listed !== select.dataset.listed) select.replaceChildren(
      ...workers.map((w) => h(
        "option",
        { value: w.name, title: w.reason || "" },
        w.own ? `${w.name} (this server)` : w.connected ? w.name : `${w.name} (gone)`,
      )),
    );
    select.dataset.listed = listed;
    if (keep && workers.some((w) => w.name === keep)) select.value = keep;
    await loadRuns();
  }

  select.addEventListener("change", () => { loadRuns().catch((err) => { note.textContent = err.message; }); });

  // The runs as options of a select: disabled (with the reason) when the worker is gone.
  function optgroup() {
    if (!state.runs.length) return null;
    const title = state.own ? "local runs" : `local runs of ${state.name}`;
    return h(
      "optgroup",
      { label: title },
      state.runs.map((r) => h(
        "option",
        { value: r.sha256, disabled: !r.selectable, title: r.selectable ? `run ${r.run} · ${r.outcome}` : state.reason },
        `${r.controller} (run ${r.run})`,
      )),
    );
  }

  // The runs as entries of the tournament's field picker, alike: disabled with the reason.
  function fieldItems() {
    return state.runs.map((r) => ({
      value: r.sha256,
      label: `${r.controller} (run ${r.run}${state.own ? "" : ` on ${state.name}`})`,
      disabled: !r.selectable,
      title: r.selectable ? "" : state.reason,
    }));
  }

  // What a request adds: the worker, unless it is the server's own (its runs are stored).
  function body() {
    return state.name && !state.own ? { worker: state.name } : {};
  }

  return { element: h("label", {}, "worker ", select, " ", note), refresh, optgroup, fieldItems, body, state };
}
