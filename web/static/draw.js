// Drawing one tick of a replay on a canvas: terrain, ore, colonies, units, the
// tick's events, and a side's vision on request.

import { SOLDIER, visionMask } from "./replay.js";

export const SIDE_COLORS = ["#4f9dff", "#ff7a45"];
const SIDE_DARK = ["#1f4f99", "#99401c"];
const OPEN = "#1c2229";
const ROCK = "#4b525c";
const ROCK_EDGE = "#5d6570";
const GRID = "#161b21";
const ORE = [234, 179, 8];
const HIT = "#ff3b3b";
// Ore is drawn in this many shades of gold, from a quarter to full opacity.
const ORE_SHADES = 16;
const ORE_STYLES = Array.from(
  { length: ORE_SHADES },
  (_, k) => `rgba(${ORE[0]}, ${ORE[1]}, ${ORE[2]}, ${(0.25 + (0.75 * k) / (ORE_SHADES - 1)).toFixed(3)})`,
);
const GOLD = "#ffd24a";

/** "#rrggbb" as one pixel of an ImageData read as a 32-bit word (r, g, b, a: little-endian). */
const word = (hex) =>
  (0xff000000 | (parseInt(hex.slice(5, 7), 16) << 16) | (parseInt(hex.slice(3, 5), 16) << 8) | parseInt(hex.slice(1, 3), 16)) >>> 0;

/** A canvas of `width` x `height` pixels, one a cell: cell i's pixel is wordOf(i) (0: transparent). */
function cellImage(width, height, wordOf) {
  const image = new ImageData(width, height);
  const words = new Uint32Array(image.data.buffer);
  for (let i = 0; i < words.length; i++) words[i] = wordOf(i);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  canvas.getContext("2d").putImageData(image, 0, 0);
  return canvas;
}

/** The map renderer of one replay. `draw` is synchronous: the canvas is done when it returns. */
export class MapRenderer {
  constructor(canvas, replay) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.replay = replay;
    this.cell = 16;
    this._dpr = null;
    /** The terrain at the canvas's size, made on the second draw at that size (the first paints it). */
    this._terrain = null;
    this._cellImages = null;
    const ore = replay.header.map.ore;
    // Ore is shaded against the richest cell of the map at tick 0.
    this._oreScale = Math.max(1, ...ore);
  }

  /** Fit the map into `maxWidth` CSS pixels (cells of 6 to 28 pixels). */
  resize(maxWidth) {
    const { width, height } = this.replay;
    const cell = Math.max(6, Math.min(28, Math.floor(maxWidth / width)));
    const dpr = window.devicePixelRatio || 1;
    if (cell === this.cell && this._dpr === dpr) return false;
    this.cell = cell;
    this._dpr = dpr;
    this.canvas.width = Math.round(width * cell * dpr);
    this.canvas.height = Math.round(height * cell * dpr);
    this.canvas.style.width = `${width * cell}px`;
    this.canvas.style.height = `${height * cell}px`;
    this._terrain = null;
    this._painted = false;
    return true;
  }

  /**
   * The terrain never changes: the first draw at a size paints it on the canvas, the next
   * ones copy it from a layer of its own, made then (not on the way to the first frame).
   */
  _drawTerrain(ctx) {
    if (this._terrain === null && !this._painted) {
      this._painted = true;
      ctx.setTransform(this._dpr, 0, 0, this._dpr, 0, 0);
      this._paintTerrain(ctx);
      return;
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.terrain(), 0, 0);
  }

  /**
   * Paint the terrain on `ctx` (scaled to CSS pixels): an image of one pixel a cell, scaled
   * up whole without smoothing, then the rocks' top edges and the grid's gaps over it, a few
   * hundred draws in all instead of a fill per cell.
   */
  _paintTerrain(ctx) {
    const { width, height } = this.replay;
    const c = this.cell;
    if (this._cellImages === null) {
      const rock = this.replay.header.map.rock;
      const [open, rocky, edge] = [OPEN, ROCK, ROCK_EDGE].map(word);
      this._cellImages = {
        ground: cellImage(width, height, (i) => (rock[i] === 1 ? rocky : open)),
        edges: cellImage(width, height, (i) => (rock[i] === 1 ? edge : 0)),
      };
    }
    const { ground, edges } = this._cellImages;
    const smoothing = ctx.imageSmoothingEnabled;
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(ground, 0, 0, width * c, height * c);
    // Cells under 10 pixels have neither.
    if (c >= 10) {
      // The rocks' top edges: each row of cells, two pixels high.
      for (let y = 0; y < height; y++) ctx.drawImage(edges, 0, y, width, 1, 0, y * c, width * c, 2);
      // The grid: a one-pixel gap at the right and bottom of every cell.
      ctx.fillStyle = GRID;
      for (let x = 0; x < width; x++) ctx.fillRect(x * c + c - 1, 0, 1, height * c);
      for (let y = 0; y < height; y++) ctx.fillRect(0, y * c + c - 1, width * c, 1);
    }
    ctx.imageSmoothingEnabled = smoothing;
  }

  /** The terrain at the canvas's size: a canvas the draws after the first copy. */
  terrain() {
    if (this._terrain === null) {
      const layer = document.createElement("canvas");
      layer.width = this.canvas.width;
      layer.height = this.canvas.height;
      const ctx = layer.getContext("2d");
      ctx.scale(this._dpr, this._dpr);
      this._paintTerrain(ctx);
      this._terrain = layer;
    }
    return this._terrain;
  }

  /**
   * Draw `view` ({state, prev, frame}): the state after the frame's tick, the state
   * before it (for where the dead and the attackers stood) and the frame (events).
   * `vision` is null or the side whose sight is shown.
   */
  draw(view, { vision = null } = {}) {
    const { ctx, cell: c, replay } = this;
    this._drawTerrain(ctx);
    ctx.setTransform(this._dpr, 0, 0, this._dpr, 0, 0);
    const state = view.state;
    const ore = state === null ? replay.header.map.ore : state.ore;
    this._drawOre(ore);
    this._drawColonies(state);
    if (state !== null) this._drawUnits(state);
    if (view.frame !== null && view.frame.v !== undefined) this._drawEvents(view);
    if (vision !== null) this._drawVision(visionMask(replay, state, vision), vision);
  }

  _drawOre(ore) {
    const { ctx, cell: c, replay } = this;
    const inset = Math.max(1, Math.round(c * 0.12));
    const side = c - 2 * inset - 1;
    // One shade at a time: a style change per cell would cost one each.
    const shades = Array.from({ length: ORE_SHADES }, () => []);
    for (let i = 0; i < ore.length; i++) {
      if (ore[i] > 0) shades[Math.round((ORE_SHADES - 1) * Math.min(1, ore[i] / this._oreScale))].push(i);
    }
    shades.forEach((cells, shade) => {
      if (cells.length === 0) return;
      ctx.fillStyle = ORE_STYLES[shade];
      for (const i of cells) {
        const x = i % replay.width;
        ctx.fillRect(x * c + inset, ((i - x) / replay.width) * c + inset, side, side);
      }
    });
  }

  _drawColonies(state) {
    const { ctx, cell: c, replay } = this;
    const full = replay.config.colony_hp;
    replay.header.map.colonies.forEach(([x, y], side) => {
      const hp = state === null ? full : state.colonyHp[side];
      const px = x * c;
      const py = y * c;
      ctx.fillStyle = hp > 0 ? SIDE_COLORS[side] : "#333";
      ctx.fillRect(px - 1, py - 1, c + 1, c + 1);
      ctx.strokeStyle = "#fff";
      ctx.lineWidth = 1;
      ctx.strokeRect(px + 1.5, py + 1.5, c - 4, c - 4);
      if (hp <= 0) {
        this._cross(px + c / 2, py + c / 2, c * 0.4, HIT, 2);
      }
      // The hp bar, above the colony (below it on the top row).
      const frac = Math.max(0, Math.min(1, hp / full));
      const barY = py >= 6 ? py - 5 : py + c + 1;
      ctx.fillStyle = "#000";
      ctx.fillRect(px - c / 2, barY, c * 2, 4);
      ctx.fillStyle = frac > 0.5 ? "#4ade80" : frac > 0.25 ? "#facc15" : "#f87171";
      ctx.fillRect(px - c / 2, barY, c * 2 * frac, 4);
    });
  }

  _drawUnits(state) {
    const { ctx, cell: c, replay } = this;
    const cfg = replay.config;
    state.units.forEach((units, side) => {
      // The bodies, one path per side: soldiers are diamonds, workers discs.
      ctx.fillStyle = SIDE_COLORS[side];
      ctx.strokeStyle = SIDE_DARK[side];
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (const u of units.values()) {
        const cx = u.x * c + c / 2;
        const cy = u.y * c + c / 2;
        if (u.kind === SOLDIER) {
          const r = c * 0.42;
          ctx.moveTo(cx, cy - r);
          ctx.lineTo(cx + r, cy);
          ctx.lineTo(cx, cy + r);
          ctx.lineTo(cx - r, cy);
          ctx.closePath();
        } else {
          ctx.moveTo(cx + c * 0.3, cy);
          ctx.arc(cx, cy, c * 0.3, 0, 2 * Math.PI);
        }
      }
      ctx.fill();
      ctx.stroke();
      for (const u of units.values()) {
        const cx = u.x * c + c / 2;
        const cy = u.y * c + c / 2;
        if (u.carry > 0) {
          const share = Math.min(1, u.carry / cfg.carry_cap);
          ctx.fillStyle = GOLD;
          ctx.beginPath();
          ctx.arc(cx, cy, Math.max(1.5, c * 0.16 * Math.sqrt(share)), 0, 2 * Math.PI);
          ctx.fill();
        }
        const full = u.kind === SOLDIER ? cfg.soldier_hp : cfg.worker_hp;
        if (u.hp < full && c >= 8) {
          const w = c - 4;
          ctx.fillStyle = "#000";
          ctx.fillRect(u.x * c + 2, u.y * c + c - 3, w, 2);
          ctx.fillStyle = "#f87171";
          ctx.fillRect(u.x * c + 2, u.y * c + c - 3, (w * Math.max(0, u.hp)) / full, 2);
        }
      }
    });
  }

  _drawEvents(view) {
    const { ctx, cell: c, replay } = this;
    const { width } = replay;
    const [attacks, deaths, spawns, deposits] = view.frame.v;
    const center = (cell) => [(cell % width) * c + c / 2, Math.floor(cell / width) * c + c / 2];
    const stood = (side, id) => {
      const u = (view.prev !== null && view.prev.units[side].get(id)) || view.state.units[side].get(id);
      return u === undefined ? null : [u.x * c + c / 2, u.y * c + c / 2];
    };
    // Attacks: a strike from the attacker (where it stood) to the target cell.
    for (let i = 0; i + 2 < attacks.length; i += 3) {
      const [tx, ty] = center(attacks[i + 2]);
      const from = stood(attacks[i], attacks[i + 1]);
      if (from !== null) {
        ctx.strokeStyle = SIDE_COLORS[attacks[i]];
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(from[0], from[1]);
        ctx.lineTo(tx, ty);
        ctx.stroke();
      }
      this._burst(tx, ty, c * 0.45);
    }
    // Deaths: a cross where the unit stood.
    for (let i = 0; i + 1 < deaths.length; i += 2) {
      const at = view.prev === null ? null : view.prev.units[deaths[i]].get(deaths[i + 1]);
      if (at !== undefined && at !== null) {
        this._cross(at.x * c + c / 2, at.y * c + c / 2, c * 0.4, SIDE_COLORS[deaths[i]], 3);
      }
    }
    // Spawns: a ring around the new unit.
    for (let i = 0; i + 3 < spawns.length; i += 4) {
      const [x, y] = center(spawns[i + 3]);
      ctx.strokeStyle = "#ffffff";
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.arc(x, y, c * 0.55, 0, 2 * Math.PI);
      ctx.stroke();
    }
    // Deposits: the amount, in gold, above the worker.
    ctx.font = `bold ${Math.max(9, Math.round(c * 0.7))}px system-ui, sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    for (let i = 0; i + 2 < deposits.length; i += 3) {
      const at = stood(deposits[i], deposits[i + 1]);
      if (at === null) continue;
      ctx.lineWidth = 3;
      ctx.strokeStyle = "#000";
      ctx.strokeText(`+${deposits[i + 2]}`, at[0], at[1] - c * 0.3);
      ctx.fillStyle = GOLD;
      ctx.fillText(`+${deposits[i + 2]}`, at[0], at[1] - c * 0.3);
    }
  }

  _drawVision(seen, side) {
    const { ctx, cell: c, replay } = this;
    const { width, height } = replay;
    ctx.fillStyle = "rgba(0, 0, 0, 0.6)";
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (!seen[y * width + x]) ctx.fillRect(x * c, y * c, c, c);
      }
    }
    // The edge of what is seen, in the side's colour.
    ctx.strokeStyle = SIDE_COLORS[side];
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (!seen[y * width + x]) continue;
        const i = y * width + x;
        if (x === 0 || !seen[i - 1]) this._edge(x * c, y * c, x * c, (y + 1) * c);
        if (x === width - 1 || !seen[i + 1]) this._edge((x + 1) * c, y * c, (x + 1) * c, (y + 1) * c);
        if (y === 0 || !seen[i - width]) this._edge(x * c, y * c, (x + 1) * c, y * c);
        if (y === height - 1 || !seen[i + width]) this._edge(x * c, (y + 1) * c, (x + 1) * c, (y + 1) * c);
      }
    }
    ctx.stroke();
  }

  _edge(x0, y0, x1, y1) {
    this.ctx.moveTo(x0, y0);
    this.ctx.lineTo(x1, y1);
  }

  _cross(x, y, r, color, width) {
    const ctx = this.ctx;
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.beginPath();
    ctx.moveTo(x - r, y - r);
    ctx.lineTo(x + r, y + r);
    ctx.moveTo(x + r, y - r);
    ctx.lineTo(x - r, y + r);
    ctx.stroke();
  }

  _burst(x, y, r) {
    const ctx = this.ctx;
    ctx.strokeStyle = HIT;
    ctx.lineWidth = 2;
    ctx.beginPath();
    for (let k = 0; k < 8; k++) {
      const a = (k * Math.PI) / 4;
      ctx.moveTo(x + Math.cos(a) * r * 0.35, y + Math.sin(a) * r * 0.35);
      ctx.lineTo(x + Math.cos(a) * r, y + Math.sin(a) * r);
    }
    ctx.stroke();
  }
}
