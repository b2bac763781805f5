// A case version's field: every entrant ranked against every other (standings by wins,
// then the tie-breaks, with the openskill rating as mu and sigma, played and pending,
// forfeits by kind, fuel), live over server-sent events as meetings play and entrants
// arrive; each entrant linked to its controller's page; head to head of any two
// (?a=NAME&b=NAME in the address). On the console (/console/field/...), a form withdraws an
// entrant with the reason, or undoes a withdrawal.

import { api, fixed, follow, frame, guarded, h, lastTick, matchLink, num, onConsole, pageHref, setAddress, table, when } from "./site.js";

const main = frame("field");
const [slug, version] = window.location.pathname.split("/").slice(-2).map(decodeURIComponent);
const base = `/api/field/${encodeURIComponent(slug)}/${encodeURIComponent(version)}`;

const head = h("header", { class: "site-head" });
const standings = h("section", { class: "site-section site-standings" });
const withdrawn = h("section", { class: "site-section site-withdrawn" });
const versus = h("section", { class: "site-section site-head-to-head" });

function drawHead(f) {
  const m = f.matches;
  head.replaceChildren(
    h("h1", {}, `The field of ${f.case.slug}/${f.case.version}`),
    h(
      "p",
      { class: "site-meta" },
      h("span", { class: "site-entrants" }, `${f.entrants} entrants`),
      " · ",
      h("span", { class: "site-progress" }, `${m.played} of ${m.total} matches played`),
      m.pending ? ` · ${m.pending} pending` : "",
      " · every entrant meets every other on each of the case's seeds, both sides",
    ),
  );
}

/** The forfeit kinds any entrant has: a column each (all zero otherwise: no column). */
function kindsOf(rows) {
  const kinds = [];
  for (const r of rows) {
    for (const [kind, n] of Object.entries(r.forfeit_kinds || {})) {
      if (n > 0 && !kinds.includes(kind)) kinds.push(kind);
    }
  }
  return kinds;
}

function drawStandings(f) {
  const kinds = kindsOf(f.standings);
  standings.replaceChildren(
    h("h2", {}, "Standings"),
    h("p", { class: "site-meta" }, "Ranked by wins, then wins among the tied, then less fuel, then name. mu is the openskill rating, sigma its uncertainty."),
    table(
      [
        { title: "rank", cell: (r) => String(r.rank), class: "site-num" },
        {
          title: "name",
          cell: (r) => [h("a", { href: pageHref("controllers", r.sha256), class: "site-name" }, r.name), r.baseline ? h("span", { class: "site-meta" }, " (baseline)") : ""],
          class: "site-wide",
        },
        { title: "wins", cell: (r) => String(r.wins), class: "site-num" },
        { title: "losses", cell: (r) => String(r.losses), class: "site-num" },
        { title: "draws", cell: (r) => String(r.draws), class: "site-num" },
        { title: "played", cell: (r) => String(r.played), class: "site-num" },
        { title: "pending", cell: (r) => String(r.pending), class: "site-num" },
        { title: "forfeits", cell: (r) => String(r.forfeits), class: "site-num" },
        // A kind's own count, said so: "fuel forfeits" beside the total "fuel" used.
        ...kinds.map((kind) => ({ title: `${kind} forfeits`, cell: (r) => String(r.forfeit_kinds?.[kind] ?? 0), class: "site-num site-kind" })),
        { title: "fuel", cell: (r) => num(r.fuel_total), class: "site-num" },
        { title: "mu", cell: (r) => fixed(r.rating?.mu), class: "site-num" },
        { title: "sigma", cell: (r) => fixed(r.rating?.sigma), class: "site-num" },
      ],
      f.standings,
      { empty: "No entrant yet.", rowClass: () => "site-entrant" },
    ),
  );
}

function drawWithdrawn(f) {
  withdrawn.replaceChildren(
    ...(f.withdrawn.length
      ? [
          h("h2", {}, "Withdrawn"),
          ...f.withdrawn.map((x) =>
            h("p", { class: "site-meta site-excluded" }, h("a", { href: pageHref("controllers", x.sha256) }, x.name), `: ${x.reason} (${when(x.at)} UTC). Its matches stay recorded; it is out of the standings.`),
          ),
        ]
      : []),
  );
}

// The operator's form (console only): withdraw an entrant, with the reason, or undo it.
const operator = h("section", { class: "site-section site-withdraw" });
const withdrawName = h("select", { class: "site-withdraw-name", "aria-label": "entrant" });
const withdrawReason = h("input", { type: "text", class: "site-withdraw-reason", "aria-label": "reason", placeholder: "the reason (shown with the standings)" });
const withdrawNote = h("span", { class: "site-note", role: "status" });

async function withdrawal(method, body) {
  try {
    draw(await api(`${base}/withdraw`, { method, body }));
    withdrawNote.textContent = method === "POST" ? `${body.name} withdrawn` : `${body.name} is back`;
  } catch (err) {
    withdrawNote.textContent = err.message;
  }
}

function drawOperator(f) {
  if (!onConsole) return;
  const names = [...f.standings.map((r) => r.name), ...f.withdrawn.map((x) => x.name)];
  fillPicker(withdrawName, names, null);
  if (operator.childElementCount === 0) {
    operator.append(
      h("h2", {}, "Withdraw an entrant"),
      h(
        "form",
        { class: "site-form", onsubmit: (e) => { e.preventDefault(); withdrawal("POST", { name: withdrawName.value, reason: withdrawReason.value }); } },
        h("label", {}, "withdraw ", withdrawName),
        h("label", {}, "because ", withdrawReason),
        h("button", { type: "submit" }, "withdraw"),
        h("button", { type: "button", class: "site-undo", onclick: () => withdrawal("DELETE", { name: withdrawName.value }) }, "undo"),
        withdrawNote,
      ),
      h("p", { class: "site-meta" }, "A withdrawn entrant leaves the standings; its matches stay recorded; its meetings not played yet are not played until it is back."),
    );
  }
}

// Head to head: two pickers over the entrants; the matches between them, who won each.
const pickA = h("select", { class: "site-h2h-a", "aria-label": "first entrant" });
const pickB = h("select", { class: "site-h2h-b", "aria-label": "second entrant" });
const versusResult = h("div", { class: "site-h2h-result" });
let versusAsked = 0;

function fillPicker(picker, names, wanted) {
  const current = picker.value || wanted || "";
  picker.replaceChildren(h("option", { value: "" }, "choose"), ...names.map((n) => h("option", { value: n }, n)));
  if (names.includes(current)) picker.value = current;
}

async function showVersus() {
  const a = pickA.value;
  const b = pickB.value;
  setAddress({ a: a || null, b: b || null });
  const asked = ++versusAsked;
  if (!a || !b || a === b) {
    versusResult.replaceChildren(a && a === b ? h("p", { class: "site-empty" }, "Choose two different entrants.") : "");
    return;
  }
  const query = new URLSearchParams({ a, b });
  const x = await api(`${base}/head-to-head?${query}`);
  if (asked !== versusAsked) return; // a later choice is on its way
  versusResult.replaceChildren(
    h("p", { class: "site-h2h-score" }, `${a} ${x.wins_a} – ${x.wins_b} ${b}`, x.draws ? ` (${x.draws} drawn)` : ""),
    table(
      [
        { title: "match", cell: (m) => matchLink(m.id, `#${m.id}`), class: "site-num" },
        { title: "seed", cell: (m) => String(m.seed), class: "site-num" },
        { title: "side A", cell: (m) => m.a.name },
        { title: "side B", cell: (m) => m.b.name },
        { title: "winner", cell: (m) => (m.outcome === "error" ? "not played" : m.winner ?? "draw"), class: "site-h2h-winner" },
        { title: "reason", cell: (m) => m.reason ?? "–" },
        { title: "ticks", cell: (m) => (m.ticks == null ? "–" : matchLink(m.id, String(m.ticks), lastTick(m))), class: "site-num" },
        {
          title: "forfeit",
          cell: (m) => {
            const f = m.forfeit || m.opponent_forfeit;
            if (!f) return "–";
            const who = m.forfeit ? a : b;
            return h("span", { title: f.detail }, `${who}: ${f.kind} at `, matchLink(m.id, `tick ${f.tick}`, f.tick));
          },
        },
      ],
      x.matches,
      { empty: "They have not met yet.", rowClass: () => "site-match" },
    ),
  );
}

function drawVersus(f) {
  const names = f.standings.map((r) => r.name);
  const address = new URLSearchParams(window.location.search);
  fillPicker(pickA, names, address.get("a"));
  fillPicker(pickB, names, address.get("b"));
}

function draw(f) {
  drawHead(f);
  drawStandings(f);
  drawWithdrawn(f);
  drawVersus(f);
  drawOperator(f);
  main.dataset.played = String(f.matches.played);
  main.dataset.entrants = String(f.entrants);
}

guarded(main, async () => {
  const f = await api(base);
  pickA.addEventListener("change", () => guarded(versusResult, showVersus));
  pickB.addEventListener("change", () => guarded(versusResult, showVersus));
  versus.append(h("h2", {}, "Head to head"), h("p", {}, pickA, " against ", pickB), versusResult);
  main.append(head, standings, versus, withdrawn, operator);
  draw(f);
  main.dataset.state = "ready";
  if (pickA.value && pickB.value) guarded(versusResult, showVersus);
  // A field never finishes: the stream stays open while the page does.
  follow(`${base}/events`, "field", draw, () => false);
});
