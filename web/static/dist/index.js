import {
  api,
  frame,
  guarded,
  matchLink,
  outcomeText,
  pageHref,
  table,
  when
} from "./chunk-XY62RV2V.js";
import {
  h,
  num
} from "./chunk-TWAYYOF3.js";
import "./chunk-O2PYIN3Y.js";

// static/index.js
var main = frame("index");
function section(title, body) {
  return h("section", { class: "site-section" }, h("h2", {}, title), body);
}
function caseSection(c) {
  const about = `${c.slug}/${c.version}, ${c.difficulty}${c.tags.length ? `; ${c.tags.join(", ")}` : ""}`;
  return section(`The case: ${c.name}`, h("div", {}, h("p", {}, about), c.summary ? h("p", {}, c.summary) : null));
}
guarded(main, async () => {
  const [status, fields, tournaments, runs, matches] = await Promise.all([
    api("/api/status"),
    api("/api/field"),
    api("/api/tournaments?limit=20"),
    api("/api/runs?limit=20"),
    api("/api/matches?limit=30")
  ]);
  main.append(
    caseSection(status.case),
    section(
      "Fields",
      table(
        [
          { title: "case", cell: (f) => h("a", { href: `/field/${encodeURIComponent(f.case.slug)}/${f.case.version}` }, `${f.case.slug}/${f.case.version}`), class: "site-wide" },
          { title: "entrants", cell: (f) => String(f.entrants), class: "site-num" },
          { title: "matches", cell: (f) => `${f.matches.played} / ${f.matches.total}`, class: "site-num" }
        ],
        fields.fields,
        { empty: "No field yet: the first pushed run that can compete makes its case's." }
      )
    ),
    section(
      "Tournaments",
      table(
        [
          { title: "#", cell: (t) => h("a", { href: pageHref("tournaments", t.id) }, `#${t.id}`) },
          { title: "format", cell: (t) => t.format },
          { title: "field", cell: (t) => t.field.map((e) => e.name).join(", "), class: "site-wide" },
          { title: "matches", cell: (t) => t.planned ? `${t.matches} / ${t.planned}` : String(t.matches), class: "site-num" },
          { title: "status", cell: (t) => t.status },
          { title: "started", cell: (t) => when(t.created_at) }
        ],
        tournaments,
        { empty: "No tournament published yet: start one from the console, then publish it." }
      )
    ),
    section(
      "Proof runs",
      table(
        [
          { title: "#", cell: (r) => h("a", { href: pageHref("runs", r.run) }, `#${r.run}`) },
          { title: "controller", cell: (r) => r.controller.name, class: "site-wide" },
          { title: "case", cell: (r) => `${r.case.slug}/${r.case.version}` },
          { title: "outcome", cell: (r) => h("span", { class: `site-outcome site-${r.outcome}` }, r.outcome) },
          { title: "matches", cell: (r) => String(r.matches), class: "site-num" },
          { title: "when", cell: (r) => when(r.created_at) }
        ],
        runs,
        { empty: "No proof run published yet: arena prove, then arena push." }
      )
    ),
    section(
      "Recent matches",
      table(
        [
          { title: "#", cell: (m) => matchLink(m.id) },
          { title: "A", cell: (m) => h("span", { class: "fv-side-0" }, m.sides[0].name) },
          { title: "B", cell: (m) => h("span", { class: "fv-side-1" }, m.sides[1].name) },
          { title: "outcome", cell: (m) => outcomeText(m), class: "site-wide" },
          { title: "banked", cell: (m) => m.status === "finished" ? m.sides.map((s) => num(s.banked)).join("–") : "–", class: "site-num" },
          { title: "ticks", cell: (m) => m.ticks === void 0 ? "–" : String(m.ticks), class: "site-num" },
          { title: "of", cell: (m) => m.tournament_id ? h("a", { href: pageHref("tournaments", m.tournament_id) }, `tournament #${m.tournament_id}`) : m.run_id ? h("a", { href: pageHref("runs", m.run_id) }, `run #${m.run_id}`) : "quick match" }
        ],
        matches,
        { empty: "No match published yet." }
      )
    )
  );
  main.dataset.state = "ready";
});
