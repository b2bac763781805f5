import {
  mountViewer
} from "./chunk-TWAYYOF3.js";
import "./chunk-O2PYIN3Y.js";

// static/view.js
var element = document.getElementById("viewer");
var params = new URLSearchParams(window.location.search);
var asked = params.get("tick");
var tick = asked !== null && /^\d+$/.test(asked) ? Number(asked) : null;
var pending = null;
function remember(t) {
  clearTimeout(pending);
  pending = setTimeout(() => {
    const url = new URL(window.location.href);
    url.searchParams.set("tick", String(t));
    window.history.replaceState(null, "", url);
  }, 250);
}
var viewer = mountViewer(element, {
  replayUrl: element.dataset.replayUrl,
  tick,
  onTick: (t, playing) => {
    if (!playing && t >= 0) remember(t);
  }
});
window.forayViewer = viewer;
