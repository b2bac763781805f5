// template.ts -- a minimal Foray controller in AssemblyScript to start from.
//
// The same bot as template.c: workers walk to the nearest ore they can see,
// mine it until full, walk home and deposit; the colony spawns workers while
// it can afford them. Soldiers are left idle. Everything the bot sees is in its
// own view, so the same code plays either side.
//
// Build (from the repository root, with the compiler pinned in
// baselines/assemblyscript/):
//   node baselines/assemblyscript/node_modules/assemblyscript/bin/asc.js \
//       baselines/template.ts -o my.wasm -O3 --noAssert --runtime stub \
//       --use abort= --noColors

import * as foray from "./foray";

// Distance from every cell to the own colony (1 = may deposit there), computed
// once: the terrain never changes. Allocated here, at the top level, once: the
// stub runtime never frees, so nothing is allocated during a tick.
const home = new StaticArray<u16>(foray.MAX_CELLS);

// Moves resolve together: two units stepping into one cell both fail, and a
// unit cannot enter a cell whose occupant stays. So remember, per tick, the
// cells our units stand on and the cells they already aim at (stamped with the
// tick, to avoid clearing the arrays).
const standing = new StaticArray<i32>(foray.MAX_CELLS);
const claimed = new StaticArray<i32>(foray.MAX_CELLS);

function botInit(game: foray.Init): void {
  foray.bfsFrom(home, game.colonyX, game.colonyY);
}

function freeCell(x: i32, y: i32, stamp: i32): bool {
  if (!foray.passable(x, y)) return false;
  const c = foray.cell(x, y);
  return standing[c] != stamp && claimed[c] != stamp;
}

// Step u towards (tx, ty) if a free neighbour is nearer; claim the cell. A
// plain greedy step: it can stall behind rock; a real bot would use BFS
// (foray.bfs, foray.stepDown).
function stepToward(acts: foray.Actions, u: foray.Unit, tx: i32, ty: i32, stamp: i32): void {
  let best = 0;
  let bestD = foray.manhattan(u.x, u.y, tx, ty);
  for (let d = 1; d <= 4; d++) {
    const nx = u.x + foray.DX[d];
    const ny = u.y + foray.DY[d];
    const nd = foray.manhattan(nx, ny, tx, ty);
    if (nd < bestD && freeCell(nx, ny, stamp)) {
      best = d;
      bestD = nd;
    }
  }
  if (best == 0) {
    // Blocked: a random free step now and then unjams crowds.
    const d = 1 + foray.rng.below(8);
    if (d <= 4 && freeCell(u.x + foray.DX[d], u.y + foray.DY[d], stamp)) best = d;
  }
  if (best != 0 && acts.move(u, best)) {
    claimed[foray.cell(u.x + foray.DX[best], u.y + foray.DY[best])] = stamp;
  }
}

function botTick(obs: foray.Obs, acts: foray.Actions): void {
  const stamp = obs.tick + 1;
  for (let i = 0; i < obs.nOwn; i++) {
    const u = obs.own(i);
    standing[foray.cell(u.x, u.y)] = stamp;
  }

  for (let i = 0; i < obs.nOwn; i++) {
    const u = obs.own(i);
    if (u.kind != foray.Kind.WORKER) continue; // soldiers: your turn

    if (u.carry >= foray.game.carryCap) {
      // Full: deposit if next to the colony, else walk home.
      const d = foray.stepDown(home, u.x, u.y);
      if (home[foray.cell(u.x, u.y)] == 1) acts.deposit(u);
      else if (d != foray.Dir.HERE) {
        stepToward(acts, u, u.x + foray.DX[d], u.y + foray.DY[d], stamp);
      }
      continue;
    }
    // The nearest visible ore cell (obs.ore lists only cells with ore).
    let best = -1;
    let bestD = 1 << 30;
    for (let k = 0; k < obs.nOre; k++) {
      const o = obs.ore(k);
      const d = foray.manhattan(u.x, u.y, o.x, o.y);
      if (d < bestD) {
        best = k;
        bestD = d;
      }
    }
    if (best < 0) continue; // nothing in sight: no action means NOOP
    const target = obs.ore(best);
    // acts.mine refuses a malformed arg (here: -1 for a diagonal cell), so a
    // slip is simply no action, never a forfeit.
    if (bestD <= 1) {
      acts.mine(u, foray.dirTo(u.x, u.y, target.x, target.y));
    } else {
      stepToward(acts, u, target.x, target.y, stamp);
    }
  }
  if (obs.energy >= foray.game.workerCost) acts.spawn(foray.Kind.WORKER);
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
