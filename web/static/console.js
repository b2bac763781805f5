// The console: with the server's token (kept in this tab's sessionStorage), upload a
// controller, play a quick match between any two and watch it, start a tournament and
// watch its standings fill in.

import {
  api, follow, frame, guarded, h, mountMatchViewer, num, outcomeText, pendingCell, rankCell, savedToken, saveToken, table,
  timing,
} from "./site.js";

const main = frame("console");
const GROUPS = [
  ["baseline", "committed opponents"],
  ["run", "local runs"],
  ["upload", "uploaded and pushed"],
  ["file", "files"],
];

let controllers = [];
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
const FIELD_LEGEND = "field (2 to 256 entrants, the server's limit)";
const field = h("fieldset", { class: "site-field" }, h("legend", {}, FIELD_LEGEND));
const tournamentNote = h("p", { class: "site-note", role: "status" });
const tournamentBox = h("div", { class: "site-live-standings" });
const tournamentForm = h(
  "form",
  { class: "site-form site-tournament", onsubmit: (e) => { e.preventDefault(); startTournament(); } },
  h("label", {}, "format ", format), h("label", {}, "seeds ", seeds), h("button", { type: "submit" }, "start"),
  h("small", { id: "seeds-hint", class: "site-hint" }, `seeds: ${SEEDS_HINT}`),
);

main.append(
  h("h1", {}, "Console"),
  h("section", { class: "site-section" }, h("h2", {}, "Token"), tokenForm),
  h("section", { class: "site-section" }, h("h2", {}, "Upload a controller"), uploadForm),
  h("section", { class: "site-section" }, h("h2", {}, "Controllers"), list),
  h("section", { class: "site-section" }, h("h2", {}, "Quick match"), matchForm, matchNote, matchViewer),
  h("section", { class: "site-section" }, h("h2", {}, "Tournament"), tournamentForm, field, tournamentNote, tournamentBox),
);

function label(c) {
  const also = c.also && c.also.length ? ` (also ${c.also.join(", ")})` : "";
  return c.hidden ? `${c.name}${also} (hidden)` : `${c.name}${also}`;
}

function options(select) {
  const keep = select.value;
  select.replaceChildren(
    ...GROUPS.map(([origin, title]) => {
      const mine = controllers.filter((c) => c.origin === origin);
      return mine.length ? h("optgroup", { label: title }, mine.map((c) => h("option", { value: c.sha256 }, label(c)))) : null;
    }).filter(Boolean),
  );
  if (keep && controllers.some((c) => c.sha256 === keep)) select.value = keep;
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
        { title: "origin", cell: (c) => c.origin },
        { title: "", cell: (c) => (c.hidden ? h("span", { class: "site-badge" }, "hidden") : "") },
        { title: "sha256", cell: (c) => h("span", { class: "site-sha", title: c.sha256 }, `${c.sha256.slice(0, 12)}…`) },
        { title: "bytes", cell: (c) => num(c.size), class: "site-num" },
      ],
      controllers,
    ),
  );
  options(pickA);
  options(pickB);
  if (!pickB.value || pickB.value === pickA.value) {
    const other = controllers.find((c) => c.sha256 !== pickA.value);
    if (other) pickB.value = other.sha256;
  }
  drawField();
}

// The field picker, a page of controllers at a time (a filter narrows them): what is
// chosen is kept across pages.
const FIELD_PAGE = 48;
const chosenField = new Set();
let fieldPage = 0;
const fieldFilter = h("input", {
  type: "search",
  class: "site-field-filter",
  "aria-label": "filter the controllers",
  placeholder: "filter by name",
  oninput: () => {
    fieldPage = 0;
    drawField();
  },
});

function drawField() {
  const known = new Set(controllers.map((c) => c.sha256));
  for (const sha of [...chosenField]) if (!known.has(sha)) chosenField.delete(sha);
  const needle = fieldFilter.value.trim().toLowerCase();
  const matching = controllers.filter((c) => !needle || label(c).toLowerCase().includes(needle));
  const pages = Math.max(1, Math.ceil(matching.length / FIELD_PAGE));
  fieldPage = Math.min(fieldPage, pages - 1);
  const shown = matching.slice(fieldPage * FIELD_PAGE, (fieldPage + 1) * FIELD_PAGE);
  const turn = (by) => () => {
    fieldPage += by;
    drawField();
  };
  const box = (c) =>
    h("input", {
      type: "checkbox",
      value: c.sha256,
      checked: chosenField.has(c.sha256),
      onchange: (e) => {
        if (e.target.checked) chosenField.add(c.sha256);
        else chosenField.delete(c.sha256);
        count.textContent = countText();
      },
    });
  const countText = () => `${chosenField.size} chosen`;
  const count = h("span", { class: "site-note site-field-count" }, countText());
  field.replaceChildren(
    h("legend", {}, FIELD_LEGEND),
    h("div", { class: "site-field-tools" }, fieldFilter, " ", count,
      pages > 1
        ? h("span", { class: "site-pager" },
            h("button", { type: "button", disabled: fieldPage === 0, onclick: turn(-1) }, "previous"),
            ` page ${fieldPage + 1} of ${pages} `,
            h("button", { type: "button", disabled: fieldPage === pages - 1, onclick: turn(1) }, "next"))
        : ""),
    ...shown.map((c) => h("label", { class: "site-check" }, box(c), ` ${label(c)}`)),
  );
}

async function useToken(token) {
  saveToken(token);
  tokenInput.value = token;
  try {
    await refresh();
    message(tokenNote, token ? "token accepted" : "no token: the hidden opponent is not listed, and nothing can be written", !!token);
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
      body: { a: pickA.value, b: pickB.value, seed: Number(seed.value) },
      token: savedToken(),
    });
    const show = (m) => {
      matchNote.replaceChildren(h("a", { href: `/matches/${m.id}` }, `match #${m.id}`), `: ${m.status === "error" ? `not played: ${m.error}` : outcomeText(m)}`);
      matchNote.classList.toggle("site-error", m.status === "error");
      matchNote.classList.toggle("site-ok", m.status !== "error");
      matchNote.dataset.status = m.status;
      if (m.status === "finished" && viewer === null) viewer = mountMatchViewer(matchViewer, m.id, { keepAddress: false });
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
  // In the order of the listing (the seeded order), whatever page each was chosen on.
  const chosen = controllers.map((c) => c.sha256).filter((sha) => chosenField.has(sha));
  message(tournamentNote, "starting…");
  try {
    const t = await api("/api/tournaments", {
      method: "POST",
      body: { format: format.value, field: chosen, seeds: seeds.value },
      token: savedToken(),
    });
    const show = (x) => {
      tournamentNote.replaceChildren(
        h("a", { href: `/tournaments/${x.id}` }, `tournament #${x.id}`),
        `: ${x.status}, ${x.planned ? `${x.matches} of ${x.planned}` : x.matches} matches; ${timing(x)}`,
      );
      tournamentNote.classList.toggle("site-error", x.status === "failed");
      tournamentNote.classList.toggle("site-ok", x.status !== "failed");
      tournamentNote.dataset.status = x.status;
      tournamentBox.replaceChildren(
        table(
          [
            { title: "rank", cell: rankCell, class: "site-num" },
            { title: "name", cell: (r) => h("span", { class: "site-name" }, r.name), class: "site-wide" },
            { title: "played", cell: (r) => String(r.matches), class: "site-num" },
            ...(x.status === "running" ? [{ title: "pending", cell: pendingCell, class: "site-num" }] : []),
            { title: "wins", cell: (r) => String(r.wins), class: "site-num" },
            { title: "losses", cell: (r) => String(r.losses), class: "site-num" },
            { title: "draws", cell: (r) => String(r.draws), class: "site-num" },
            { title: "rating", cell: (r) => (r.rating ? r.rating.ordinal.toFixed(2) : "–"), class: "site-num" },
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
});
