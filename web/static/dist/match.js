import {
  addressNumber,
  api,
  follow,
  frame,
  guarded,
  mountMatchViewer,
  namedSide,
  outcomeText,
  pageHref,
  storedAs
} from "./chunk-XY62RV2V.js";
import {
  h
} from "./chunk-TWAYYOF3.js";
import "./chunk-O2PYIN3Y.js";

// static/match.js
var main = frame("match");
var matchId = Number(document.body.dataset.id);
guarded(main, async () => {
  const match = await api(`/api/matches/${matchId}`);
  const status = h("p", { class: "site-status", role: "status" });
  const context = match.tournament_id ? h("a", { href: pageHref("tournaments", match.tournament_id) }, `tournament #${match.tournament_id}`) : match.run_id ? h("a", { href: pageHref("runs", match.run_id) }, `run #${match.run_id}`) : "quick match";
  main.append(
    h(
      "header",
      { class: "site-head" },
      h(
        "h1",
        {},
        `Match #${match.id}: `,
        // Each side as it played, and its module's first name where that differs.
        h("span", { class: "fv-side-0" }, namedSide(match.sides[0])),
        " vs ",
        h("span", { class: "fv-side-1" }, namedSide(match.sides[1]))
      ),
      h("p", { class: "site-meta" }, context, ` · seed ${match.seed}`)
    ),
    status
  );
  const box = h("div", { class: "site-viewer" });
  main.append(box);
  const show = (m) => {
    status.textContent = m.status === "error" ? `not played: ${m.error}` : outcomeText(m);
    status.dataset.status = m.status;
    if (m.status === "finished" && box.childElementCount === 0) {
      status.hidden = true;
      mountMatchViewer(box, matchId, { tick: addressNumber("tick"), storedAs: storedAs(m) });
      main.dataset.state = "ready";
    }
  };
  show(match);
  if (match.status === "pending") {
    follow(`/api/matches/${matchId}/events`, "match", show, (m) => m.status !== "pending");
  }
});
