// The console: with a console token (kept in this tab's sessionStorage; a link may carry
// it as #token=...), upload a controller, play a quick match between any two and watch it,
// start a tournament and watch its standings fill in, review what is not published (quick
// matches newest first, tournaments, runs) and publish it.

import {
  api, fixed, follow, frame, guarded, h, mountMatchViewer, num, outcomeText, pageHref, pendingCell, savedToken, saveToken, storedAs, table,
  timing, when,
} from "./site.js";
import { fieldPicker } from "./picker.js";
import { workerPicker } from "./workers.js";

// A link with the token in its fragment (arena demo prints one): the fragment never
// reaches a server or a log; it is kept for this tab and taken out of the address.
function tokenFromLink() {
  const fromLink = new URLSearchParams(window.location.hash.slice(1)).get("token");
  if (fromLink) {
    saveToken(fromLink);
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  return fromLink;
}
tokenFromLink();

const main = frame("console");
// Local runs come from the worker dropdown (the server's own, by default).
const GROUPS = [
  ["baseline", "committed opponents"],
  ["upload", "uploaded and pushed"],
  ["file", "files"],
];

let controllers = [];
const WORKERS_EVERY_MS = 5000;
const message = (el, text, ok = true) => {
  el.textContent = text;
  el.classList.toggle("site-ok", ok);
  el.classList.toggle("site-error", !ok);
};

// ---------------------------------------------------------------- token
const tokenInput = h("input", { type: "password", class: "site-token", autocomplete: "off", placeholder: "the server's token", "aria-label": "token" });
const tokenNote = h("span", { class: "site-note", role: "status" });
const tokenForm = h(
  "form",
  { class: "site-form", onsubmit: (e) => { e.preventDefault(); useToken(tokenInput.value.trim()); } },
  h("label", {}, "token ", tokenInput),
  h("button", { type: "submit" }, "use"),
  h("button", { type: "button", onclick: () => { tokenInput.value = ""; useToken(""); } }, "forget"),
  tokenNote,
);

// ---------------------------------------------------------------- controllers
const list = h("div", { class: "site-controllers" });

// ---------------------------------------------------------------- upload
const uploadName = h("input", { type: "text", maxlength: "256", placeholder: "name", "aria-label": "name", required: true });
const uploadFile = h("input", { type: "file", accept: ".wasm,application/wasm", "aria-label": "module", required: true });
const uploadNote = h("span", { class: "site-note", role: "status" });
const uploadForm = h(
  "form",
  { class: "site-form site-upload", onsubmit: (e) => { e.preventDefault(); upload(); } },
  uploadName, uploadFile, h("button", { type: "submit" }, "upload"), uploadNote,
);
uploadFile.addEventListener("change", () => {
  const file = uploadFile.files[0];
  if (file && !uploadName.value) uploadName.value = file.name.replace(/\.wasm$/, "");
});

// ---------------------------------------------------------------- worker
const worker = workerPicker(() => { options(pickA); options(pickB); fieldBoxes(); });

// ---------------------------------------------------------------- quick match
const pickA = h("select", { class: "site-pick-a", "aria-label": "side A" });
const pickB = h("select", { class: "site-pick-b", "aria-label": "side B" });
const seed = h("input", { type: "number", min: "0", max: "4294967295", value: "0", class: "site-seed", "aria-label": "seed" });
const matchNote = h("p", { class: "site-note site-match-status", role: "status" });
const matchViewer = h("div", { class: "site-viewer" });
const matchForm = h(
  "form",
  { class: "site-form", onsubmit: (e) => { e.preventDefault(); quickMatch(); } },
  h("label", {}, "A ", pickA), h("label", {}, "B ", pickB), h("label", {}, "seed ", seed),
  h("button", { type: "submit" }, "play"),
);

// ---------------------------------------------------------------- tournament
const format = h(
  "select",
  { "aria-label": "format" },
  ["round-robin", "bracket", "swiss", "gauntlet"].map((f) => h("option", { value: f }, f)),
);
// The server reads the seeds as typed (arena.parse_seeds) and names what it refuses.
const SEEDS_HINT = "e.g. 0 1 2, 0,1,2 or 0-15: at most 16 seeds, each 0..4294967295";
const seeds = h("input", {
  type: "text",
  value: "0",
  class: "site-seeds",
  "aria-label": "seeds",
  "aria-describedby": "seeds-hint",
  placeholder: "0-15",
  title: SEEDS_HINT,
});
const FIELD_LEGEND = "field (2 to 256 entrants, the server's limit; 48 controllers a page)";
const field = fieldPicker(FIELD_LEGEND);
const tournamentNote = h("p", { class: "site-note", role: "status" });
const tournamentBox = h("div", { class: "site-live-standings" });
const tournamentForm = h(
  "form",
  { class: "site-form site-tournament", onsubmit: (e) => { e.preventDefault(); startTournament(); } },
  h("label", {}, "format ", format), h("label", {}, "seeds ", seeds), h("button", { type: "submit" }, "start"),
  h("small", { id: "seeds-hint", class: "site-hint" }, `seeds: ${SEEDS_HINT}`),
);

// ---------------------------------------------------------------- review and publish
const reviewNote = h("p", { class: "site-note site-review-status", role: "status" });
const quickBox = h("div", { class: "site-quick-matches" });
const tournamentsBox = h("div", { class: "site-tournaments" });
const runsBox = h("div", { class: "site-runs" });
const fieldsBox = h("div", { class: "site-fields" });

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
      },
    },
    "publish",
  );
}

async function review() {
  const [quick, tournaments, runs, fields] = await Promise.all([
    api("/api/matches?kind=quick&limit=50", { token: savedToken() }),
    api("/api/tournaments?limit=50", { token: savedToken() }),
    api("/api/runs?limit=50", { token: savedToken() }),
    api("/api/field", { token: savedToken() }),
  ]);
  // The fields are public; their console pages withdraw an entrant.
  fieldsBox.replaceChildren(
    table(
      [
        { title: "case", cell: (f) => h("a", { href: `/console/field/${encodeURIComponent(f.case.slug)}/${f.case.version}` }, `${f.case.slug}/${f.case.version}`), class: "site-wide" },
        { title: "entrants", cell: (f) => String(f.entrants), class: "site-num" },
        { title: "matches", cell: (f) => `${f.matches.played} / ${f.matches.total}`, class: "site-num" },
      ],
      fields.fields,
      { empty: "No field yet: a pushed run that can compete makes its case's." },
    ),
  );
  quickBox.replaceChildren(
    table(
      [
        { title: "#", cell: (m) => h("a", { href: pageHref("matches", m.id) }, `#${m.id}`) },
        { title: "A", cell: (m) => h("span", { class: "fv-side-0" }, m.sides[0].name) },
        { title: "B", cell: (m) => h("span", { class: "fv-side-1" }, m.sides[1].name) },
        { title: "outcome", cell: (m) => outcomeText(m), class: "site-wide" },
        { title: "when", cell: (m) => when(m.created_at) },
        { title: "", cell: (m) => (m.status === "finished" ? publishedCell(m, `/api/matches/${m.id}/publish`) : "") },
      ],
      quick,
      { empty: "No quick match kept.", rowClass: (m) => `site-row-${m.id}` },
    ),
  );
  tournamentsBox.replaceChildren(
    table(
      [
        { title: "#", cell: (t) => h("a", { href: pageHref("tournaments", t.id) }, `#${t.id}`) },
        { title: "format", cell: (t) => t.format },
        { title: "field", cell: (t) => t.field.map((e) => e.name).join(", "), class: "site-wide" },
        { title: "status", cell: (t) => t.status },
        { title: "", cell: (t) => publishedCell(t, `/api/tournaments/${t.id}/publish`) },
      ],
      tournaments,
      { empty: "No tournament yet.", rowClass: (t) => `site-row-${t.id}` },
    ),
  );
  runsBox.replaceChildren(
    table(
      [
        { title: "#", cell: (r) => h("a", { href: pageHref("runs", r.run) }, `#${r.run}`) },
        { title: "controller", cell: (r) => r.controller.name, class: "site-wide" },
        { title: "outcome", cell: (r) => r.outcome },
        { title: "", cell: (r) => (r.published ? h("span", { class: "site-badge site-published" }, "published") : h("span", { class: "site-badge" }, "local: push it to publish")) },
      ],
      runs,
      { empty: "No run yet." },
    ),
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
    fieldsBox,
  ),
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
      }),
    ].filter(Boolean),
  );
  const choosable = [...select.options].some((o) => o.value === keep && !o.disabled);
  if (keep && choosable) select.value = keep;
  else if (select.selectedOptions[0]?.disabled) select.value = [...select.options].find((o) => !o.disabled)?.value ?? "";
}

// The field picker's entries: the chosen worker's local runs first, then what is stored.
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
          cell: (c) =>
            h(
              "span",
              { class: "site-name" },
              c.name,
              c.also && c.also.length ? h("span", { class: "site-also", title: "the same module, also run under" }, ` (also: ${c.also.join(", ")})`) : "",
            ),
          class: "site-wide",
        },
        // A worker's local run fetched to be played: held for review, never published.
        { title: "origin", cell: (c) => (c.held_by ? h("span", { class: "site-held", title: "held for review: never published; deleted with its last quick match" }, `held from ${c.held_by}`) : c.origin) },
        { title: "", cell: (c) => (c.hidden ? h("span", { class: "site-badge" }, "hidden") : "") },
        { title: "sha256", cell: (c) => h("span", { class: "site-sha", title: c.sha256 }, `${c.sha256.slice(0, 12)}…`) },
        { title: "bytes", cell: (c) => num(c.size), class: "site-num" },
      ],
      controllers,
    ),
  );
  await worker.refresh(true); // fills the selects and the field, the chosen worker's runs first
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
      token: savedToken(),
    });
    await refresh();
    pickA.value = record.sha256;
    message(uploadNote, `stored ${record.name} (sha256 ${record.sha256.slice(0, 12)}…)`);
  } catch (err) {
    message(uploadNote, err.message, false);
  }
}

let viewer = null;
async function quickMatch() {
  if (viewer !== null) viewer.destroy();
  viewer = null;
  matchViewer.replaceChildren();
  message(matchNote, "sending…");
  try {
    const match = await api("/api/matches", {
      method: "POST",
      body: { a: pickA.value, b: pickB.value, seed: Number(seed.value), ...worker.body() },
      token: savedToken(),
    });
    const show = (m) => {
      matchNote.replaceChildren(h("a", { href: pageHref("matches", m.id) }, `match #${m.id}`), `: ${m.status === "error" ? `not played: ${m.error}` : outcomeText(m)}`);
      matchNote.classList.toggle("site-error", m.status === "error");
      matchNote.classList.toggle("site-ok", m.status !== "error");
      matchNote.dataset.status = m.status;
      if (m.status === "finished" && viewer === null) viewer = mountMatchViewer(matchViewer, m.id, { keepAddress: false, storedAs: storedAs(m) });
      // Settled: the review list gains it, and the controllers a held module it played.
      if (m.status !== "pending") Promise.all([review(), refresh()]).catch(() => {});
    };
    show(match);
    follow(`/api/matches/${match.id}/events`, "match", show, (m) => m.status !== "pending");
  } catch (err) {
    message(matchNote, err.message, false);
  }
}

/** Leave an entrant of a finished tournament out of its standings, or count it again. */
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
    { class: "site-form site-exclusion", onsubmit: (e) => { e.preventDefault(); send("exclusions", { name: who.value, reason: reason.value }); } },
    h("label", {}, "exclude ", who),
    h("label", {}, "because ", reason),
    h("button", { type: "submit" }, "exclude"),
    h("button", { type: "button", disabled: excluded.size === 0, onclick: () => send("inclusions", { name: who.value }) }, "count again"),
    note,
  );
}

async function startTournament() {
  const chosen = field.chosen();
  message(tournamentNote, "starting…");
  try {
    const t = await api("/api/tournaments", {
      method: "POST",
      body: { format: format.value, field: chosen, seeds: seeds.value, ...worker.body() },
      token: savedToken(),
    });
    const show = (x) => {
      tournamentNote.replaceChildren(
        h("a", { href: pageHref("tournaments", x.id) }, `tournament #${x.id}`),
        `: ${x.status}, ${x.planned ? `${x.matches} of ${x.planned}` : x.matches} matches; ${timing(x)}`,
      );
      tournamentNote.classList.toggle("site-error", x.status === "failed");
      tournamentNote.classList.toggle("site-ok", x.status !== "failed");
      tournamentNote.dataset.status = x.status;
      // Settled: the review list gains it (its publish button).
      if (x.status !== "running") review().catch(() => {});
      tournamentBox.replaceChildren(
        table(
          [
            { title: "rank", cell: (r) => String(r.rank), class: "site-num" },
            { title: "name", cell: (r) => h("span", { class: "site-name" }, r.name), class: "site-wide" },
            { title: "played", cell: (r) => String(r.matches), class: "site-num" },
            ...(x.status === "running" ? [{ title: "pending", cell: pendingCell, class: "site-num" }] : []),
            { title: "wins", cell: (r) => String(r.wins), class: "site-num" },
            { title: "losses", cell: (r) => String(r.losses), class: "site-num" },
            { title: "draws", cell: (r) => String(r.draws), class: "site-num" },
            { title: "mu", cell: (r) => fixed(r.rating?.mu), class: "site-num" },
            { title: "sigma", cell: (r) => fixed(r.rating?.sigma), class: "site-num" },
          ],
          x.standings || [],
          { empty: "waiting for the first result…" },
        ),
        ...(x.excluded || []).map((e) => h("p", { class: "site-note site-excluded" }, `excluded: ${e.name} (${e.reason})`)),
        x.status === "running" ? "" : exclusionForm(x, show),
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
  // The console's link followed in a tab already here: only the fragment changes.
  window.addEventListener("hashchange", () => {
    const token = tokenFromLink();
    if (token) useToken(token).catch(() => {});
  });
  // Workers come and go: their list is read again, so a gone worker's runs turn unselectable.
  setInterval(() => { if (savedToken()) worker.refresh().catch(() => {}); }, WORKERS_EVERY_MS);
});
