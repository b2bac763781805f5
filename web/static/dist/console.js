import {
  api,
  follow,
  frame,
  guarded,
  mountMatchViewer,
  outcomeText,
  pageHref,
  pendingCell,
  saveToken,
  savedToken,
  storedAs,
  table,
  timing,
  when
} from "./chunk-XY62RV2V.js";
import {
  fixed,
  h,
  num
} from "./chunk-TWAYYOF3.js";
import "./chunk-O2PYIN3Y.js";

// static/picker.js
var FIELD_PAGE = 48;
function fieldPicker(legend) {
  let items = [];
  const picked = /* @__PURE__ */ new Set();
  let page = 0;
  const filter = h("input", {
    type: "search",
    class: "site-field-filter",
    "aria-label": "filter the field's controllers",
    placeholder: "filter by name",
    oninput: () => {
      page = 0;
      draw();
    }
  });
  const count = h("span", { class: "site-note site-field-count", role: "status" });
  const pager = h("span", { class: "site-pager site-field-pager" });
  const boxes = h("div", { class: "site-field-boxes" });
  const element = h(
    "fieldset",
    { class: "site-field" },
    h("legend", {}, legend),
    h("div", { class: "site-field-tools" }, filter, " ", count, " ", pager),
    boxes
  );
  const matching = () => {
    const needle = filter.value.trim().toLowerCase();
    return needle ? items.filter((i) => i.label.toLowerCase().includes(needle)) : items;
  };
  function counted(shown) {
    const of = filter.value.trim() ? `; ${shown} of ${items.length} match the filter` : ` of ${items.length}`;
    count.textContent = `${picked.size} chosen${of}`;
  }
  function draw() {
    const shown = matching();
    const pages = Math.max(1, Math.ceil(shown.length / FIELD_PAGE));
    page = Math.min(page, pages - 1);
    const turn = (by) => () => {
      page += by;
      draw();
    };
    pager.replaceChildren(
      ...pages > 1 ? [
        h("button", { type: "button", class: "site-field-previous", disabled: page === 0, onclick: turn(-1) }, "previous"),
        h("span", { class: "site-field-page" }, ` page ${page + 1} of ${pages} `),
        h("button", { type: "button", class: "site-field-next", disabled: page === pages - 1, onclick: turn(1) }, "next")
      ] : []
    );
    const box = (i) => h("input", {
      type: "checkbox",
      value: i.value,
      disabled: i.disabled,
      checked: picked.has(i.value),
      onchange: (e) => {
        if (e.target.checked) picked.add(i.value);
        else picked.delete(i.value);
        for (const other of boxes.querySelectorAll("input")) if (other.value === i.value) other.checked = e.target.checked;
        counted(shown.length);
      }
    });
    boxes.replaceChildren(
      ...shown.slice(page * FIELD_PAGE, (page + 1) * FIELD_PAGE).map((i) => h("label", { class: "site-check", title: i.title || null }, box(i), ` ${i.label}`))
    );
    if (!shown.length) boxes.append(h("span", { class: "site-note" }, items.length ? "no controller's name has that in it" : "no controller yet"));
    counted(shown.length);
  }
  function set(next) {
    items = next;
    const open = new Set(items.filter((i) => !i.disabled).map((i) => i.value));
    for (const value of [...picked]) if (!open.has(value)) picked.delete(value);
    draw();
  }
  function chosen() {
    const seen = /* @__PURE__ */ new Set();
    return items.map((i) => i.value).filter((v) => picked.has(v) && !seen.has(v) && seen.add(v));
  }
  return { element, set, chosen };
}

// static/workers.js
function workerPicker(onChange) {
  const select = h("select", { class: "site-worker", "aria-label": "worker" });
  const note = h("span", { class: "site-note site-worker-note", role: "status" });
  const state = { name: "", own: true, runs: [], reason: null };
  let workers = [];
  let shown = null;
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
  async function refresh2(redraw = false) {
    if (redraw) shown = null;
    const keep = select.value;
    const mine = ++askedWorkers;
    let answered;
    try {
      answered = savedToken() ? await api("/api/workers", { token: savedToken() }) : [];
    } catch {
      answered = [];
    }
    if (mine !== askedWorkers) return;
    workers = answered;
    const listed = JSON.stringify(workers.map((w) => [w.name, w.own, w.connected, w.reason]));
    if (listed !== select.dataset.listed) select.replaceChildren(
      ...workers.map((w) => h(
        "option",
        { value: w.name, title: w.reason || "" },
        w.own ? `${w.name} (this server)` : w.connected ? w.name : `${w.name} (gone)`
      ))
    );
    select.dataset.listed = listed;
    if (keep && workers.some((w) => w.name === keep)) select.value = keep;
    await loadRuns();
  }
  select.addEventListener("change", () => {
    loadRuns().catch((err) => {
      note.textContent = err.message;
    });
  });
  function optgroup() {
    if (!state.runs.length) return null;
    const title = state.own ? "local runs" : `local runs of ${state.name}`;
    return h(
      "optgroup",
      { label: title },
      state.runs.map((r) => h(
        "option",
        { value: r.sha256, disabled: !r.selectable, title: r.selectable ? `run ${r.run} · ${r.outcome}` : state.reason },
        `${r.controller} (run ${r.run})`
      ))
    );
  }
  function fieldItems() {
    return state.runs.map((r) => ({
      value: r.sha256,
      label: `${r.controller} (run ${r.run}${state.own ? "" : ` on ${state.name}`})`,
      disabled: !r.selectable,
      title: r.selectable ? "" : state.reason
    }));
  }
  function body() {
    return state.name && !state.own ? { worker: state.name } : {};
  }
  return { element: h("label", {}, "worker ", select, " ", note), refresh: refresh2, optgroup, fieldItems, body, state };
}

// static/console.js
function tokenFromLink() {
  const fromLink = new URLSearchParams(window.location.hash.slice(1)).get("token");
  if (fromLink) {
    saveToken(fromLink);
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  return fromLink;
}
tokenFromLink();
var main = frame("console");
var GROUPS = [
  ["baseline", "committed opponents"],
  ["upload", "uploaded and pushed"],
  ["file", "files"]
];
var controllers = [];
var WORKERS_EVERY_MS = 5e3;
var message = (el, text, ok = true) => {
  el.textContent = text;
  el.classList.toggle("site-ok", ok);
  el.classList.toggle("site-error", !ok);
};
var tokenInput = h("input", { type: "password", class: "site-token", autocomplete: "off", placeholder: "the server's token", "aria-label": "token" });
var tokenNote = h("span", { class: "site-note", role: "status" });
var tokenForm = h(
  "form",
  { class: "site-form", onsubmit: (e) => {
    e.preventDefault();
    useToken(tokenInput.value.trim());
  } },
  h("label", {}, "token ", tokenInput),
  h("button", { type: "submit" }, "use"),
  h("button", { type: "button", onclick: () => {
    tokenInput.value = "";
    useToken("");
  } }, "forget"),
  tokenNote
);
var list = h("div", { class: "site-controllers" });
var uploadName = h("input", { type: "text", maxlength: "256", placeholder: "name", "aria-label": "name", required: true });
var uploadFile = h("input", { type: "file", accept: ".wasm,application/wasm", "aria-label": "module", required: true });
var uploadNote = h("span", { class: "site-note", role: "status" });
var uploadForm = h(
  "form",
  { class: "site-form site-upload", onsubmit: (e) => {
    e.preventDefault();
    upload();
  } },
  uploadName,
  uploadFile,
  h("button", { type: "submit" }, "upload"),
  uploadNote
);
uploadFile.addEventListener("change", () => {
  const file = uploadFile.files[0];
  if (file && !uploadName.value) uploadName.value = file.name.replace(/\.wasm$/, "");
});
var worker = workerPicker(() => {
  options(pickA);
  options(pickB);
  fieldBoxes();
});
var pickA = h("select", { class: "site-pick-a", "aria-label": "side A" });
var pickB = h("select", { class: "site-pick-b", "aria-label": "side B" });
var seed = h("input", { type: "number", min: "0", max: "4294967295", value: "0", class: "site-seed", "aria-label": "seed" });
var matchNote = h("p", { class: "site-note site-match-status", role: "status" });
var matchViewer = h("div", { class: "site-viewer" });
var matchForm = h(
  "form",
  { class: "site-form", onsubmit: (e) => {
    e.preventDefault();
    quickMatch();
  } },
  h("label", {}, "A ", pickA),
  h("label", {}, "B ", pickB),
  h("label", {}, "seed ", seed),
  h("button", { type: "submit" }, "play")
);
var format = h(
  "select",
  { "aria-label": "format" },
  ["round-robin", "bracket", "swiss", "gauntlet"].map((f) => h("option", { value: f }, f))
);
var SEEDS_HINT = "e.g. 0 1 2, 0,1,2 or 0-15: at most 16 seeds, each 0..4294967295";
var seeds = h("input", {
  type: "text",
  value: "0",
  class: "site-seeds",
  "aria-label": "seeds",
  "aria-describedby": "seeds-hint",
  placeholder: "0-15",
  title: SEEDS_HINT
});
var FIELD_LEGEND = "field (2 to 256 entrants, the server's limit; 48 controllers a page)";
var field = fieldPicker(FIELD_LEGEND);
var tournamentNote = h("p", { class: "site-note", role: "status" });
var tournamentBox = h("div", { class: "site-live-standings" });
var tournamentForm = h(
  "form",
  { class: "site-form site-tournament", onsubmit: (e) => {
    e.preventDefault();
    startTournament();
  } },
  h("label", {}, "format ", format),
  h("label", {}, "seeds ", seeds),
  h("button", { type: "submit" }, "start"),
  h("small", { id: "seeds-hint", class: "site-hint" }, `seeds: ${SEEDS_HINT}`)
);
var reviewNote = h("p", { class: "site-note site-review-status", role: "status" });
var quickBox = h("div", { class: "site-quick-matches" });
var tournamentsBox = h("div", { class: "site-tournaments" });
var runsBox = h("div", { class: "site-runs" });
var fieldsBox = h("div", { class: "site-fields" });
function publishedCell(record, url) {
  if (record.published) return h("span", { class: "site-badge site-published" }, "published");
  return h(
    "button",
    {
      type: "button",
      class: "site-publish",
      onclick: async () => {
        try {
          await api(url, { method: "POST", token: savedToken() });
          message(reviewNote, `published: ${url.replace(/^\/api\//, "").replace(/\/publish$/, "")}`);
          await review();
        } catch (err) {
          message(reviewNote, err.message, false);
        }
      }
    },
    "publish"
  );
}
async function review() {
  const [quick, tournaments, runs, fields] = await Promise.all([
    api("/api/matches?kind=quick&limit=50", { token: savedToken() }),
    api("/api/tournaments?limit=50", { token: savedToken() }),
    api("/api/runs?limit=50", { token: savedToken() }),
    api("/api/field", { token: savedToken() })
  ]);
  fieldsBox.replaceChildren(
    table(
      [
        { title: "case", cell: (f) => h("a", { href: `/console/field/${encodeURIComponent(f.case.slug)}/${f.case.version}` }, `${f.case.slug}/${f.case.version}`), class: "site-wide" },
        { title: "entrants", cell: (f) => String(f.entrants), class: "site-num" },
        { title: "matches", cell: (f) => `${f.matches.played} / ${f.matches.total}`, class: "site-num" }
      ],
      fields.fields,
      { empty: "No field yet: a pushed run that can compete makes its case's." }
    )
  );
  quickBox.replaceChildren(
    table(
      [
        { title: "#", cell: (m) => h("a", { href: pageHref("matches", m.id) }, `#${m.id}`) },
        { title: "A", cell: (m) => h("span", { class: "fv-side-0" }, m.sides[0].name) },
        { title: "B", cell: (m) => h("span", { class: "fv-side-1" }, m.sides[1].name) },
        { title: "outcome", cell: (m) => outcomeText(m), class: "site-wide" },
        { title: "when", cell: (m) => when(m.created_at) },
        { title: "", cell: (m) => m.status === "finished" ? publishedCell(m, `/api/matches/${m.id}/publish`) : "" }
      ],
      quick,
      { empty: "No quick match kept.", rowClass: (m) => `site-row-${m.id}` }
    )
  );
  tournamentsBox.replaceChildren(
    table(
      [
        { title: "#", cell: (t) => h("a", { href: pageHref("tournaments", t.id) }, `#${t.id}`) },
        { title: "format", cell: (t) => t.format },
        { title: "field", cell: (t) => t.field.map((e) => e.name).join(", "), class: "site-wide" },
        { title: "status", cell: (t) => t.status },
        { title: "", cell: (t) => publishedCell(t, `/api/tournaments/${t.id}/publish`) }
      ],
      tournaments,
      { empty: "No tournament yet.", rowClass: (t) => `site-row-${t.id}` }
    )
  );
  runsBox.replaceChildren(
    table(
      [
        { title: "#", cell: (r) => h("a", { href: pageHref("runs", r.run) }, `#${r.run}`) },
        { title: "controller", cell: (r) => r.controller.name, class: "site-wide" },
        { title: "outcome", cell: (r) => r.outcome },
        { title: "", cell: (r) => r.published ? h("span", { class: "site-badge site-published" }, "published") : h("span", { class: "site-badge" }, "local: push it to publish") }
      ],
      runs,
      { empty: "No run yet." }
    )
  );
}
main.append(
  h("h1", {}, "Console"),
  h("section", { class: "site-section" }, h("h2", {}, "Token"), tokenForm),
  h("section", { class: "site-section" }, h("h2", {}, "Upload a controller"), uploadForm),
  h("section", { class: "site-section" }, h("h2", {}, "Controllers"), list),
  h("section", { class: "site-section" }, h("h2", {}, "Local runs"), worker.element),
  h("section", { class: "site-section" }, h("h2", {}, "Quick match"), matchForm, matchNote, matchViewer),
  h("section", { class: "site-section" }, h("h2", {}, "Tournament"), tournamentForm, field.element, tournamentNote, tournamentBox),
  h(
    "section",
    { class: "site-section site-review" },
    h("h2", {}, "Review and publish"),
    reviewNote,
    h("h3", {}, "Quick matches, newest first"),
    quickBox,
    h("h3", {}, "Tournaments"),
    tournamentsBox,
    h("h3", {}, "Proof runs"),
    runsBox,
    h("h3", {}, "Fields (public: every pushed run that can compete enters its case's)"),
    fieldsBox
  )
);
function label(c) {
  const also = c.also && c.also.length ? ` (also ${c.also.join(", ")})` : "";
  return c.hidden ? `${c.name}${also} (hidden)` : `${c.name}${also}`;
}
function options(select) {
  const keep = select.value;
  select.replaceChildren(
    ...[
      worker.optgroup(),
      ...GROUPS.map(([origin, title]) => {
        const mine = controllers.filter((c) => c.origin === origin);
        return mine.length ? h("optgroup", { label: title }, mine.map((c) => h("option", { value: c.sha256 }, label(c)))) : null;
      })
    ].filter(Boolean)
  );
  const choosable = [...select.options].some((o) => o.value === keep && !o.disabled);
  if (keep && choosable) select.value = keep;
  else if (select.selectedOptions[0]?.disabled) select.value = [...select.options].find((o) => !o.disabled)?.value ?? "";
}
function fieldBoxes() {
  const stored = controllers.filter((c) => c.origin !== "run");
  field.set([...worker.fieldItems(), ...stored.map((c) => ({ value: c.sha256, label: label(c), disabled: false, title: "" }))]);
}
async function refresh() {
  controllers = await api("/api/controllers", { token: savedToken() });
  list.replaceChildren(
    table(
      [
        {
          title: "name",
          // The first name it was stored under, and the others it ran under (a pushed run's).
          cell: (c) => h(
            "span",
            { class: "site-name" },
            c.name,
            c.also && c.also.length ? h("span", { class: "site-also", title: "the same module, also run under" }, ` (also: ${c.also.join(", ")})`) : ""
          ),
          class: "site-wide"
        },
        // A worker's local run fetched to be played: held for review, never published.
        { title: "origin", cell: (c) => c.held_by ? h("span", { class: "site-held", title: "held for review: never published; deleted with its last quick match" }, `held from ${c.held_by}`) : c.origin },
        { title: "", cell: (c) => c.hidden ? h("span", { class: "site-badge" }, "hidden") : "" },
        { title: "sha256", cell: (c) => h("span", { class: "site-sha", title: c.sha256 }, `${c.sha256.slice(0, 12)}…`) },
        { title: "bytes", cell: (c) => num(c.size), class: "site-num" }
      ],
      controllers
    )
  );
  await worker.refresh(true);
  if (!pickB.value || pickB.value === pickA.value) {
    const other = [...pickB.options].find((o) => !o.disabled && o.value !== pickA.value);
    if (other) pickB.value = other.value;
  }
}
async function useToken(token) {
  saveToken(token);
  tokenInput.value = token;
  try {
    await refresh();
    if (token) await review();
    message(tokenNote, token ? "token accepted" : "no token: the console shows only what is published, and nothing can be written", !!token);
  } catch (err) {
    saveToken("");
    message(tokenNote, err.message, false);
    await refresh();
  }
}
async function upload() {
  const file = uploadFile.files[0];
  if (!file) return;
  message(uploadNote, "checking…");
  try {
    const record = await api(`/api/controllers?name=${encodeURIComponent(uploadName.value)}`, {
      method: "POST",
      body: file,
      token: savedToken()
    });
    await refresh();
    pickA.value = record.sha256;
    message(uploadNote, `stored ${record.name} (sha256 ${record.sha256.slice(0, 12)}…)`);
  } catch (err) {
    message(uploadNote, err.message, false);
  }
}
var viewer = null;
async function quickMatch() {
  if (viewer !== null) viewer.destroy();
  viewer = null;
  matchViewer.replaceChildren();
  message(matchNote, "sending…");
  try {
    const match = await api("/api/matches", {
      method: "POST",
      body: { a: pickA.value, b: pickB.value, seed: Number(seed.value), ...worker.body() },
      token: savedToken()
    });
    const show = (m) => {
      matchNote.replaceChildren(h("a", { href: pageHref("matches", m.id) }, `match #${m.id}`), `: ${m.status === "error" ? `not played: ${m.error}` : outcomeText(m)}`);
      matchNote.classList.toggle("site-error", m.status === "error");
      matchNote.classList.toggle("site-ok", m.status !== "error");
      matchNote.dataset.status = m.status;
      if (m.status === "finished" && viewer === null) viewer = mountMatchViewer(matchViewer, m.id, { keepAddress: false, storedAs: storedAs(m) });
      if (m.status !== "pending") Promise.all([review(), refresh()]).catch(() => {
      });
    };
    show(match);
    follow(`/api/matches/${match.id}/events`, "match", show, (m) => m.status !== "pending");
  } catch (err) {
    message(matchNote, err.message, false);
  }
}
function exclusionForm(t, show) {
  const excluded = new Set((t.excluded || []).map((e) => e.name));
  const who = h("select", { "aria-label": "entrant", class: "site-exclude-name" }, t.field.map((e) => h("option", { value: e.name }, e.name)));
  const reason = h("input", { type: "text", class: "site-exclude-reason", "aria-label": "reason", placeholder: "the reason (recorded)" });
  const note = h("span", { class: "site-note", role: "status" });
  const send = async (path, body) => {
    try {
      show(await api(`/api/tournaments/${t.id}/${path}`, { method: "POST", body, token: savedToken() }));
    } catch (err) {
      message(note, err.message, false);
    }
  };
  return h(
    "form",
    { class: "site-form site-exclusion", onsubmit: (e) => {
      e.preventDefault();
      send("exclusions", { name: who.value, reason: reason.value });
    } },
    h("label", {}, "exclude ", who),
    h("label", {}, "because ", reason),
    h("button", { type: "submit" }, "exclude"),
    h("button", { type: "button", disabled: excluded.size === 0, onclick: () => send("inclusions", { name: who.value }) }, "count again"),
    note
  );
}
async function startTournament() {
  const chosen = field.chosen();
  message(tournamentNote, "starting…");
  try {
    const t = await api("/api/tournaments", {
      method: "POST",
      body: { format: format.value, field: chosen, seeds: seeds.value, ...worker.body() },
      token: savedToken()
    });
    const show = (x) => {
      tournamentNote.replaceChildren(
        h("a", { href: pageHref("tournaments", x.id) }, `tournament #${x.id}`),
        `: ${x.status}, ${x.planned ? `${x.matches} of ${x.planned}` : x.matches} matches; ${timing(x)}`
      );
      tournamentNote.classList.toggle("site-error", x.status === "failed");
      tournamentNote.classList.toggle("site-ok", x.status !== "failed");
      tournamentNote.dataset.status = x.status;
      if (x.status !== "running") review().catch(() => {
      });
      tournamentBox.replaceChildren(
        table(
          [
            { title: "rank", cell: (r) => String(r.rank), class: "site-num" },
            { title: "name", cell: (r) => h("span", { class: "site-name" }, r.name), class: "site-wide" },
            { title: "played", cell: (r) => String(r.matches), class: "site-num" },
            ...x.status === "running" ? [{ title: "pending", cell: pendingCell, class: "site-num" }] : [],
            { title: "wins", cell: (r) => String(r.wins), class: "site-num" },
            { title: "losses", cell: (r) => String(r.losses), class: "site-num" },
            { title: "draws", cell: (r) => String(r.draws), class: "site-num" },
            { title: "mu", cell: (r) => fixed(r.rating?.mu), class: "site-num" },
            { title: "sigma", cell: (r) => fixed(r.rating?.sigma), class: "site-num" }
          ],
          x.standings || [],
          { empty: "waiting for the first result…" }
        ),
        ...(x.excluded || []).map((e) => h("p", { class: "site-note site-excluded" }, `excluded: ${e.name} (${e.reason})`)),
        x.status === "running" ? "" : exclusionForm(x, show)
      );
    };
    show(t);
    follow(`/api/tournaments/${t.id}/events`, "tournament", show, (x) => x.status !== "running");
  } catch (err) {
    message(tournamentNote, err.message, false);
  }
}
guarded(main, async () => {
  tokenInput.value = savedToken();
  await useToken(savedToken());
  main.dataset.state = "ready";
  window.addEventListener("hashchange", () => {
    const token = tokenFromLink();
    if (token) useToken(token).catch(() => {
    });
  });
  setInterval(() => {
    if (savedToken()) worker.refresh().catch(() => {
    });
  }, WORKERS_EVERY_MS);
});
