// What the site's pages share: the JSON API, the token, live events, the page frame,
// tables, and a viewer whose tick (and match) stay in the address.
//
// A page is on one side (the shell's data-side): a public page asks the API without a
// token, so it shows only what is published; a console page (/console...) asks with the
// console's token, kept in this tab, and its links stay on the console.
//
// Every name and detail from the server is written as text (dom.js), never as markup.

import { h } from "./dom.js";
import { fixed, num } from "./format.js";
import { mountViewer } from "./viewer.js";

export { fixed, h, num };

const TOKEN_KEY = "foray-arena-token";

/** Whether this page is the console's (it asks with the token, its links stay there). */
export const onConsole = document.body.dataset.side === "console";

/** The page of a record on this page's side: pageHref("matches", 42) -> "/matches/42". */
export function pageHref(kind, id, query = "") {
  return `${onConsole ? "/console" : ""}/${kind}/${id}${query}`;
}

/** The token this page asks with: the console's on the console, none on a public page. */
function sideToken() {
  return onConsole ? savedToken() : "";
}

/** The token the user entered in the console, kept for this browser tab only. */
export function savedToken() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

export function saveToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** An error the API answered with: its status and message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * Call the JSON API: fetch `path`; `body` is sent as JSON (or as is, for a
 * Blob or ArrayBuffer); `token` adds the Authorization header. Resolves with
 * the JSON answer; rejects with an ApiError carrying the server's message.
 */
export async function api(path, { method = "GET", body, token = sideToken() } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload = body;
  if (body !== undefined && !(body instanceof Blob) && !(body instanceof ArrayBuffer)) {
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

/**
 * Follow a record's server-sent events (`event` is "match" or "tournament"):
 * onData(record) for each state; the stream closes itself once the record is
 * final (`isFinal(record)`). Returns a function that closes it.
 */
export function follow(url, event, onData, isFinal) {
  const token = sideToken();
  // EventSource sends no Authorization header: with a token, the stream is read by fetch.
  if (token) return followWithToken(url, event, onData, isFinal, token);
  const source = new EventSource(url);
  source.addEventListener(event, (e) => {
    const data = JSON.parse(e.data);
    onData(data);
    if (isFinal(data)) source.close();
  });
  source.onerror = () => {
    // The server ends the stream once the record is final; anything else: retry (the default).
    if (source.readyState === EventSource.CLOSED) source.close();
  };
  return () => source.close();
}

/** Server-sent events read through fetch, with the token (the console's streams). */
function followWithToken(url, event, onData, isFinal, token) {
  const abort = new AbortController();
  (async () => {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` }, signal: abort.signal });
    if (!response.ok || !response.body) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
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
  })().catch(() => {});
  return () => abort.abort();
}

/** The page frame: the navigation bar (saying which side the page is on) and a main
 * element, emptied. */
export function frame(active) {
  const link = (href, text, name) =>
    h("a", { href, class: name === active ? "site-active" : null }, text);
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
      onConsole ? "console" : "public",
    ),
  );
  const main = document.getElementById("page");
  document.body.prepend(nav);
  main.replaceChildren();
  return main;
}

/** A table: columns [{title, cell(row) -> node or text, class}], one row per item. */
export function table(columns, rows, { empty = "none yet", rowClass = null } = {}) {
  if (rows.length === 0) return h("p", { class: "site-empty" }, empty);
  return h(
    "table",
    { class: "site-table" },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { class: c.class }, c.title)))),
    h(
      "tbody",
      {},
      rows.map((row) =>
        h(
          "tr",
          { class: rowClass ? rowClass(row) : null },
          columns.map((c) => h("td", { class: c.class }, c.cell(row))),
        ),
      ),
    ),
  );
}

/** "2024-05-01T12:00:00.000000+00:00" -> "2024-05-01 12:00". */
export function when(iso) {
  if (!iso) return "–";
  return iso.replace("T", " ").slice(0, 16);
}

/** A duration in seconds as a person reads it: 0.4s, 12.3s, 1m08s, 2h05m (as the CLI). */
export function duration(seconds) {
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")}m`;
}

/** A tournament's timing: "took 1m08s, 56.5 matches/s" (or "running for ..." so far). */
export function timing(t) {
  const rate = t.matches_per_second == null ? "" : `, ${t.matches_per_second.toFixed(1)} matches/s`;
  if (t.seconds == null) return "";
  return t.finished_at ? `took ${duration(t.seconds)}${rate}` : `running for ${duration(t.seconds)}${rate} so far`;
}

/** A standings row's matches still to come: "?" where the format cannot know yet. */
export function pendingCell(row) {
  return row.pending == null ? h("span", { title: "depends on results still to come" }, "?") : String(row.pending);
}

/** A side of a match JSON as "A (name)". */
export function sideName(match, side) {
  return `${"AB"[side]} (${match.sides[side].name})`;
}

/** A side's name, and the name its module was first stored under where that differs
 * (`stored_as`): "zigbot-proved (stored as zigbot)". */
export function namedSide(side) {
  return side.stored_as ? `${side.name} (stored as ${side.stored_as})` : side.name;
}

/** Each side's `stored_as` of a match JSON, for the viewer's `storedAs`. */
export function storedAs(match) {
  return match.sides.map((s) => s.stored_as || null);
}

/** A match JSON's outcome in words: "B (x) wins by sweep", "draw", "queued (3rd)", ... */
export function outcomeText(match) {
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

/** The last tick of a finished match (row or match JSON with `ticks`): a match of N ticks
 * shows ticks 0 to N-1, so a link to its end opens on N-1. */
export function lastTick(match) {
  return Math.max(0, match.ticks - 1);
}

export function matchLink(id, text = `#${id}`, tick = null) {
  return h("a", { href: pageHref("matches", id, tick === null ? "" : `?tick=${tick}`) }, text);
}

/** The page's address with `params` set (null removes one), without a new history entry. */
export function setAddress(params) {
  const url = new URL(window.location.href);
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined) url.searchParams.delete(key);
    else url.searchParams.set(key, String(value));
  }
  window.history.replaceState(null, "", url);
}

/** ?name=N from the address, if it is a whole number. */
export function addressNumber(name) {
  const text = new URLSearchParams(window.location.search).get(name);
  return text !== null && /^\d+$/.test(text) ? Number(text) : null;
}

/**
 * Mount a viewer of match `id` in `element` and keep `?tick=` in the address
 * whenever it stops on a tick (a quarter second after the last move), so the
 * address is always a link to what is shown. Returns the viewer.
 */
export function mountMatchViewer(element, id, { tick = null, keepAddress = true, storedAs = null } = {}) {
  let pending = null;
  const token = sideToken();
  const viewer = mountViewer(element, {
    replayUrl: `/api/matches/${id}/replay`,
    headers: token ? { Authorization: `Bearer ${token}` } : null,
    tick,
    storedAs,
    onTick: (t, playing) => {
      if (!keepAddress || playing || t < 0) return;
      clearTimeout(pending);
      pending = setTimeout(() => setAddress({ tick: t }), 250);
    },
  });
  // For tests and the curious, as on the one-viewer page.
  window.forayViewer = viewer;
  return viewer;
}

/** Run `load()`, showing its error in `element` instead of failing silently. */
export async function guarded(element, load) {
  try {
    await load();
  } catch (err) {
    element.append(h("p", { class: "site-error", role: "alert" }, err instanceof Error ? err.message : String(err)));
  }
}
