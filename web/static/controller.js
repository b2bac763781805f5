// A controller's page: its names and runs, its place in each field and tournament, its
// rating after each match (a chart), its record against each opponent (every match, its
// replay deep-linked by tick: the forfeit's, else the last), and head to head with one
// opponent chosen (?vs=<sha256> in the address).

import { api, fixed, frame, guarded, h, lastTick, matchLink, num, pageHref, setAddress, table, when } from "./site.js";
import { ratingChart } from "./ratings.js";

const main = frame("controller");
const sha256 = window.location.pathname.split("/").pop();

/** A match's outcome from the controller's side, in words. */
function outcomeCell(m) {
  const text = { win: "win", loss: "loss", draw: "draw", error: "not played" }[m.outcome];
  return h("span", { class: `site-outcome site-${m.outcome}` }, text);
}

/** Where the match belongs: its tournament (or field) or its run. */
function contextCell(m) {
  if (m.tournament_id !== null) {
    return h("a", { href: pageHref("tournaments", m.tournament_id) }, `tournament #${m.tournament_id}`);
  }
  if (m.run_id !== null) return h("a", { href: pageHref("runs", m.run_id) }, `run #${m.run_id}`);
  return "quick match";
}

function forfeitCell(f) {
  if (!f) return "–";
  // The forfeit's tick, deep-linked: the replay opens where it happened.
  return h("span", { title: f.detail }, `${f.kind} at `, matchLink(f.match, `tick ${f.tick}`, f.tick));
}

/** The table of `matches` (match rows seen from one side). */
function matchesTable(matches, { opponent = true } = {}) {
  return table(
    [
      { title: "match", cell: (m) => matchLink(m.id, `#${m.id}`), class: "site-num" },
      { title: "in", cell: contextCell },
      { title: "seed", cell: (m) => String(m.seed), class: "site-num" },
      { title: "side", cell: (m) => "AB"[m.side] },
      ...(opponent ? [{ title: "opponent", cell: (m) => (m.side === 0 ? m.b : m.a).name }] : []),
      { title: "result", cell: outcomeCell },
      { title: "winner", cell: (m) => m.winner ?? "–" },
      { title: "reason", cell: (m) => m.reason ?? m.error ?? "–" },
      { title: "ticks", cell: (m) => (m.ticks == null ? "–" : matchLink(m.id, String(m.ticks), lastTick(m))), class: "site-num" },
      { title: "forfeit", cell: (m) => forfeitCell(m.forfeit && { ...m.forfeit, match: m.id }) },
      { title: "opponent's forfeit", cell: (m) => forfeitCell(m.opponent_forfeit && { ...m.opponent_forfeit, match: m.id }) },
      { title: "fuel", cell: (m) => (m.fuel_total == null ? "–" : num(m.fuel_total)), class: "site-num" },
      { title: "mu after", cell: (m) => fixed(m.rating_after?.mu), class: "site-num" },
      { title: "sigma after", cell: (m) => fixed(m.rating_after?.sigma), class: "site-num" },
    ],
    matches,
    { empty: "No match.", rowClass: (m) => `site-match site-${m.outcome}` },
  );
}

function drawHead(c) {
  const others = c.names.filter((n) => n !== c.name);
  return h(
    "header",
    { class: "site-head" },
    h("h1", {}, h("span", { class: "site-name" }, c.name)),
    h(
      "p",
      { class: "site-meta" },
      h("span", { class: "site-sha" }, c.sha256),
      others.length ? ` · also: ${others.join(", ")}` : "",
      ` · ${c.origin}`,
      c.module ? [" · ", h("a", { href: `/api/controllers/${c.sha256}/module`, download: "" }, "module")] : "",
    ),
  );
}

function drawRuns(c) {
  return h(
    "section",
    { class: "site-section site-runs" },
    h("h2", {}, "Runs"),
    table(
      [
        { title: "run", cell: (r) => h("a", { href: pageHref("runs", r.run) }, `#${r.run}`), class: "site-num" },
        { title: "case", cell: (r) => `${r.case.slug}/${r.case.version}` },
        { title: "as", cell: (r) => r.controller },
        { title: "outcome", cell: (r) => r.outcome },
        { title: "matches", cell: (r) => String(r.matches), class: "site-num" },
        { title: "when", cell: (r) => `${when(r.created_at)} UTC` },
      ],
      c.runs,
      { empty: "No run." },
    ),
  );
}

function drawStandingRows(c) {
  const rows = [
    ...c.fields.map((f) => ({ ...f, href: `${pageHref("field", f.case.slug)}/${f.case.version}`, label: `field ${f.case.slug}/${f.case.version}`, gone: f.withdrawn ? "withdrawn" : null })),
    ...c.tournaments.map((t) => ({
      ...(t.row || {}),
      name: t.name,
      href: pageHref("tournaments", t.id),
      label: `tournament #${t.id} (${t.format})`,
      gone: t.excluded ? "excluded" : null,
    })),
  ];
  return h(
    "section",
    { class: "site-section site-places" },
    h("h2", {}, "Fields and tournaments"),
    table(
      [
        { title: "where", cell: (r) => h("a", { href: r.href }, r.label) },
        { title: "as", cell: (r) => r.name },
        { title: "rank", cell: (r) => r.gone ?? (r.rank == null ? "–" : String(r.rank)), class: "site-num" },
        { title: "wins", cell: (r) => String(r.wins ?? 0), class: "site-num" },
        { title: "losses", cell: (r) => String(r.losses ?? 0), class: "site-num" },
        { title: "draws", cell: (r) => String(r.draws ?? 0), class: "site-num" },
        { title: "mu", cell: (r) => fixed(r.rating?.mu), class: "site-num" },
        { title: "sigma", cell: (r) => fixed(r.rating?.sigma), class: "site-num" },
      ],
      rows,
      { empty: "In no field or tournament." },
    ),
  );
}

function drawRatings(c) {
  const series = c.ratings.map((s) => ({ ...s, label: s.label || `tournament #${s.tournament}` }));
  const chart = ratingChart(series, (p) => pageHref("matches", p.match));
  return h(
    "section",
    { class: "site-section site-rating-chart" },
    h("h2", {}, "Rating after each match"),
    chart
      ? [
          h("p", { class: "site-meta" }, "openskill mu after each match, in the order the matches were scheduled; the band is mu ± sigma. ", series.length > 1 ? "One line a field or tournament: " : "", series.length > 1 ? series.map((s) => s.label).join(", ") : ""),
          chart,
        ]
      : h("p", { class: "site-empty" }, "No rated match (runs and quick matches are not rated)."),
  );
}

function drawRecord(c) {
  return h(
    "section",
    { class: "site-section site-record" },
    h("h2", {}, "Record against each opponent"),
    c.record.length === 0
      ? h("p", { class: "site-empty" }, "No match played.")
      : c.record.map((r) =>
          h(
            "details",
            { class: "site-opponent", dataset: { opponent: r.opponent.sha256 } },
            h(
              "summary",
              {},
              h("a", { href: pageHref("controllers", r.opponent.sha256) }, r.opponent.name),
              ` ${r.wins}-${r.losses}${r.draws ? `-${r.draws}` : ""}`,
              h("span", { class: "site-meta" }, ` (wins-losses${r.draws ? "-draws" : ""}, ${r.matches.length} matches)`),
            ),
            matchesTable(r.matches, { opponent: false }),
          ),
        ),
  );
}

function drawHeadToHead(c) {
  const section = h("section", { class: "site-section site-head-to-head" }, h("h2", {}, "Head to head"));
  const shown = h("div", { class: "site-h2h-result" });
  const picker = h(
    "select",
    { class: "site-h2h-pick", "aria-label": "opponent" },
    h("option", { value: "" }, "choose an opponent"),
    c.record.map((r) => h("option", { value: r.opponent.sha256 }, r.opponent.name)),
  );
  const show = () => {
    const r = c.record.find((x) => x.opponent.sha256 === picker.value);
    setAddress({ vs: r ? r.opponent.sha256 : null });
    if (!r) {
      shown.replaceChildren();
      return;
    }
    shown.replaceChildren(
      h("p", { class: "site-h2h-score" }, `${c.name} ${r.wins} – ${r.losses} ${r.opponent.name}`, r.draws ? ` (${r.draws} drawn)` : ""),
      matchesTable(r.matches, { opponent: false }),
    );
  };
  picker.addEventListener("change", show);
  const wanted = new URLSearchParams(window.location.search).get("vs");
  if (wanted && c.record.some((r) => r.opponent.sha256 === wanted)) picker.value = wanted;
  section.append(h("p", {}, `${c.name} against `, picker), shown);
  show();
  return section;
}

guarded(main, async () => {
  const c = await api(`/api/controllers/${sha256}`);
  document.title = `${c.name} · Foray Arena`;
  main.append(drawHead(c), drawStandingRows(c), drawRatings(c), drawHeadToHead(c), drawRecord(c), drawRuns(c));
  main.dataset.state = "ready";
});
