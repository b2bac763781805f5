import {
  addressNumber,
  api,
  frame,
  guarded,
  matchLink,
  mountMatchViewer,
  pageHref,
  setAddress,
  table
} from "./chunk-XY62RV2V.js";
import {
  h,
  num
} from "./chunk-TWAYYOF3.js";
import "./chunk-O2PYIN3Y.js";

// static/run.js
var main = frame("run");
var runId = Number(document.body.dataset.id);
function label(row, seeds) {
  return seeds > 1 ? `${row.opponent} (${row.role}, seed ${row.result.seed})` : `${row.opponent} (${row.role})`;
}
guarded(main, async () => {
  const run = await api(`/api/runs/${runId}`);
  const rows = run.matches;
  const seeds = new Set(rows.map((r) => r.result.seed)).size;
  document.title = `run #${run.run}: ${run.controller.name} · Foray Arena`;
  main.append(
    h(
      "header",
      { class: "site-head" },
      h(
        "h1",
        {},
        `Run #${run.run}: `,
        h("span", { class: "site-name" }, run.controller.name),
        // One module, one stored name: the first, where the run named it otherwise.
        run.controller.stored_as ? h("span", { class: "site-stored-as", title: "the name its module was first stored under" }, ` (stored as ${run.controller.stored_as})`) : ""
      ),
      h(
        "p",
        { class: "site-meta" },
        `case ${run.case.slug}/${run.case.version} · `,
        h("span", { class: `site-outcome site-${run.outcome}` }, run.outcome),
        run.reason ? ` · ${run.reason}` : "",
        ` · ${run.matches.length} matches`,
        run.controller.sha256 ? [
          h("span", { class: "site-sha", title: run.controller.sha256 }, ` · sha256 ${run.controller.sha256.slice(0, 12)}…`),
          // Its page: every run, tournament and field it played in, its record and rating.
          " · ",
          h("a", { href: pageHref("controllers", run.controller.sha256), class: "site-controller-link" }, "its record")
        ] : ""
      )
    )
  );
  const mine = (r) => r.result.sides[r.side];
  const theirs = (r) => r.result.sides[1 - r.side];
  const sideCell = (side, key) => (r) => r.result.status === "finished" ? num(side(r)[key]) : "–";
  let viewer = null;
  let selected = null;
  const select = h("select", { class: "site-opponent", "aria-label": "opponent" });
  const viewerBox = h("div", { class: "site-viewer" });
  const results = table(
    [
      { title: "opponent", cell: (r) => h("a", { href: `?match=${r.id}`, onclick: (e) => {
        e.preventDefault();
        show(r.id, null);
      } }, r.opponent) },
      { title: "role", cell: (r) => r.role },
      { title: "side", cell: (r) => "AB"[r.side] },
      { title: "outcome", cell: (r) => h("span", { class: `site-outcome site-${r.outcome}` }, r.outcome) },
      { title: "reason", cell: (r) => r.result.reason || "–" },
      // Both sides, labelled: the run's controller's ("yours"), then the opponent's, as
      // arena runs show prints them.
      { title: "banked (yours)", cell: sideCell(mine, "banked"), class: "site-num" },
      { title: "banked (opponent)", cell: sideCell(theirs, "banked"), class: "site-num" },
      { title: "fuel (yours)", cell: sideCell(mine, "fuel_total"), class: "site-num" },
      { title: "fuel (opponent)", cell: sideCell(theirs, "fuel_total"), class: "site-num" },
      { title: "ticks", cell: (r) => String(r.result.ticks ?? "–"), class: "site-num" },
      { title: "match", cell: (r) => matchLink(r.id) }
    ],
    rows,
    { empty: "This run could not compete: it has no matches.", rowClass: (r) => `site-row-${r.id}` }
  );
  main.append(h("section", { class: "site-section" }, h("h2", {}, "Results"), results));
  if (run.build_log) {
    main.append(h("details", { class: "site-log" }, h("summary", {}, "build log"), h("pre", {}, run.build_log)));
  }
  if (rows.length === 0) return;
  for (const r of rows) select.append(h("option", { value: String(r.id) }, label(r, seeds)));
  select.addEventListener("change", () => show(Number(select.value), null));
  main.append(
    h("section", { class: "site-section" }, h("div", { class: "site-picker" }, h("label", {}, "opponent ", select)), viewerBox)
  );
  function show(matchId, tick) {
    if (matchId === selected) return;
    selected = matchId;
    select.value = String(matchId);
    for (const tr of results.querySelectorAll("tbody tr")) tr.classList.toggle("site-selected", tr.classList.contains(`site-row-${matchId}`));
    if (viewer !== null) viewer.destroy();
    setAddress({ match: matchId, tick });
    const row = rows.find((r) => r.id === matchId);
    const storedAs = [null, null];
    if (row) storedAs[row.side] = run.controller.stored_as || null;
    viewer = mountMatchViewer(viewerBox, matchId, { tick, storedAs });
  }
  const asked = addressNumber("match");
  const first = rows.find((r) => r.id === asked) || rows.find((r) => r.role === "canonical") || rows[0];
  show(first.id, first.id === asked ? addressNumber("tick") : null);
  main.dataset.state = "ready";
});
