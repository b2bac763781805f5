import {
  h,
  mountViewer
} from "./chunk-TWAYYOF3.js";

// static/site.js
var TOKEN_KEY = "foray-arena-token";
var onConsole = document.body.dataset.side === "console";
function pageHref(kind, id, query = "") {
  return `${onConsole ? "/console" : ""}/${kind}/${id}${query}`;
}
function sideToken() {
  return onConsole ? savedToken() : "";
}
function savedToken() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}
function saveToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}
var ApiError = class extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
};
async function api(path, { method = "GET", body, token = sideToken() } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload = body;
  if (body !== void 0 && !(body instanceof Blob) && !(body instanceof ArrayBuffer)) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const response = await fetch(path, { method, headers, body: payload });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = data && typeof data.error === "string" ? data.error : response.statusText;
    throw new ApiError(response.status, `${response.status}: ${message}`);
  }
  return data;
}
function follow(url, event, onData, isFinal) {
  const token = sideToken();
  if (token) return followWithToken(url, event, onData, isFinal, token);
  const source = new EventSource(url);
  source.addEventListener(event, (e) => {
    const data = JSON.parse(e.data);
    onData(data);
    if (isFinal(data)) source.close();
  });
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) source.close();
  };
  return () => source.close();
}
function followWithToken(url, event, onData, isFinal, token) {
  const abort = new AbortController();
  (async () => {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` }, signal: abort.signal });
    if (!response.ok || !response.body) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (; ; ) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split("\n");
        const name = lines.find((l) => l.startsWith("event: "));
        const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
        if (!name || name.slice(7) !== event || !data) continue;
        const record = JSON.parse(data);
        onData(record);
        if (isFinal(record)) {
          abort.abort();
          return;
        }
      }
    }
  })().catch(() => {
  });
  return () => abort.abort();
}
function frame(active) {
  const link = (href, text, name) => h("a", { href, class: name === active ? "site-active" : null }, text);
  const nav = h(
    "nav",
    { class: "site-nav" },
    h("a", { href: "/", class: "site-brand" }, "Foray Arena"),
    link("/", "home", "index"),
    link("/console", "console", "console"),
    h("a", { href: "/openapi.json" }, "API"),
    h(
      "span",
      { class: `site-side site-side-${onConsole ? "console" : "public"}`, title: onConsole ? "the console: everything, published or not (with the token)" : "the public site: only what is published" },
      onConsole ? "console" : "public"
    )
  );
  const main = document.getElementById("page");
  document.body.prepend(nav);
  main.replaceChildren();
  return main;
}
function table(columns, rows, { empty = "none yet", rowClass = null } = {}) {
  if (rows.length === 0) return h("p", { class: "site-empty" }, empty);
  return h(
    "table",
    { class: "site-table" },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { class: c.class }, c.title)))),
    h(
      "tbody",
      {},
      rows.map(
        (row) => h(
          "tr",
          { class: rowClass ? rowClass(row) : null },
          columns.map((c) => h("td", { class: c.class }, c.cell(row)))
        )
      )
    )
  );
}
function when(iso) {
  if (!iso) return "–";
  return iso.replace("T", " ").slice(0, 16);
}
function duration(seconds) {
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor(whole % 3600 / 60)).padStart(2, "0")}m`;
}
function timing(t) {
  const rate = t.matches_per_second == null ? "" : `, ${t.matches_per_second.toFixed(1)} matches/s`;
  if (t.seconds == null) return "";
  return t.finished_at ? `took ${duration(t.seconds)}${rate}` : `running for ${duration(t.seconds)}${rate} so far`;
}
function pendingCell(row) {
  return row.pending == null ? h("span", { title: "depends on results still to come" }, "?") : String(row.pending);
}
function sideName(match, side) {
  return `${"AB"[side]} (${match.sides[side].name})`;
}
function namedSide(side) {
  return side.stored_as ? `${side.name} (stored as ${side.stored_as})` : side.name;
}
function storedAs(match) {
  return match.sides.map((s) => s.stored_as || null);
}
function outcomeText(match) {
  if (match.status === "pending") {
    if (match.stage === "running") return "playing…";
    if (match.stage === "queued") return `queued (#${match.position})`;
    return "pending";
  }
  if (match.status === "error") return "not played";
  const how = { sweep: "by sweep", score: "on score", fuel: "on fuel", forfeit: "by forfeit" }[match.reason];
  if (match.winner === null) return "draw";
  return `${sideName(match, match.winner)} wins ${how || match.reason}`;
}
function lastTick(match) {
  return Math.max(0, match.ticks - 1);
}
function matchLink(id, text = `#${id}`, tick = null) {
  return h("a", { href: pageHref("matches", id, tick === null ? "" : `?tick=${tick}`) }, text);
}
function setAddress(params) {
  const url = new URL(window.location.href);
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === void 0) url.searchParams.delete(key);
    else url.searchParams.set(key, String(value));
  }
  window.history.replaceState(null, "", url);
}
function addressNumber(name) {
  const text = new URLSearchParams(window.location.search).get(name);
  return text !== null && /^\d+$/.test(text) ? Number(text) : null;
}
function mountMatchViewer(element, id, { tick = null, keepAddress = true, storedAs: storedAs2 = null } = {}) {
  let pending = null;
  const token = sideToken();
  const viewer = mountViewer(element, {
    replayUrl: `/api/matches/${id}/replay`,
    headers: token ? { Authorization: `Bearer ${token}` } : null,
    tick,
    storedAs: storedAs2,
    onTick: (t, playing) => {
      if (!keepAddress || playing || t < 0) return;
      clearTimeout(pending);
      pending = setTimeout(() => setAddress({ tick: t }), 250);
    }
  });
  window.forayViewer = viewer;
  return viewer;
}
async function guarded(element, load) {
  try {
    await load();
  } catch (err) {
    element.append(h("p", { class: "site-error", role: "alert" }, err instanceof Error ? err.message : String(err)));
  }
}

export {
  onConsole,
  pageHref,
  savedToken,
  saveToken,
  api,
  follow,
  frame,
  table,
  when,
  timing,
  pendingCell,
  namedSide,
  storedAs,
  outcomeText,
  lastTick,
  matchLink,
  setAddress,
  addressNumber,
  mountMatchViewer,
  guarded
};
