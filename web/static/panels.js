// What the viewer's side panels say at a tick: pure functions of the replay and the
// view ({state, frame}); viewer.js writes them into its cells.

import { num } from "./format.js";
import { SOLDIER } from "./replay.js";

/** The statistics beside the map, per side. */
export const STATS = [
  "colony hp",
  "banked",
  "energy",
  "workers",
  "soldiers",
  "ore carried",
  "fuel",
  "of the cap",
  "memory",
  "of its cap",
];
/** The forfeit kinds whose tick is charged the whole fuel_per_tick (rules §8.6). */
const WHOLE_CHARGE = ["trap", "fuel", "timeout"];

/** 0.0123 -> "1.2%", 0.00016 -> "0.016%". */
const percent = (share) => {
  const pct = 100 * share;
  return `${pct >= 0.1 || pct === 0 ? pct.toFixed(1) : pct.toPrecision(2)}%`;
};

/**
 * Side `s`'s panel in replay `r` at `view`: `values` (each of STATS by name, as text),
 * `charged` (the forfeit kind whose tick this is, when that tick's fuel is its whole
 * charge, else null) and `note` (the side's debug note as text, null for none).
 */
export function sidePanel(r, { state, frame }, s) {
  const cap = r.header.limits.fuel_per_tick;
  const units = state === null ? [] : [...state.units[s].values()];
  const soldiers = units.filter((u) => u.kind === SOLDIER).length;
  const fuel = frame === null ? null : frame.f[s];
  // Bytes after the side's calls of the tick, and their share of the cap (version 3).
  const memory = frame === null ? null : r.series.memory[s][frame.t];
  const memoryCap = r.header.limits.max_memory_bytes;
  // A tick whose call trapped, ran out of fuel or timed out is charged the whole
  // fuel_per_tick (rules §8.6): its 100% is that charge, not work done.
  const forfeit = r.result ? r.result.sides[s].forfeit : null;
  const chargedWhole =
    frame !== null && forfeit !== null && forfeit.tick === frame.t && WHOLE_CHARGE.includes(forfeit.kind);
  const values = {
    "colony hp": `${state === null ? r.config.colony_hp : state.colonyHp[s]} / ${r.config.colony_hp}`,
    banked: state === null ? "0" : num(state.banked[s]),
    energy: state === null ? "–" : num(state.energy[s]),
    workers: state === null ? "–" : String(units.length - soldiers),
    soldiers: state === null ? "–" : String(soldiers),
    "ore carried": state === null ? "–" : num(units.reduce((n, u) => n + u.carry, 0)),
    fuel: fuel === null ? "–" : num(fuel),
    "of the cap": fuel === null || !cap ? "–" : `${percent(fuel / cap)}${chargedWhole ? ` · ${forfeit.kind}: charged whole` : ""}`,
    memory: memory === null || memory === undefined ? "–" : num(memory),
    "of its cap": memory === null || memory === undefined || !memoryCap ? "–" : percent(memory / memoryCap),
  };
  // Debug notes: frames may carry "n", per side a string, null, or the length
  // outside 0..256 a dropped note was returned with (rules §9.9).
  const raw = frame !== null && Array.isArray(frame.n) ? frame.n[s] : null;
  const note =
    raw === null || raw === undefined
      ? null
      : typeof raw === "string"
        ? raw
        : Number.isInteger(raw)
          ? `(note dropped: returned length ${raw})`
          : "(note dropped)";
  return { values, charged: chargedWhole ? forfeit.kind : null, note };
}
