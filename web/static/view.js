// The page of one replay (`arena view`, and any page that holds a single viewer):
// mounts the viewer on #viewer, opens at ?tick=N, and keeps ?tick= in the
// address when the viewer stops on a tick, so the address is a deep link.

import { mountViewer } from "./viewer.js";

const element = document.getElementById("viewer");
const params = new URLSearchParams(window.location.search);
const asked = params.get("tick");
const tick = asked !== null && /^\d+$/.test(asked) ? Number(asked) : null;

const viewer = mountViewer(element, {
  replayUrl: element.dataset.replayUrl,
  tick,
  onTick: (t, playing) => {
    if (playing || t < 0) return;
    const url = new URL(window.location.href);
    url.searchParams.set("tick", String(t));
    window.history.replaceState(null, "", url);
  },
});
// For tests, benchmarks and the curious: the viewer and its replay model.
window.forayViewer = viewer;
