// The outcome of a match in words (rules §7): the winner, the reason, and the
// tie-break that decided it.

import { num } from "./format.js";

/** "A (name)" for side 0 or 1; "A (name, stored as first)" where `storedAs`, the name its
 * module was first stored under, differs. */
export function sideLabel(replay, side, storedAs = null) {
  const name = replay.header.sides[side].name;
  return `${"AB"[side]} (${storedAs && storedAs !== name ? `${name}, stored as ${storedAs}` : name})`;
}

/** How much less `less` is than `more`, as a short percentage. */
function percentLess(less, more) {
  const pct = (1 - less / more) * 100;
  if (pct >= 1) return `${pct >= 99.5 && pct < 100 ? pct.toFixed(1) : Math.round(pct)}%`;
  return `${pct.toPrecision(2)}%`;
}

/** Where and why a side forfeited, from its result's forfeit record. */
export function forfeitText(replay, side) {
  const f = replay.result.sides[side].forfeit;
  const when = f.tick === 0 && replay.ticks === 0 ? "at init" : `in tick ${f.tick}`;
  return `${sideLabel(replay, side)} forfeited ${when}: ${f.kind}${f.detail ? ` (${f.detail})` : ""}`;
}

/**
 * The outcome of a finished replay: {winner, headline, detail}. The detail spells
 * out what decided it, e.g. "level on banked 12-12; B used 41% less fuel".
 */
export function describeOutcome(replay) {
  const r = replay.result;
  const [a, b] = r.sides;
  const winner = r.winner;
  const banked = `banked ${a.banked}-${b.banked}`;
  const last = replay.lastApplied >= 0 ? replay.frames[replay.lastApplied] : null;
  const bothDestroyed = last !== null && last.k[0] <= 0 && last.k[1] <= 0;
  const prefix = bothDestroyed ? `both colonies destroyed in tick ${last.t}; ` : "";
  const wins = winner === null ? "Draw" : `${sideLabel(replay, winner)} wins`;
  switch (r.reason) {
    case "forfeit": {
      const who = [0, 1].filter((s) => r.sides[s].forfeit !== null);
      return {
        winner,
        headline: winner === null ? "Draw: both sides forfeited" : `${wins} by forfeit`,
        detail: who.map((s) => forfeitText(replay, s)).join("; "),
      };
    }
    case "sweep": {
      const loser = 1 - winner;
      return {
        winner,
        headline: `${wins} by sweep`,
        detail: `${"AB"[loser]}'s colony destroyed in tick ${r.ticks - 1}; ${banked}`,
      };
    }
    case "score":
      return { winner, headline: `${wins} on score`, detail: `${prefix}${banked}` };
    case "fuel": {
      const [w, l] = winner === 0 ? [a, b] : [b, a];
      return {
        winner,
        headline: `${wins} on fuel`,
        detail:
          `${prefix}level on ${banked}; ${"AB"[winner]} used ${percentLess(w.fuel_total, l.fuel_total)} less fuel` +
          ` (${num(w.fuel_total)} vs ${num(l.fuel_total)})`,
      };
    }
    case "draw":
      return {
        winner,
        headline: "Draw",
        detail: `${prefix}level on ${banked} and on fuel (${num(a.fuel_total)} each)`,
      };
    default:
      return { winner, headline: `${wins} (${r.reason})`, detail: banked };
  }
}
