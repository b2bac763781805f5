// foray.ts -- the Foray controller contract (ABI version 1) for AssemblyScript.
//
// The AssemblyScript twin of foray.h and foray.zig. A controller is one file
// (the entry file of the build) that imports this one, defines two functions
// and exports the entry points the host calls:
//
//     import * as foray from "./foray";
//     function botInit(game: foray.Init): void { ... }
//     function botTick(obs: foray.Obs, acts: foray.Actions): void { ... }
//     export function foray_buffer(): i32 { return foray.buffer(); }
//     export function foray_init(len: i32): i32 { return foray.init(len, botInit); }
//     export function foray_tick(len: i32): i32 { return foray.tick(len, botTick); }
//
// Everything is in the controller's own view (docs/rules.md §3): its colony is
// always at the same place; directions are HERE, NORTH (y-1), EAST (x+1),
// SOUTH (y+1), WEST (x-1). The emitters refuse any action the contract would
// punish, so a bot built on them cannot forfeit with invalid_action.
//
// Build with the pinned compiler (baselines/assemblyscript/, `npm ci` there):
//     asc bot.ts -o bot.wasm -O3 --noAssert --runtime stub --use abort= --noColors
// The stub runtime never frees: allocate (`new`, string concatenation) only at
// the top level, which runs once when the module starts, and never during a
// tick, or memory grows every tick. `--use abort=` turns a failed check (an
// index out of range, a `throw`) into a trap instead of the import env.abort,
// which would make the module inadmissible.

/** The contract's version (INIT word 0). */
export const ABI_VERSION: i32 = 1;
export const BUFFER_BYTES: i32 = 65536;
export const MAX_SIDE: i32 = 64;
export const MAX_CELLS: i32 = MAX_SIDE * MAX_SIDE;
/** The largest max_units a case may set. */
export const MAX_UNITS: i32 = 64;
/** The id the colony acts under (SPAWN or NOOP only). */
export const COLONY_ID: i32 = 0;

// The wire layout: INIT has 24 words, then the terrain bytes at byte 96
// (row-major, 0 open 1 rock), zero padding to a multiple of 4, then n_ore
// records of 3 words. OBS has 16 words, then n_own and n_enemy unit records
// of 6 words, then n_ore ore records of 3 words.
export const INIT_WORDS: i32 = 24;
export const INIT_TERRAIN_BYTE: i32 = 96;
export const OBS_WORDS: i32 = 16;
export const UNIT_BYTES: i32 = 24;
export const ORE_BYTES: i32 = 12;
export const ACTION_BYTES: i32 = 12;

export enum Op {
  NOOP = 0,
  MOVE = 1,
  ATTACK = 2,
  MINE = 3,
  DEPOSIT = 4,
  SPAWN = 5,
}

export enum Kind {
  WORKER = 1,
  SOLDIER = 2,
}

export enum Dir {
  HERE = 0,
  NORTH = 1,
  EAST = 2,
  SOUTH = 3,
  WEST = 4,
}

/** Steps of each direction, indexed by its number. */
export const DX: StaticArray<i32> = [0, 0, 1, 0, -1];
export const DY: StaticArray<i32> = [0, -1, 0, 1, 0];

// ------------------------------------------------------------------ records

/** A unit: 6 words, read in place from the OBS message. */
@unmanaged
export class Unit {
  id: i32;
  kind: i32;
  x: i32;
  y: i32;
  hp: i32;
  carry: i32;
}

/** A cell holding ore: 3 words. */
@unmanaged
export class Ore {
  x: i32;
  y: i32;
  amount: i32;
}

// ------------------------------------------------------------------ state

// The I/O buffer and the copies kept from INIT: static memory, never allocated.
const io: usize = memory.data(BUFFER_BYTES, 16);
const oreCopy: usize = memory.data(MAX_CELLS * ORE_BYTES, 16);
// One tick's records and which units have one: [0] the colony, [1 + i] obs.own(i).
const records: usize = memory.data((MAX_UNITS + 1) * ACTION_BYTES, 16);
const used: usize = memory.data(MAX_UNITS + 1);
const bfsQueue: usize = memory.data(MAX_CELLS * 4, 16);

// @ts-ignore: decorator
@inline
function word(offset: i32): i32 {
  return load<i32>(io + <usize>offset);
}

/** Trap on an index outside 0..n-1, as AssemblyScript's arrays do. */
// @ts-ignore: decorator
@inline
function checkIndex(i: i32, n: i32): void {
  if (<u32>i >= <u32>n) unreachable();
}

/** The INIT message: the match, kept for its whole length. */
export class Init {
  abiVersion: i32 = 0;
  width: i32 = 0;
  height: i32 = 0;
  maxTicks: i32 = 0;
  /** The match seed, unsigned (rules §9.1); both sides get the same one. */
  seed: u32 = 0;
  colonyX: i32 = 0;
  colonyY: i32 = 0;
  enemyColonyX: i32 = 0;
  enemyColonyY: i32 = 0;
  startEnergy: i32 = 0;
  workerCost: i32 = 0;
  soldierCost: i32 = 0;
  workerHp: i32 = 0;
  soldierHp: i32 = 0;
  soldierAttack: i32 = 0;
  carryCap: i32 = 0;
  colonyHp: i32 = 0;
  unitVision: i32 = 0;
  colonyVision: i32 = 0;
  maxUnits: i32 = 0;
  fuelPerTick: i32 = 0;
  maxMemoryBytes: i32 = 0;
  /** The number of cells holding ore at tick 0 (the whole map). */
  nOre: i32 = 0;
  /** width*height bytes, index y*width+x: 0 open, 1 rock. */
  terrain: StaticArray<u8> = new StaticArray<u8>(MAX_CELLS);

  /** Cell k (0..nOre-1) of those holding ore at tick 0, sorted by (y, x). */
  ore(k: i32): Ore {
    checkIndex(k, this.nOre);
    return changetype<Ore>(oreCopy + <usize>(k * ORE_BYTES));
  }
}

/** One tick's OBS message. The units and ores live in the I/O buffer: valid during botTick only. */
export class Obs {
  tick: i32 = 0;
  banked: i32 = 0;
  energy: i32 = 0;
  colonyHp: i32 = 0;
  enemyBanked: i32 = 0;
  /** -1 while the enemy colony is unseen. */
  enemyColonyHp: i32 = 0;
  lastFuel: i32 = 0;
  nOwn: i32 = 0;
  nEnemy: i32 = 0;
  nOre: i32 = 0;

  /** Your living unit i (0..nOwn-1), sorted by id: the roster. */
  own(i: i32): Unit {
    checkIndex(i, this.nOwn);
    return changetype<Unit>(io + <usize>(OBS_WORDS * 4 + i * UNIT_BYTES));
  }
  /** Visible enemy unit i (0..nEnemy-1), sorted by id. */
  enemy(i: i32): Unit {
    checkIndex(i, this.nEnemy);
    return changetype<Unit>(io + <usize>(OBS_WORDS * 4 + (this.nOwn + i) * UNIT_BYTES));
  }
  /** Visible cell k (0..nOre-1) holding ore, sorted by (y, x). */
  ore(k: i32): Ore {
    checkIndex(k, this.nOre);
    const units = this.nOwn + this.nEnemy;
    return changetype<Ore>(io + <usize>(OBS_WORDS * 4 + units * UNIT_BYTES + k * ORE_BYTES));
  }
}

/** The actions of one tick. Emit them with the methods below. */
export class Actions {
  /** How many actions are recorded so far. */
  n: i32 = 0;

  /** Record an action for one of this tick's units (u must come from obs.own).
   * False if refused: the unit already acted, is not on the roster, or op/arg is malformed. */
  act(u: Unit, op: i32, arg: i32): bool {
    const slot = ownSlot(u);
    if (slot < 0 || load<u8>(used + <usize>slot) != 0) return false;
    let ok = false;
    switch (op) {
      case Op.NOOP:
      case Op.DEPOSIT:
        ok = arg == 0;
        break;
      case Op.MOVE:
      case Op.ATTACK:
        ok = arg >= 1 && arg <= 4;
        break;
      case Op.MINE:
        ok = arg >= 0 && arg <= 4;
        break;
      default:
        ok = false; // SPAWN belongs to the colony
    }
    if (!ok) return false;
    store<u8>(used + <usize>slot, 1);
    this.record(u.id, op, arg);
    return true;
  }
  move(u: Unit, dir: i32): bool {
    return this.act(u, Op.MOVE, dir);
  }
  attack(u: Unit, dir: i32): bool {
    return this.act(u, Op.ATTACK, dir);
  }
  mine(u: Unit, dir: i32): bool {
    return this.act(u, Op.MINE, dir);
  }
  deposit(u: Unit): bool {
    return this.act(u, Op.DEPOSIT, 0);
  }
  /** The colony's one spawn of the tick (Kind.WORKER or Kind.SOLDIER). */
  spawn(kind: i32): bool {
    if (load<u8>(used) != 0 || (kind != Kind.WORKER && kind != Kind.SOLDIER)) return false;
    store<u8>(used, 1);
    this.record(COLONY_ID, Op.SPAWN, kind);
    return true;
  }
  /** Whether u already has an action this tick (false for a unit off the roster). */
  acted(u: Unit): bool {
    const slot = ownSlot(u);
    return slot >= 0 && load<u8>(used + <usize>slot) != 0;
  }

  private record(unitId: i32, op: i32, arg: i32): void {
    const at = records + <usize>(this.n * ACTION_BYTES);
    store<i32>(at, unitId);
    store<i32>(at, op, 4);
    store<i32>(at, arg, 8);
    this.n += 1;
  }
}

/** The match, readable anywhere after init. */
export const game = new Init();
/** 1 where a unit may stand: open and not a colony (index y*width+x). */
export const walkable = new StaticArray<u8>(MAX_CELLS);
const obsNow = new Obs();
const actsNow = new Actions();

/** u's slot in `used` (1 + its index in obs.own), or -1 if u is not on this tick's roster. */
function ownSlot(u: Unit): i32 {
  const first = io + <usize>(OBS_WORDS * 4);
  const at = changetype<usize>(u);
  if (at < first || at >= first + <usize>(obsNow.nOwn * UNIT_BYTES)) return -1;
  const offset = <i32>(at - first);
  if (offset % UNIT_BYTES != 0) return -1;
  return 1 + offset / UNIT_BYTES;
}

// ------------------------------------------------------------------ helpers

export function manhattan(x0: i32, y0: i32, x1: i32, y1: i32): i32 {
  return abs<i32>(x0 - x1) + abs<i32>(y0 - y1);
}
export function chebyshev(x0: i32, y0: i32, x1: i32, y1: i32): i32 {
  return max<i32>(abs<i32>(x0 - x1), abs<i32>(y0 - y1));
}
/** The direction reversed: N<->S, E<->W, HERE stays. */
export function opposite(dir: i32): i32 {
  return dir == Dir.HERE ? Dir.HERE : ((dir + 1) & 3) + 1;
}
/** The direction from (x0, y0) to the 4-adjacent (x1, y1) or the same cell (HERE); -1 otherwise. */
export function dirTo(x0: i32, y0: i32, x1: i32, y1: i32): i32 {
  for (let d = 0; d < 5; d++) {
    if (x0 + unchecked(DX[d]) == x1 && y0 + unchecked(DY[d]) == y1) return d;
  }
  return -1;
}
export function inBounds(x: i32, y: i32): bool {
  return x >= 0 && y >= 0 && x < game.width && y < game.height;
}
/** The index of (x, y) in the per-cell arrays: y*width+x. */
export function cell(x: i32, y: i32): i32 {
  return y * game.width + x;
}
export function isColony(x: i32, y: i32): bool {
  return (
    (x == game.colonyX && y == game.colonyY) || (x == game.enemyColonyX && y == game.enemyColonyY)
  );
}
/** Whether a unit may stand on (x, y): on the map, open, not a colony. */
export function passable(x: i32, y: i32): bool {
  return inBounds(x, y) && unchecked(walkable[cell(x, y)]) != 0;
}

/** A small seeded PRNG (xorshift32 behind a splitmix32 seeding), as in foray.h. */
export class Rng {
  s: u32 = 1;
  seed(seed: u32, stream: u32): void {
    let z: u32 = seed + 0x9e3779b9 * (stream + 1);
    z = (z ^ (z >> 16)) * 0x85ebca6b;
    z = (z ^ (z >> 13)) * 0xc2b2ae35;
    z ^= z >> 16;
    this.s = z != 0 ? z : 0x6d2b79f5; // xorshift must not start at 0
  }
  next(): u32 {
    let x = this.s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    this.s = x;
    return x;
  }
  /** An integer in 0..n-1 (n >= 1). */
  below(n: i32): i32 {
    return n <= 1 ? 0 : <i32>(this.next() % <u32>n);
  }
}

/** Seeded from the match seed at init; both sides get the same seed. */
export const rng = new Rng();

// ------------------------------------------------------------------ BFS distance fields

/** The distance of an unreachable cell. */
export const FAR: u16 = 0xffff;
const oneSource = new StaticArray<i32>(1);

/** Fill dist (at least width*height long) with the 4-connected step count from the
 * nearest of the first n sources (cell indices y*width+x; a source may be a colony or
 * rock cell: it gets 0 but nothing is entered through it). Units walk only on passable
 * cells, so from the own colony as the source, dist == 1 marks the cells where a worker
 * can deposit. */
export function bfs(dist: StaticArray<u16>, sources: StaticArray<i32>, n: i32): void {
  const w = game.width;
  const area = w * game.height;
  if (dist.length < area || n > sources.length) unreachable();
  for (let i = 0; i < area; i++) unchecked(dist[i] = FAR);
  let head = 0;
  let tail = 0;
  for (let k = 0; k < n; k++) {
    const c = unchecked(sources[k]);
    if (c >= 0 && c < area && unchecked(dist[c]) != 0) {
      unchecked(dist[c] = 0);
      store<i32>(bfsQueue + <usize>(tail++ << 2), c);
    }
  }
  while (head < tail) {
    const c = load<i32>(bfsQueue + <usize>(head++ << 2));
    const x = c % w;
    const nd = <u16>(unchecked(dist[c]) + 1);
    // Unrolled over the four neighbours: this loop is most of a bot's fuel.
    if (c >= w) tail = visit(dist, c - w, nd, tail);
    if (x + 1 < w) tail = visit(dist, c + 1, nd, tail);
    if (c + w < area) tail = visit(dist, c + w, nd, tail);
    if (x > 0) tail = visit(dist, c - 1, nd, tail);
  }
}

// @ts-ignore: decorator
@inline
function visit(dist: StaticArray<u16>, c: i32, nd: u16, tail: i32): i32 {
  if (unchecked(walkable[c]) != 0 && unchecked(dist[c]) == FAR) {
    unchecked(dist[c] = nd);
    store<i32>(bfsQueue + <usize>(tail << 2), c);
    return tail + 1;
  }
  return tail;
}

export function bfsFrom(dist: StaticArray<u16>, x: i32, y: i32): void {
  unchecked(oneSource[0] = cell(x, y));
  bfs(dist, oneSource, 1);
}

/** A direction from (x, y) to a passable neighbour with a smaller dist, the smallest
 * first; HERE if there is none (already at a minimum). */
export function stepDown(dist: StaticArray<u16>, x: i32, y: i32): i32 {
  let best = Dir.HERE;
  let bestD: u32 = dist[cell(x, y)];
  for (let d = 1; d <= 4; d++) {
    const nx = x + unchecked(DX[d]);
    const ny = y + unchecked(DY[d]);
    if (!passable(nx, ny)) continue;
    const nd: u32 = dist[cell(nx, ny)];
    if (nd < bestD) {
      bestD = nd;
      best = d;
    }
  }
  return best;
}

// ------------------------------------------------------------------ debug notes

/** The longest note the host keeps (rules §9.9). */
export const NOTE_BYTES: i32 = 256;
const noteText: usize = memory.data(NOTE_BYTES);
let noteLen: i32 = 0;

/** Leave a debug note for this tick: the host records it in the replay next to your
 * side (at most 256 bytes of UTF-8; the rest is cut at a character's boundary). It
 * costs fuel and never changes the game. Nothing is allocated, so pass a literal or
 * a string made at the top level, and add numbers with sayInt: a string built during
 * a tick ("n=" + n.toString()) is allocated and never freed. Notes are kept only by
 * a bot that exports foray_note:
 *     export function foray_note(): i32 { return foray.note(); }
 */
export function say(text: string): void {
  noteLen = 0;
  sayMore(text);
}

/** Add text to this tick's note. */
export function sayMore(text: string): void {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    let c = <u32>text.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
      const low = <u32>text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (!putChar(c)) return;
  }
}

/** Add a number, in decimal, to this tick's note. */
export function sayInt(value: i32): void {
  let v = <u32>value;
  if (value < 0) {
    if (!putChar(0x2d)) return; // "-"
    v = <u32>-value;
  }
  let digits: u32 = 1;
  for (let t = v; t >= 10; t /= 10) digits *= 10;
  for (; digits > 0; digits /= 10) {
    if (!putChar(0x30 + (v / digits) % 10)) return;
  }
}

/** Append code point c as UTF-8; false (and nothing written) if it does not fit. */
function putChar(c: u32): bool {
  const size: i32 = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  if (noteLen + size > NOTE_BYTES) return false;
  const at = noteText + <usize>noteLen;
  if (size == 1) {
    store<u8>(at, c);
  } else if (size == 2) {
    store<u8>(at, 0xc0 | (c >> 6));
    store<u8>(at, 0x80 | (c & 0x3f), 1);
  } else if (size == 3) {
    store<u8>(at, 0xe0 | (c >> 12));
    store<u8>(at, 0x80 | ((c >> 6) & 0x3f), 1);
    store<u8>(at, 0x80 | (c & 0x3f), 2);
  } else {
    store<u8>(at, 0xf0 | (c >> 18));
    store<u8>(at, 0x80 | ((c >> 12) & 0x3f), 1);
    store<u8>(at, 0x80 | ((c >> 6) & 0x3f), 2);
    store<u8>(at, 0x80 | (c & 0x3f), 3);
  }
  noteLen += size;
  return true;
}

/** The note of this tick, written at the buffer's start (for `export function foray_note`). */
export function note(): i32 {
  memory.copy(io, noteText, <usize>noteLen);
  return noteLen;
}

// ------------------------------------------------------------------ the exports

/** The I/O buffer's address (for `export function foray_buffer`). */
export function buffer(): i32 {
  return <i32>io;
}

/** Decode INIT, keep copies of the terrain and the ore, call botInit (for `export
 * function foray_init`). A non-zero return fails the init: only for a message this
 * SDK cannot read. */
export function init(len: i32, botInit: (game: Init) => void): i32 {
  if (len < INIT_TERRAIN_BYTE || word(0) != ABI_VERSION) return 1;
  const w = word(4);
  const h = word(8);
  if (w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE) return 1;
  const area = w * h;
  const oreAt = INIT_TERRAIN_BYTE + ((area + 3) & ~3);
  const nOre = word(88);
  if (nOre < 0 || nOre > area || oreAt + nOre * ORE_BYTES > len) return 1;
  const g = game;
  g.abiVersion = word(0);
  g.width = w;
  g.height = h;
  g.maxTicks = word(12);
  g.seed = <u32>word(16);
  g.colonyX = word(20);
  g.colonyY = word(24);
  g.enemyColonyX = word(28);
  g.enemyColonyY = word(32);
  g.startEnergy = word(36);
  g.workerCost = word(40);
  g.soldierCost = word(44);
  g.workerHp = word(48);
  g.soldierHp = word(52);
  g.soldierAttack = word(56);
  g.carryCap = word(60);
  g.colonyHp = word(64);
  g.unitVision = word(68);
  g.colonyVision = word(72);
  g.maxUnits = word(76);
  g.fuelPerTick = word(80);
  g.maxMemoryBytes = word(84);
  g.nOre = nOre;
  memory.copy(changetype<usize>(g.terrain), io + <usize>INIT_TERRAIN_BYTE, <usize>area);
  memory.copy(oreCopy, io + <usize>oreAt, <usize>(nOre * ORE_BYTES));
  for (let i = 0; i < area; i++) unchecked(walkable[i] = unchecked(g.terrain[i]) == 0 ? 1 : 0);
  if (inBounds(g.colonyX, g.colonyY)) unchecked(walkable[cell(g.colonyX, g.colonyY)] = 0);
  if (inBounds(g.enemyColonyX, g.enemyColonyY)) {
    unchecked(walkable[cell(g.enemyColonyX, g.enemyColonyY)] = 0);
  }
  rng.seed(g.seed, 0);
  botInit(g);
  return 0;
}

function clampCount(value: i32, most: i32): i32 {
  return value < 0 ? 0 : min<i32>(value, most);
}

/** Decode OBS, call botTick, then (only then: they share the buffer) write the action
 * records at the buffer's start (for `export function foray_tick`). */
export function tick(len: i32, botTick: (obs: Obs, acts: Actions) => void): i32 {
  const o = obsNow;
  o.tick = word(0);
  o.banked = word(4);
  o.energy = word(8);
  o.colonyHp = word(12);
  o.enemyBanked = word(16);
  o.enemyColonyHp = word(20);
  // Clamp the counts to what fits, so a bot never reads past the buffer.
  let room = (BUFFER_BYTES - OBS_WORDS * 4) / 4;
  o.nOwn = clampCount(word(24), MAX_UNITS);
  room -= o.nOwn * 6;
  o.nEnemy = clampCount(word(28), MAX_UNITS);
  room -= o.nEnemy * 6;
  o.nOre = clampCount(word(32), room / 3);
  o.lastFuel = word(36);
  const a = actsNow;
  a.n = 0;
  memory.fill(used, 0, <usize>(o.nOwn + 1));
  noteLen = 0;
  botTick(o, a);
  memory.copy(io, records, <usize>(a.n * ACTION_BYTES));
  return a.n;
}
