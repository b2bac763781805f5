// A tournament's page: standings with ratings, the pairings (rounds; a bracket drawn as
// a tree), each match linked; live (server-sent events) while it runs.

import { api, fixed, follow, frame, guarded, h, matchLink, num, pageHref, pendingCell, table, timing, when } from "./site.js";

const main = frame("tournament");
const tournamentId = Number(document.body.dataset.id);

/** Rounds of pairings shown at once (a bracket is drawn whole). */
const ROUNDS_A_PAGE = 8;
let roundsPage = 0;

const head = h("header", { class: "site-head" });
const standings = h("section", { class: "site-section" });
const pairings = h("section", { class: "site-section" });


function drawHead(t) {
  head.replaceChildren(
    h("h1", {}, `Tournament #${t.id}: ${t.format}`),
    h(
      "p",
      { class: "site-meta" },
      h("span", { class: `site-status site-${t.status}`, dataset: { status: t.status } }, t.status),
      ` · ${t.field.length} entrants · seeds ${t.seeds.join(", ")} · `,
      h("span", { class: "site-progress" }, t.planned ? `${t.matches} of ${t.planned} matches` : `${t.matches} matches`),
      ` · started ${when(t.created_at)} UTC`,
      t.finished_at ? ` · ${t.status} ${when(t.finished_at)} UTC` : "",
      h("span", { class: "site-timing" }, ` · ${timing(t)}`),
      t.error ? h("span", { class: "site-error" }, ` · ${t.error}`) : "",
    ),
    // The exports of `arena standings --csv` and `arena tournament matches --csv`.
    h(
      "p",
      { class: "site-meta site-downloads" },
      "download (CSV): ",
      h("a", { href: `/api/tournaments/${t.id}/standings.csv`, download: "" }, "standings"),
      " · ",
      h("a", { href: `/api/tournaments/${t.id}/matches.csv`, download: "" }, "every match"),
    ),
  );
}

/** The sha256 of the entrant `name` of tournament `t`. */
function shaOf(t, name) {
  return t.field.find((e) => e.name === name)?.sha256;
}

function drawStandings(t) {
  standings.replaceChildren(
    h("h2", {}, t.status === "running" ? "Standings so far" : "Standings"),
    t.format === "gauntlet"
      ? h("p", { class: "site-meta" }, `A gauntlet: its entrant, ${t.entrant}, against each of the others, who never meet each other; all ranked by wins.`)
      : "",
    // An operator's exclusions (arena tournament exclude): said before the table they change.
    ...(t.excluded || []).map((x) =>
      h("p", { class: "site-meta site-excluded" }, `Excluded: ${x.name} (${x.reason}; ${when(x.at)} UTC). The standings are recomputed without its matches.`),
    ),
    table(
      [
        { title: "rank", cell: (r) => String(r.rank), class: "site-num" },
        // Each entrant's name leads to its controller's page (its record and rating).
        { title: "name", cell: (r) => h("a", { href: pageHref("controllers", shaOf(t, r.name)), class: "site-name" }, r.name), class: "site-wide" },
        { title: "played", cell: (r) => String(r.matches), class: "site-num" },
        ...(t.status === "running" ? [{ title: "pending", cell: pendingCell, class: "site-num" }] : []),
        { title: "wins", cell: (r) => String(r.wins), class: "site-num" },
        { title: "losses", cell: (r) => String(r.losses), class: "site-num" },
        { title: "draws", cell: (r) => String(r.draws), class: "site-num" },
        { title: "forfeits", cell: (r) => String(r.forfeits), class: "site-num" },
        { title: "fuel", cell: (r) => num(r.fuel_total), class: "site-num" },
        // openskill's mu and sigma, labelled as on every page (the field's, a controller's).
        { title: "mu", cell: (r) => fixed(r.rating?.mu), class: "site-num" },
        { title: "sigma", cell: (r) => fixed(r.rating?.sigma), class: "site-num" },
      ],
      t.standings,
      { empty: "No match played yet." },
    ),
  );
}

/** A meeting's score over its matches: [wins of a, wins of b, draws]. */
function score(m) {
  const count = (name) => m.matches.filter((x) => x.winner === name).length;
  const draws = m.matches.filter((x) => x.status === "finished" && x.winner === null).length;
  return [count(m.a), count(m.b), draws];
}

/** A round-robin's, swiss's or gauntlet's meeting: its score, opening to its matches. */
function meetingScoreBox(m) {
  const [wa, wb, drawn] = score(m);
  const won = (name) => (m.winner === name ? "site-winner" : null);
  return h(
    "details",
    { class: "site-meeting site-meeting-score", dataset: { slot: String(m.slot) } },
    h(
      "summary",
      { title: "wins-losses over its matches (seeds, both sides); open for each match" },
      h("span", { class: won(m.a) }, m.a),
      ` ${wa}-${wb}${drawn ? `-${drawn}` : ""} `,
      h("span", { class: won(m.b) }, m.b ?? "(bye)"),
    ),
    matchLinks(m),
  );
}

function meetingBox(m) {
  const won = (name) => (m.winner === name ? "site-winner" : null);
  return h(
    "div",
    { class: "site-meeting", dataset: { slot: String(m.slot) } },
    h("div", { class: won(m.a) }, m.a),
    h("div", { class: won(m.b) }, m.b ?? "(bye)"),
    matchLinks(m),
  );
}

function matchLinks(m) {
  return h(
      "div",
      { class: "site-meeting-matches" },
      // Each match as it reads: its seed, who was side A and side B, and who won.
      m.matches.map((x) => {
        const [a, b] = x.side === 0 ? [m.a, m.b] : [m.b, m.a];
        const result = x.status === "pending" ? "playing" : x.status === "error" ? "not played" : x.winner ? `${x.winner} wins` : "draw";
        const link = matchLink(x.id, `seed ${x.seed} · A ${a} · B ${b} · ${result}`);
        link.title = `match #${x.id}`;
        link.className = x.winner === null ? "site-draw" : x.winner === m.a ? "site-first" : "site-second";
        return link;
      }),
  );
}

function drawPairings(t) {
  const title = h("h2", {}, t.format === "bracket" ? "Bracket" : "Pairings");
  if (t.stages.length === 0) {
    pairings.replaceChildren(title, h("p", { class: "site-empty" }, "No pairing yet."));
    return;
  }
  if (t.format === "bracket") {
    // A tree, drawn left to right: each column a round, each meeting centred between
    // the two it comes from.
    pairings.replaceChildren(
      title,
      h(
        "div",
        { class: "site-bracket" },
        t.stages.map((s) =>
          h("div", { class: "site-bracket-round" }, h("h3", {}, s.label), h("div", { class: "site-bracket-games" }, s.meetings.map(meetingBox))),
        ),
      ),
    );
    return;
  }
  // Rounds a page at a time: a big round-robin's pairings would be a page thousands of
  // pixels long.
  const pages = Math.ceil(t.stages.length / ROUNDS_A_PAGE);
  roundsPage = Math.min(roundsPage, pages - 1);
  const shown = t.stages.slice(roundsPage * ROUNDS_A_PAGE, (roundsPage + 1) * ROUNDS_A_PAGE);
  const turn = (by) => () => {
    roundsPage += by;
    drawPairings(t);
  };
  const pager =
    pages > 1
      ? h(
          "nav",
          { class: "site-pager site-rounds-pager" },
          h("button", { type: "button", disabled: roundsPage === 0, onclick: turn(-1) }, "earlier rounds"),
          ` ${shown[0].label} to ${shown[shown.length - 1].label} of ${t.stages.length} `,
          h("button", { type: "button", disabled: roundsPage === pages - 1, onclick: turn(1) }, "later rounds"),
        )
      : "";
  pairings.replaceChildren(
    title,
    pager,
    ...shown.map((s) =>
      h("div", { class: "site-stage" }, h("h3", {}, s.label), h("div", { class: "site-meetings" }, s.meetings.map(meetingScoreBox))),
    ),
  );
}

function draw(t) {
  drawHead(t);
  drawStandings(t);
  drawPairings(t);
  main.dataset.status = t.status;
}

guarded(main, async () => {
  const t = await api(`/api/tournaments/${tournamentId}`);
  main.append(head, standings, pairings);
  draw(t);
  main.dataset.state = "ready";
  if (t.status === "running") {
    follow(`/api/tournaments/${tournamentId}/events`, "tournament", draw, (x) => x.status !== "running");
  }
});
