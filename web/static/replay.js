// The replay model: the objects of a replay stream, and the drawn state of any tick.
//
// A port of replays/_states.py (the wire format is the docstring of
// replays/_format.py). States are rebuilt from the latest keyframe at or before
// a tick, applying the delta frames after it in order: drop the dead, move the
// survivors by "m", apply "h", add the spawned, set the ore of "o". A delta that
// does not fit the state before it is a ReplayError naming the tick, as in Python.
// Each side's memory (version 3's "l", only where a size changed and at keyframe
// ticks) is filled in for every frame, as replays.memory_series does.
//
// The constants below copy Python's (replays, sim, and the reader's decoder bounds,
// replays.ReplayLimits.decoder_bounds); tests/test_viewer.py compares every one.

import { decodeMultiStream } from "./vendor/msgpack/decodeAsync.mjs";

export const FORMAT = "foray-replay";
/**
 * Format versions this viewer reads (version 2 differs only in the checksum's value;
 * version 3 is version 2 with each side's memory, "l").
 */
export const VERSIONS = [1, 2, 3];
/** The first version whose frames record each side's memory. */
export const MEMORY_VERSION = 3;
export const KEYFRAME_INTERVAL = 20;
export const WORKER = 1;
export const SOLDIER = 2;
/** (dx, dy) of the absolute directions 0 stayed, 1 N, 2 E, 3 S, 4 W. */
export const DIRECTION_DELTAS = [
  [0, 0],
  [0, -1],
  [1, 0],
  [0, 1],
  [-1, 0],
];

/** The decoder's own bounds, those of the Python reader (replays.ReplayLimits.decoder_bounds). */
export const DECODE_LIMITS = {
  maxStrLength: 4096,
  maxBinLength: 4096,
  maxArrayLength: 2 * 64 * 64,
  maxMapLength: 32,
  maxExtLength: 0,
};

export class ReplayError extends Error {
  constructor(message, tick = null) {
    super(message);
    this.name = "ReplayError";
    this.tick = tick;
  }
}

/** A unit as drawn: its side's id, kind, absolute cell, hp and ore carried. */
class Unit {
  constructor(id, kind, x, y, hp, carry) {
    this.id = id;
    this.kind = kind;
    this.x = x;
    this.y = y;
    this.hp = hp;
    this.carry = carry;
  }
}

/**
 * The drawn state after an applied tick: per side a Map of the living units by
 * id (in ascending id order), colony hp, banked, energy, and the ore of every cell.
 */
export class State {
  constructor(tick, units, colonyHp, banked, energy, ore) {
    this.tick = tick;
    this.units = units;
    this.colonyHp = colonyHp;
    this.banked = banked;
    this.energy = energy;
    this.ore = ore;
  }

  clone() {
    const units = this.units.map(
      (side) => new Map([...side].map(([id, u]) => [id, new Unit(id, u.kind, u.x, u.y, u.hp, u.carry)])),
    );
    return new State(this.tick, units, this.colonyHp, this.banked, this.energy, this.ore.slice());
  }

  /** The shape of Python's replays.FrameState, for comparing the two. */
  toPlain() {
    return {
      tick: this.tick,
      units: this.units.map((side) => [...side.values()].map((u) => [u.id, u.kind, u.x, u.y, u.hp, u.carry])),
      colony_hp: [...this.colonyHp],
      banked: [...this.banked],
      energy: [...this.energy],
      ore: Array.from(this.ore),
    };
  }
}

function misfit(tick, path, message) {
  return new ReplayError(`frame of tick ${tick}: field '${path}': ${message}`, tick);
}

function isForfeitFrame(frame) {
  return !("k" in frame);
}

/** A replay as it streams in: the header, the frames so far, the result once read. */
export class Replay {
  constructor(header) {
    if (header === null || typeof header !== "object" || header.type !== "header") {
      throw new ReplayError("the stream does not start with a replay header");
    }
    if (header.format !== FORMAT) {
      throw new ReplayError(`header: format ${JSON.stringify(header.format)} is not ${FORMAT}`);
    }
    if (!VERSIONS.includes(header.version)) {
      throw new ReplayError(
        `header: format version ${JSON.stringify(header.version)} is not supported (only ${VERSIONS.join(", ")})`,
      );
    }
    this.header = header;
    this.config = header.config;
    this.width = header.map.width;
    this.height = header.map.height;
    /** The wire objects of the frames read so far; frames[t] is tick t. */
    this.frames = [];
    this.result = null;
    /** The frame of the tick a side forfeited in (not applied; the last frame), if any. */
    this.forfeitFrame = null;
    this._keyStates = new Map();
    this._hpOf = { [WORKER]: this.config.worker_hp, [SOLDIER]: this.config.soldier_hp };
    /** Whether frames record each side's memory size (format version 3). */
    this.recordsMemory = header.version >= MEMORY_VERSION;
    // Per tick, for the charts: banked, fuel, memory (bytes, or null before version 3),
    // workers and soldiers per side.
    this.series = {
      banked: [[], []],
      fuel: [[], []],
      memory: [[], []],
      workers: [[], []],
      soldiers: [[], []],
    };
    this._live = null; // the state after the last applied frame read
    this._memory = null; // the sizes the frames so far leave
  }

  /** Frames read so far (ticks 0 .. ticks-1, the forfeit frame included). */
  get ticks() {
    return this.frames.length;
  }

  get complete() {
    return this.result !== null;
  }

  /** Take the next frame of the stream; throws ReplayError if it does not fit. */
  addFrame(frame) {
    const t = this.frames.length;
    if (this.forfeitFrame !== null) {
      throw new ReplayError(`frame of tick ${t}: a frame after the forfeit frame of tick ${t - 1}`, t);
    }
    if (frame.t !== t) {
      throw new ReplayError(`frame of tick ${t}: field 't': expected tick ${t}, got ${frame.t}`, t);
    }
    const s = this.series;
    if (isForfeitFrame(frame)) {
      this.forfeitFrame = frame;
    } else if (t % KEYFRAME_INTERVAL === 0) {
      this._live = this._keyState(frame).clone(); // the cached keyframe state stays as it is
    } else if (this._live === null) {
      throw misfit(t, "m", "a delta frame with no keyframe before it");
    } else {
      this._applyDelta(this._live, frame);
    }
    if (this.recordsMemory) {
      if (Array.isArray(frame.l) && frame.l.length === 2) this._memory = frame.l;
      else if ("l" in frame || this._memory === null) {
        throw misfit(t, "l", "expected both sides' memory sizes (they start at tick 0)");
      }
    }
    this.frames.push(frame);
    const live = this._live;
    for (const side of [0, 1]) {
      s.fuel[side].push(frame.f[side]);
      s.memory[side].push(this._memory === null ? null : this._memory[side]);
      s.banked[side].push(live === null ? 0 : live.banked[side]);
      let workers = 0;
      let soldiers = 0;
      if (live !== null) {
        for (const u of live.units[side].values()) {
          if (u.kind === WORKER) workers++;
          else soldiers++;
        }
      }
      s.workers[side].push(workers);
      s.soldiers[side].push(soldiers);
    }
  }

  setResult(result) {
    if (result.ticks !== this.frames.length) {
      throw new ReplayError(`result: field 'ticks': ${result.ticks} differs from the ${this.frames.length} frame(s) read`);
    }
    this.result = result;
  }

  /** The index of the last applied frame, or -1. */
  get lastApplied() {
    return this.ticks - 1 - (this.forfeitFrame !== null ? 1 : 0);
  }

  /**
   * The drawn state after applied tick t (0 <= t <= lastApplied): from the latest
   * keyframe at or before t, then the delta frames after it. A new object each call.
   */
  stateAt(t) {
    if (!(t >= 0 && t <= this.lastApplied)) {
      throw new RangeError(`tick ${t} is not an applied tick of this replay (0..${this.lastApplied})`);
    }
    const k = t - (t % KEYFRAME_INTERVAL);
    const state = this._keyState(this.frames[k]).clone();
    for (let i = k + 1; i <= t; i++) this._applyDelta(state, this.frames[i]);
    return state;
  }

  /** The state after tick t from the state after tick t - 1 (changed in place). */
  advance(state, t) {
    const frame = this.frames[t];
    if (t % KEYFRAME_INTERVAL === 0) return this._keyState(frame).clone();
    this._applyDelta(state, frame);
    return state;
  }

  /** The (cached) state of a keyframe: its units "u" and its ore "g". */
  _keyState(frame) {
    let state = this._keyStates.get(frame.t);
    if (state === undefined) {
      const units = frame.u.map((flat) => {
        const side = new Map();
        for (let i = 0; i + 5 < flat.length; i += 6) {
          side.set(flat[i], new Unit(flat[i], flat[i + 1], flat[i + 2], flat[i + 3], flat[i + 4], flat[i + 5]));
        }
        return side;
      });
      const ore = new Float64Array(this.width * this.height);
      const g = frame.g;
      for (let i = 0; i + 1 < g.length; i += 2) ore[g[i]] = g[i + 1];
      state = new State(frame.t, units, frame.k, frame.b, frame.e, ore);
      this._keyStates.set(frame.t, state);
    }
    return state;
  }

  /** Turn the previous state into this delta frame's, in place, in the format's order. */
  _applyDelta(state, frame) {
    const t = frame.t;
    const { width, height } = this;
    const [, deaths, spawns] = frame.v;
    // 1. Drop the dead: units of the previous state.
    for (let i = 0; i + 1 < deaths.length; i += 2) {
      const side = deaths[i];
      const id = deaths[i + 1];
      if (!state.units[side].delete(id)) {
        throw misfit(t, `v.deaths[${i}]`, `unit ${id} of side ${side} is not alive in the previous state`);
      }
    }
    for (const side of [0, 1]) {
      const survivors = state.units[side];
      const moves = frame.m[side];
      // 2. Move the survivors, one byte each, in id order.
      if (moves.length !== survivors.size) {
        throw misfit(
          t,
          `m[${side}]`,
          `${moves.length} moves for the ${survivors.size} surviving unit(s) of the previous state`,
        );
      }
      let i = 0;
      for (const u of survivors.values()) {
        const d = DIRECTION_DELTAS[moves[i]];
        if (d === undefined) throw misfit(t, `m[${side}][${i}]`, `direction ${moves[i]} is outside 0..4`);
        const x = u.x + d[0];
        const y = u.y + d[1];
        if (!(x >= 0 && x < width && y >= 0 && y < height)) {
          throw misfit(t, `m[${side}][${i}]`, `unit ${u.id} at (${u.x}, ${u.y}) moves ${moves[i]} off the map`);
        }
        u.x = x;
        u.y = y;
        i++;
      }
      // 3. Apply the hp and carry changes.
      const h = frame.h[side];
      for (let j = 0; j + 2 < h.length; j += 3) {
        const u = survivors.get(h[j]);
        if (u === undefined) {
          throw misfit(
            t,
            `h[${side}][${j}:${j + 3}]`,
            `unit ${h[j]} is not a surviving unit of side ${side}'s previous state`,
          );
        }
        u.hp = h[j + 1];
        u.carry = h[j + 2];
      }
    }
    // 4. Add the spawned, with their kind's hp and nothing carried.
    for (let i = 0; i + 3 < spawns.length; i += 4) {
      const [side, id, kind, cell] = spawns.slice(i, i + 4);
      const path = `v.spawns[${i}]`;
      const living = state.units[side];
      let highest = 0;
      for (const uid of living.keys()) highest = uid; // ascending: the last is the highest
      if (id <= highest) throw misfit(t, path, `unit id ${id} is not above side ${side}'s highest living id ${highest}`);
      if (!(kind in this._hpOf)) throw misfit(t, path, `kind ${kind} is neither ${WORKER} nor ${SOLDIER}`);
      if (living.size >= this.config.max_units) {
        throw misfit(t, path, `side ${side} already has max_units ${this.config.max_units} units`);
      }
      const x = cell % width;
      const y = Math.floor(cell / width);
      if (!(cell >= 0 && y < height)) throw misfit(t, path, `cell ${cell} is off the map`);
      living.set(id, new Unit(id, kind, x, y, this._hpOf[kind], 0));
    }
    const o = frame.o;
    for (let i = 0; i + 1 < o.length; i += 2) state.ore[o[i]] = o[i + 1];
    state.tick = t;
    state.colonyHp = frame.k;
    state.banked = frame.b;
    state.energy = frame.e;
  }
}

/**
 * The cells side `side` sees in `state` (rules §3.3): the union of the Chebyshev
 * squares of radius unit_vision around its units and colony_vision around its
 * colony, clipped to the map. A Uint8Array of width * height, 1 = seen.
 */
export function visionMask(replay, state, side) {
  const { width, height, config } = replay;
  const seen = new Uint8Array(width * height);
  const square = (cx, cy, r) => {
    const x0 = Math.max(0, cx - r);
    const x1 = Math.min(width - 1, cx + r);
    for (let y = Math.max(0, cy - r); y <= Math.min(height - 1, cy + r); y++) {
      seen.fill(1, y * width + x0, y * width + x1 + 1);
    }
  };
  if (state !== null) {
    for (const u of state.units[side].values()) square(u.x, u.y, config.unit_vision);
  }
  const [cx, cy] = replay.header.map.colonies[side];
  square(cx, cy, config.colony_vision);
  return seen;
}

/**
 * Fetch a replay and feed its objects to `sink` as they are decoded:
 * sink.response() once the response has arrived (if the sink has one),
 * sink.header(replay) once, sink.frames(replay) after each batch of frames
 * (one network chunk's worth), sink.done(replay) after the result. Rejects
 * with a ReplayError (or the fetch's error) at the first fault.
 */
export async function streamReplay(url, sink, { signal, headers = null } = {}) {
  // A plain GET, so that a page's <link rel="preload" as="fetch"> of the same address serves it
  // (`headers`: the console's token, for a replay that is not published).
  const response = await fetch(url, headers ? { signal, headers } : { signal });
  sink.response?.();
  if (!response.ok) {
    const text = (await response.text()).trim();
    throw new ReplayError(`cannot load the replay (HTTP ${response.status}): ${text || response.statusText}`);
  }
  let replay = null;
  let pending = 0; // frames decoded since the sink last heard
  const flush = () => {
    if (pending > 0) {
      pending = 0;
      sink.frames(replay);
    }
  };
  // Decode per network chunk, so the sink sees each chunk's frames at once.
  const chunks = countingChunks(response.body, () => flush());
  for await (const obj of decodeMultiStream(chunks, DECODE_LIMITS)) {
    if (replay === null) {
      replay = new Replay(obj);
      sink.header(replay);
      continue;
    }
    if (replay.complete) throw new ReplayError("bytes after the result");
    if (obj !== null && typeof obj === "object" && obj.type === "error") {
      // The server found a fault after the objects it had sent (docs/web.md).
      flush();
      throw new ReplayError(`the server stopped the replay: ${obj.detail}`);
    }
    if (obj !== null && typeof obj === "object" && obj.type === "result") {
      flush();
      replay.setResult(obj);
      continue;
    }
    replay.addFrame(obj);
    pending++;
    // The first frame is drawn at once, not after the rest of its chunk is decoded:
    // a preloaded replay may arrive whole, in one chunk. Then a task's pause, so that
    // the browser paints it before decoding the rest (which would otherwise run on,
    // chunk after chunk, before any paint).
    if (replay.ticks === 1) {
      flush();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
  flush();
  if (replay === null) throw new ReplayError("the replay is empty");
  if (!replay.complete) throw new ReplayError(`the replay ended after ${replay.ticks} frame(s), before its result`);
  sink.done(replay);
  return replay;
}

/** The body's chunks, calling `before` ahead of each one after the first (and at the end). */
async function* countingChunks(body, before) {
  const reader = body.getReader();
  try {
    let first = true;
    for (;;) {
      // The decoder asks for a chunk once it has handed out the last one's objects.
      if (!first) before();
      first = false;
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
