// A controller's openskill rating after each match, drawn as inline SVG: a line of mu per
// tournament (or field) in its schedule order, the band mu ± sigma around it, each point
// a link to its match. SVG rather than the viewer's uPlot: a few hundred points at most,
// no canvas to size or redraw, and each point is an element a reader can hover (its title)
// and follow (its link), written as text like every name on the site.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 720;
const HEIGHT = 220;
const PAD = { left: 44, right: 12, top: 12, bottom: 26 };
/** One colour per series, in order (the viewer's side colours first). */
const COLOURS = ["#5fa8ff", "#ff8a5c", "#8fd18f", "#d39bff", "#f2c94c", "#7fd6d6"];

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) el.setAttribute(key, String(value));
  }
  el.append(...children);
  return el;
}

function title(text) {
  const t = document.createElementNS(SVG, "title");
  t.textContent = text;
  return t;
}

/**
 * The chart of `series` ([{tournament, format, label, points: [{match, mu, sigma}]}]),
 * x the match's place in its series, y the rating; `href(point)` links each point.
 * Returns an <svg> (class site-ratings), or null when no series has a point.
 */
export function ratingChart(series, href) {
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
    "aria-label": "rating (mu, with mu ± sigma shaded) after each match",
  });
  // The axes: three values of mu, and the match count.
  for (const v of [low, (low + high) / 2, high]) {
    chart.append(
      svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v), class: "site-ratings-grid" }),
      svg("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end", class: "site-ratings-axis" }, v.toFixed(1)),
    );
  }
  chart.append(
    svg("text", { x: PAD.left, y: HEIGHT - 6, class: "site-ratings-axis" }, "match 1"),
    svg("text", { x: WIDTH - PAD.right, y: HEIGHT - 6, "text-anchor": "end", class: "site-ratings-axis" }, `match ${longest}`),
  );
  drawn.forEach((s, k) => {
    const colour = COLOURS[k % COLOURS.length];
    const upper = s.points.map((p, i) => `${x(i)},${y(p.mu + p.sigma)}`);
    const lower = s.points.map((p, i) => `${x(i)},${y(p.mu - p.sigma)}`).reverse();
    const group = svg("g", { class: "site-ratings-series", "data-tournament": s.tournament });
    group.append(
      svg("polygon", { points: [...upper, ...lower].join(" "), fill: colour, "fill-opacity": 0.15 }),
      svg("polyline", { points: s.points.map((p, i) => `${x(i)},${y(p.mu)}`).join(" "), fill: "none", stroke: colour, "stroke-width": 2 }),
    );
    s.points.forEach((p, i) => {
      const dot = svg(
        "circle",
        { cx: x(i), cy: y(p.mu), r: 3.5, fill: colour, class: "site-ratings-point", "data-match": p.match },
        title(`${s.label}, match #${p.match}: mu ${p.mu.toFixed(2)}, sigma ${p.sigma.toFixed(2)}`),
      );
      const link = svg("a", { href: href(p) }, dot);
      group.append(link);
    });
    chart.append(group);
  });
  return chart;
}
