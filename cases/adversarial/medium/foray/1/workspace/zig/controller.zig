//! template.zig -- a minimal Foray controller in Zig to start from.
//!
//! The same bot as template.c: workers walk to the nearest ore they can see,
//! mine it until full, walk home and deposit; the colony spawns workers while
//! it can afford them. Soldiers are left idle. Everything the bot sees is in its
//! own view, so the same code plays either side.
//!
//! Build (from the repository root; -rdynamic keeps the exports):
//!   python -m ziglang build-exe baselines/template.zig -target wasm32-freestanding \
//!       -O ReleaseSmall -fno-entry -rdynamic -fstrip --name my

const foray = @import("foray.zig");

/// Distance from every cell to the own colony (1 = may deposit there), computed
/// once: the terrain never changes.
var home: [foray.max_cells]u16 = undefined;

/// Moves resolve together: two units stepping into one cell both fail, and a
/// unit cannot enter a cell whose occupant stays. So remember, per tick, the
/// cells our units stand on and the cells they already aim at (stamped with the
/// tick, to avoid clearing the arrays).
var standing: [foray.max_cells]i32 = @splat(0);
var claimed: [foray.max_cells]i32 = @splat(0);

fn botInit(game: *const foray.Init) void {
    foray.bfsFrom(&home, game.colony_x, game.colony_y);
}

fn freeCell(x: i32, y: i32, stamp: i32) bool {
    if (!foray.passable(x, y)) return false;
    const c = foray.cell(x, y);
    return standing[c] != stamp and claimed[c] != stamp;
}

/// Step u towards (tx, ty) if a free neighbour is nearer; claim the cell.
fn stepToward(acts: *foray.Actions, u: *const foray.Unit, tx: i32, ty: i32, stamp: i32) void {
    var best: usize = 0;
    var best_d = foray.manhattan(u.x, u.y, tx, ty);
    for (1..5) |d| {
        const nx = u.x + foray.dx[d];
        const ny = u.y + foray.dy[d];
        const nd = foray.manhattan(nx, ny, tx, ty);
        if (nd < best_d and freeCell(nx, ny, stamp)) {
            best = d;
            best_d = nd;
        }
    }
    if (best == 0) {
        // Blocked: a random free step now and then unjams crowds.
        const d = 1 + foray.rng.below(8);
        if (d <= 4 and freeCell(u.x + foray.dx[d], u.y + foray.dy[d], stamp)) best = d;
    }
    if (best != 0 and acts.move(u, @enumFromInt(@as(i32, @intCast(best))))) {
        claimed[foray.cell(u.x + foray.dx[best], u.y + foray.dy[best])] = stamp;
    }
}

fn botTick(obs: *const foray.Obs, acts: *foray.Actions) void {
    const stamp = obs.tick + 1;
    for (obs.own) |u| standing[foray.cell(u.x, u.y)] = stamp;

    for (obs.own) |*u| {
        if (u.kind != @intFromEnum(foray.Kind.worker)) continue; // soldiers: your turn
        if (u.carry >= foray.game.carry_cap) {
            // Full: deposit if next to the colony, else walk home.
            const d = foray.stepDown(&home, u.x, u.y);
            if (home[foray.cell(u.x, u.y)] == 1) {
                _ = acts.deposit(u);
            } else if (d != .here) {
                const k = @intFromEnum(d);
                stepToward(acts, u, u.x + foray.dx[@intCast(k)], u.y + foray.dy[@intCast(k)], stamp);
            }
            continue;
        }
        // The nearest visible ore cell (obs.ore lists only cells with ore).
        var best: ?foray.Ore = null;
        var best_d: i32 = 1 << 30;
        for (obs.ore) |o| {
            const d = foray.manhattan(u.x, u.y, o.x, o.y);
            if (d < best_d) {
                best = o;
                best_d = d;
            }
        }
        const target = best orelse continue; // nothing in sight: no action means NOOP
        if (best_d <= 1) {
            // On the ore or next to it: mine it (HERE, or the direction to it).
            const dir: i32 = for (0..5) |d| {
                if (u.x + foray.dx[d] == target.x and u.y + foray.dy[d] == target.y)
                    break @intCast(d);
            } else -1;
            _ = acts.act(u, .mine, dir);
        } else {
            stepToward(acts, u, target.x, target.y, stamp);
        }
    }
    if (obs.energy >= foray.game.worker_cost) _ = acts.spawn(.worker);
}

export fn foray_buffer() i32 {
    return foray.buffer();
}
export fn foray_init(len: i32) i32 {
    return foray.init(len, botInit);
}
export fn foray_tick(len: i32) i32 {
    return foray.tick(len, botTick);
}
