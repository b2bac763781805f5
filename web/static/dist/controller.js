import {
  api,
  frame,
  guarded,
  lastTick,
  matchLink,
  pageHref,
  setAddress,
  table,
  when
} from "./chunk-XY62RV2V.js";
import {
  fixed,
  h,
  num
} from "./chunk-TWAYYOF3.js";
import "./chunk-O2PYIN3Y.js";

// static/ratings.js
var SVG = "http://www.w3.org/2000/svg";
var WIDTH = 720;
var HEIGHT = 220;
var PAD = { left: 44, right: 12, top: 12, bottom: 26 };
var COLOURS = ["#5fa8ff", "#ff8a5c", "#8fd18f", "#d39bff", "#f2c94c", "#7fd6d6"];
function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== void 0) el.setAttribute(key, String(value));
  }
  el.append(...children);
  return el;
}
function title(text) {
  const t = document.createElementNS(SVG, "title");
  t.textContent = text;
  return t;
}
function ratingChart(series, href) {
  const drawn = series.filter((s) => s.points.length > 0);
  if (drawn.length === 0) return null;
  const longest = Math.max(...drawn.map((s) => s.points.length));
  let low = Infinity;
  let high = -Infinity;
  for (const s of drawn) {
    for (const p of s.points) {
      low = Math.min(low, p.mu - p.sigma);
      high = Math.max(high, p.mu + p.sigma);
    }
  }
  if (high - low < 1) {
    high += 0.5;
    low -= 0.5;
  }
  const x = (i) => PAD.left + (longest === 1 ? 0.5 : i / (longest - 1)) * (WIDTH - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - (v - low) / (high - low)) * (HEIGHT - PAD.top - PAD.bottom);
  const chart = svg("svg", {
    class: "site-ratings",
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: "img",
    "aria-label": "rating (mu, with mu ± sigma shaded) after each match"
  });
  for (const v of [low, (low + high) / 2, high]) {
    chart.append(
      svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v), class: "site-ratings-grid" }),
      svg("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end", class: "site-ratings-axis" }, v.toFixed(1))
    );
  }
  chart.append(
    svg("text", { x: PAD.left, y: HEIGHT - 6, class: "site-ratings-axis" }, "match 1"),
    svg("text", { x: WIDTH - PAD.right, y: HEIGHT - 6, "text-anchor": "end", class: "site-ratings-axis" }, `match ${longest}`)
  );
  drawn.forEach((s, k) => {
    const colour = COLOURS[k % COLOURS.length];
    const upper = s.points.map((p, i) => `${x(i)},${y(p.mu + p.sigma)}`);
    const lower = s.points.map((p, i) => `${x(i)},${y(p.mu - p.sigma)}`).reverse();
    const group = svg("g", { class: "site-ratings-series", "data-tournament": s.tournament });
    group.append(
      svg("polygon", { points: [...upper, ...lower].join(" "), fill: colour, "fill-opacity": 0.15 }),
      svg("polyline", { points: s.points.map((p, i) => `${x(i)},${y(p.mu)}`).join(" "), fill: "none", stroke: colour, "stroke-width": 2 })
    );
    s.points.forEach((p, i) => {
      const dot = svg(
        "circle",
        { cx: x(i), cy: y(p.mu), r: 3.5, fill: colour, class: "site-ratings-point", "data-match": p.match },
        title(`${s.label}, match #${p.match}: mu ${p.mu.toFixed(2)}, sigma ${p.sigma.toFixed(2)}`)
      );
      const link = svg("a", { href: href(p) }, dot);
      group.append(link);
    });
    chart.append(group);
  });
  return chart;
}

// static/controller.js
var main = frame("controller");
var sha256 = window.location.pathname.split("/").pop();
function outcomeCell(m) {
  const text = { win: "win", loss: "loss", draw: "draw", error: "not played" }[m.outcome];
  return h("span", { class: `site-outcome site-${m.outcome}` }, text);
}
function contextCell(m) {
  if (m.tournament_id !== null) {
    return h("a", { href: pageHref("tournaments", m.tournament_id) }, `tournament #${m.tournament_id}`);
  }
  if (m.run_id !== null) return h("a", { href: pageHref("runs", m.run_id) }, `run #${m.run_id}`);
  return "quick match";
}
function forfeitCell(f) {
  if (!f) return "–";
  return h("span", { title: f.detail }, `${f.kind} at `, matchLink(f.match, `tick ${f.tick}`, f.tick));
}
function matchesTable(matches, { opponent = true } = {}) {
  return table(
    [
      { title: "match", cell: (m) => matchLink(m.id, `#${m.id}`), class: "site-num" },
      { title: "in", cell: contextCell },
      { title: "seed", cell: (m) => String(m.seed), class: "site-num" },
      { title: "side", cell: (m) => "AB"[m.side] },
      ...opponent ? [{ title: "opponent", cell: (m) => (m.side === 0 ? m.b : m.a).name }] : [],
      { title: "result", cell: outcomeCell },
      { title: "winner", cell: (m) => m.winner ?? "–" },
      { title: "reason", cell: (m) => m.reason ?? m.error ?? "–" },
      { title: "ticks", cell: (m) => m.ticks == null ? "–" : matchLink(m.id, String(m.ticks), lastTick(m)), class: "site-num" },
      { title: "forfeit", cell: (m) => forfeitCell(m.forfeit && { ...m.forfeit, match: m.id }) },
      { title: "opponent's forfeit", cell: (m) => forfeitCell(m.opponent_forfeit && { ...m.opponent_forfeit, match: m.id }) },
      { title: "fuel", cell: (m) => m.fuel_total == null ? "–" : num(m.fuel_total), class: "site-num" },
      { title: "mu after", cell: (m) => fixed(m.rating_after?.mu), class: "site-num" },
      { title: "sigma after", cell: (m) => fixed(m.rating_after?.sigma), class: "site-num" }
    ],
    matches,
    { empty: "No match.", rowClass: (m) => `site-match site-${m.outcome}` }
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
      c.module ? [" · ", h("a", { href: `/api/controllers/${c.sha256}/module`, download: "" }, "module")] : ""
    )
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
        { title: "when", cell: (r) => `${when(r.created_at)} UTC` }
      ],
      c.runs,
      { empty: "No run." }
    )
  );
}
function drawStandingRows(c) {
  const rows = [
    ...c.fields.map((f) => ({ ...f, href: `${pageHref("field", f.case.slug)}/${f.case.version}`, label: `field ${f.case.slug}/${f.case.version}`, gone: f.withdrawn ? "withdrawn" : null })),
    ...c.tournaments.map((t) => ({
      ...t.row || {},
      name: t.name,
      href: pageHref("tournaments", t.id),
      label: `tournament #${t.id} (${t.format})`,
      gone: t.excluded ? "excluded" : null
    }))
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
        { title: "sigma", cell: (r) => fixed(r.rating?.sigma), class: "site-num" }
      ],
      rows,
      { empty: "In no field or tournament." }
    )
  );
}
function drawRatings(c) {
  const series = c.ratings.map((s) => ({ ...s, label: s.label || `tournament #${s.tournament}` }));
  const chart = ratingChart(series, (p) => pageHref("matches", p.match));
  return h(
    "section",
    { class: "site-section site-rating-chart" },
    h("h2", {}, "Rating after each match"),
    chart ? [
      h("p", { class: "site-meta" }, "openskill mu after each match, in the order the matches were scheduled; the band is mu ± sigma. ", series.length > 1 ? "One line a field or tournament: " : "", series.length > 1 ? series.map((s) => s.label).join(", ") : ""),
      chart
    ] : h("p", { class: "site-empty" }, "No rated match (runs and quick matches are not rated).")
  );
}
function drawRecord(c) {
  return h(
    "section",
    { class: "site-section site-record" },
    h("h2", {}, "Record against each opponent"),
    c.record.length === 0 ? h("p", { class: "site-empty" }, "No match played.") : c.record.map(
      (r) => h(
        "details",
        { class: "site-opponent", dataset: { opponent: r.opponent.sha256 } },
        h(
          "summary",
          {},
          h("a", { href: pageHref("controllers", r.opponent.sha256) }, r.opponent.name),
          ` ${r.wins}-${r.losses}${r.draws ? `-${r.draws}` : ""}`,
          h("span", { class: "site-meta" }, ` (wins-losses${r.draws ? "-draws" : ""}, ${r.matches.length} matches)`)
        ),
        matchesTable(r.matches, { opponent: false })
      )
    )
  );
}
function drawHeadToHead(c) {
  const section = h("section", { class: "site-section site-head-to-head" }, h("h2", {}, "Head to head"));
  const shown = h("div", { class: "site-h2h-result" });
  const picker = h(
    "select",
    { class: "site-h2h-pick", "aria-label": "opponent" },
    h("option", { value: "" }, "choose an opponent"),
    c.record.map((r) => h("option", { value: r.opponent.sha256 }, r.opponent.name))
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
      matchesTable(r.matches, { opponent: false })
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
