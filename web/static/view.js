// The page of one replay (`arena view`, and any page that holds a single viewer):
// mounts the viewer on #viewer, opens at ?tick=N, and keeps ?tick= in the
// address when the viewer stops on a tick, so the address is a deep link.

import { mountViewer } from "./viewer.js";

const element = document.getElementById("viewer");
const params = new URLSearchParams(window.location.search);
const asked = params.get("tick");
const tick = asked !== null && /^\d+$/.test(asked) ? Number(asked) : null;

// At most one address change per quarter second: browsers throttle a page that
// replaces its address too often, and a dragged scrubber shows many ticks.
let pending = null;
function remember(t) {
  clearTimeout(pending);
  pending = setTimeout(() => {
    const url = new URL(window.location.href);
    url.searchParams.set("tick", String(t));
    window.history.replaceState(null, "", url);
  }, 250);
}

const viewer = mountViewer(element, {
  replayUrl: element.dataset.replayUrl,
  tick,
  onTick: (t, playing) => {
    if (!playing && t >= 0) remember(t);
  },
});
// For tests, benchmarks and the curious: the viewer and its replay model.
window.forayViewer = viewer;
