// A small economy bot written with the AssemblyScript SDK (baselines/foray.ts):
// workers follow a distance field to the nearest ore it knows of (the map's ore
// at tick 0, less the cells seen empty since) and one home to bank it; soldiers
// strike an adjacent enemy, else stand guard a few steps out towards the enemy,
// off the cells where workers deposit. Its note says how many workers and
// soldiers it has, built without allocating (say, sayMore, sayInt).
import * as foray from "../../baselines/foray";

const WORKERS = 8;
const home = new StaticArray<u16>(foray.MAX_CELLS);
const toOre = new StaticArray<u16>(foray.MAX_CELLS);
const toEnemy = new StaticArray<u16>(foray.MAX_CELLS);
const sources = new StaticArray<i32>(foray.MAX_CELLS);
// 1 where ore may still be: the tick-0 ore cells, cleared once seen empty.
const ore = new StaticArray<u8>(foray.MAX_CELLS);
// Cells taken this tick (stamped with tick + 1): where a unit stays or is going.
const taken = new StaticArray<i32>(foray.MAX_CELLS);

function botInit(game: foray.Init): void {
  foray.bfsFrom(home, game.colonyX, game.colonyY);
  foray.bfsFrom(toEnemy, game.enemyColonyX, game.enemyColonyY);
  for (let k = 0; k < game.nOre; k++) ore[foray.cell(game.ore(k).x, game.ore(k).y)] = 1;
}

// Step u down the field to a neighbour no other unit takes, or sidestep at random
// when there is none (moves into one cell all fail); claim where it goes.
function go(acts: foray.Actions, u: foray.Unit, field: StaticArray<u16>, stamp: i32): void {
  let best = 0;
  let bestD: i32 = field[foray.cell(u.x, u.y)];
  for (let d = 1; d <= 4; d++) {
    const x = u.x + foray.DX[d];
    const y = u.y + foray.DY[d];
    if (!foray.passable(x, y) || taken[foray.cell(x, y)] == stamp) continue;
    if (<i32>field[foray.cell(x, y)] < bestD) {
      best = d;
      bestD = field[foray.cell(x, y)];
    }
  }
  if (best == 0) {
    const d = 1 + foray.rng.below(4);
    const x = u.x + foray.DX[d];
    const y = u.y + foray.DY[d];
    if (foray.passable(x, y) && taken[foray.cell(x, y)] != stamp) best = d;
  }
  if (best != 0 && acts.move(u, best)) {
    taken[foray.cell(u.x + foray.DX[best], u.y + foray.DY[best])] = stamp;
  }
}

// Strike the first enemy next to u; true if it did.
function strike(obs: foray.Obs, acts: foray.Actions, u: foray.Unit): bool {
  for (let k = 0; k < obs.nEnemy; k++) {
    const e = obs.enemy(k);
    const d = foray.dirTo(u.x, u.y, e.x, e.y);
    if (d > 0) return acts.attack(u, d);
  }
  return false;
}

function botTick(obs: foray.Obs, acts: foray.Actions): void {
  // A remembered ore cell in a unit's sight (rules §3.3) and not listed is empty.
  // (taken marks the listed cells with -stamp first; the units' cells come after.)
  const stamp = obs.tick + 1;
  for (let k = 0; k < obs.nOre; k++) taken[foray.cell(obs.ore(k).x, obs.ore(k).y)] = -stamp;
  const w = foray.game.width;
  const area = w * foray.game.height;
  let n = 0;
  for (let c = 0; c < area; c++) {
    if (ore[c] == 0) continue;
    for (let i = 0; i < obs.nOwn && taken[c] != -stamp; i++) {
      const u = obs.own(i);
      if (foray.chebyshev(u.x, u.y, c % w, c / w) <= foray.game.unitVision) ore[c] = 0;
    }
    if (ore[c] != 0) sources[n++] = c;
  }
  // One field for every worker: the distance to the nearest ore it knows of.
  foray.bfs(toOre, sources, n);
  for (let i = 0; i < obs.nOwn; i++) taken[foray.cell(obs.own(i).x, obs.own(i).y)] = stamp;

  let workers = 0;
  let soldiers = 0;
  for (let i = 0; i < obs.nOwn; i++) {
    const u = obs.own(i);
    const here = foray.cell(u.x, u.y);
    if (u.kind == foray.Kind.SOLDIER) {
      soldiers++;
      if (!strike(obs, acts, u) && home[here] < 4) go(acts, u, toEnemy, stamp);
      continue;
    }
    workers++;
    if (u.carry >= foray.game.carryCap || (u.carry > 0 && n == 0)) {
      if (home[here] == 1) acts.deposit(u);
      else go(acts, u, home, stamp);
      continue;
    }
    for (let k = 0; k < obs.nOre && !acts.acted(u); k++) {
      const d = foray.dirTo(u.x, u.y, obs.ore(k).x, obs.ore(k).y);
      if (d >= 0) acts.mine(u, d);
    }
    if (!acts.acted(u) && n > 0) go(acts, u, toOre, stamp);
  }
  const kind = workers < WORKERS ? foray.Kind.WORKER : foray.Kind.SOLDIER;
  const cost = kind == foray.Kind.WORKER ? foray.game.workerCost : foray.game.soldierCost;
  if (obs.energy >= cost) acts.spawn(kind);

  // The tick, negated, after a non-ASCII dot: the test reads every note back.
  foray.say("workers ");
  foray.sayInt(workers);
  foray.sayMore(", soldiers ");
  foray.sayInt(soldiers);
  foray.sayMore(" \u00b7 ");
  foray.sayInt(-obs.tick);
}

export function foray_buffer(): i32 {
  return foray.buffer();
}
export function foray_init(len: i32): i32 {
  return foray.init(len, botInit);
}
export function foray_tick(len: i32): i32 {
  return foray.tick(len, botTick);
}
export function foray_note(): i32 {
  return foray.note();
}
