//! foray.zig -- the Foray controller contract (ABI version 1) for Zig.
//!
//! The Zig twin of foray.h. A controller is one Zig file that imports this one,
//! defines two functions and exports the three entry points the host calls:
//!
//!     const foray = @import("foray.zig");
//!     fn botInit(game: *const foray.Init) void { ... }
//!     fn botTick(obs: *const foray.Obs, acts: *foray.Actions) void { ... }
//!     export fn foray_buffer() i32 { return foray.buffer(); }
//!     export fn foray_init(len: i32) i32 { return foray.init(len, botInit); }
//!     export fn foray_tick(len: i32) i32 { return foray.tick(len, botTick); }
//!
//! Everything is in the controller's own view (docs/rules.md §3): its colony is
//! always at the same place; directions are HERE, NORTH (y-1), EAST (x+1),
//! SOUTH (y+1), WEST (x-1). The emitters refuse any action the contract would
//! punish, so a bot built on them cannot forfeit with invalid_action.
//!
//! Build (Zig keeps a wasm module's exports only with -rdynamic):
//!     python -m ziglang build-exe bot.zig -target wasm32-freestanding \
//!         -O ReleaseSmall -fno-entry -rdynamic -fstrip --name bot
//! There is no allocator: keep state in global arrays.

pub const abi_version: i32 = 1;
pub const buffer_bytes = 65536;
pub const max_side = 64;
pub const max_cells = max_side * max_side;
/// The largest max_units a case may set.
pub const max_units = 64;

pub const Op = enum(i32) { noop = 0, move = 1, attack = 2, mine = 3, deposit = 4, spawn = 5 };
pub const Kind = enum(i32) { worker = 1, soldier = 2, _ };
pub const Dir = enum(i32) { here = 0, north = 1, east = 2, south = 3, west = 4 };

/// Steps of each direction, indexed by its number.
pub const dx = [5]i32{ 0, 0, 1, 0, -1 };
pub const dy = [5]i32{ 0, -1, 0, 1, 0 };

/// A unit: 6 words, as the OBS message carries it.
pub const Unit = extern struct { id: i32, kind: i32, x: i32, y: i32, hp: i32, carry: i32 };
/// A cell holding ore: 3 words.
pub const Ore = extern struct { x: i32, y: i32, amount: i32 };
/// One action record: 3 words.
pub const Action = extern struct { unit_id: i32, op: i32, arg: i32 };

/// The INIT message: the match, kept for its whole length.
pub const Init = struct {
    width: i32,
    height: i32,
    max_ticks: i32,
    seed: u32,
    colony_x: i32,
    colony_y: i32,
    enemy_colony_x: i32,
    enemy_colony_y: i32,
    start_energy: i32,
    worker_cost: i32,
    soldier_cost: i32,
    worker_hp: i32,
    soldier_hp: i32,
    soldier_attack: i32,
    carry_cap: i32,
    colony_hp: i32,
    unit_vision: i32,
    colony_vision: i32,
    max_units: i32,
    fuel_per_tick: i32,
    max_memory_bytes: i32,
    /// width*height bytes, index y*width+x: 0 open, 1 rock.
    terrain: []const u8,
    /// The cells holding ore at tick 0, sorted by (y, x).
    ore: []const Ore,
};

/// One tick's OBS message. The slices point into the I/O buffer: valid during botTick only.
pub const Obs = struct {
    tick: i32,
    banked: i32,
    energy: i32,
    colony_hp: i32,
    enemy_banked: i32,
    /// -1 while the enemy colony is unseen.
    enemy_colony_hp: i32,
    last_fuel: i32,
    /// Your living units, sorted by id: the roster.
    own: []const Unit,
    /// Visible enemy units, sorted by id.
    enemy: []const Unit,
    /// Visible cells holding ore, sorted by (y, x).
    ore: []const Ore,
};

/// The actions of one tick. Emit them with the methods below.
pub const Actions = struct {
    n: usize = 0,
    rec: [max_units + 1]Action = undefined,
    /// [0] the colony, [1 + i] obs.own[i].
    used: [max_units + 1]bool = undefined,
    obs: *const Obs = undefined,

    /// Record an action for one of this tick's units (u must point into obs.own).
    /// False if refused: the unit already acted, is not on the roster, or op/arg is malformed.
    pub fn act(self: *Actions, u: *const Unit, op: Op, arg: i32) bool {
        const own = self.obs.own;
        const base = @intFromPtr(own.ptr);
        const at = @intFromPtr(u);
        if (at < base or at >= base + own.len * @sizeOf(Unit)) return false;
        const slot = 1 + (at - base) / @sizeOf(Unit);
        if (self.used[slot]) return false;
        const ok = switch (op) {
            .noop, .deposit => arg == 0,
            .move, .attack => arg >= 1 and arg <= 4,
            .mine => arg >= 0 and arg <= 4,
            .spawn => false, // the colony's
        };
        if (!ok) return false;
        self.used[slot] = true;
        self.rec[self.n] = .{ .unit_id = u.id, .op = @intFromEnum(op), .arg = arg };
        self.n += 1;
        return true;
    }
    pub fn move(self: *Actions, u: *const Unit, d: Dir) bool {
        return self.act(u, .move, @intFromEnum(d));
    }
    pub fn attack(self: *Actions, u: *const Unit, d: Dir) bool {
        return self.act(u, .attack, @intFromEnum(d));
    }
    pub fn mine(self: *Actions, u: *const Unit, d: Dir) bool {
        return self.act(u, .mine, @intFromEnum(d));
    }
    pub fn deposit(self: *Actions, u: *const Unit) bool {
        return self.act(u, .deposit, 0);
    }
    /// The colony's one spawn of the tick.
    pub fn spawn(self: *Actions, kind: Kind) bool {
        if (self.used[0] or (kind != .worker and kind != .soldier)) return false;
        self.used[0] = true;
        self.rec[self.n] = .{ .unit_id = 0, .op = @intFromEnum(Op.spawn), .arg = @intFromEnum(kind) };
        self.n += 1;
        return true;
    }
    /// Whether u already has an action this tick.
    pub fn acted(self: *const Actions, u: *const Unit) bool {
        const slot = 1 + (@intFromPtr(u) - @intFromPtr(self.obs.own.ptr)) / @sizeOf(Unit);
        return self.used[slot];
    }
};

// ------------------------------------------------------------------ state

var io: [buffer_bytes]u8 align(16) = undefined;
var terrain_copy: [max_cells]u8 = undefined;
var ore_copy: [max_cells]Ore = undefined;
/// 1 where a unit may stand: open and not a colony.
pub var walkable: [max_cells]u8 = undefined;
/// The match, readable anywhere after init.
pub var game: Init = undefined;
/// Seeded from the match seed at init; both sides get the same seed.
pub var rng: Rng = .{ .s = 1 };
var obs_now: Obs = undefined;
var acts_now: Actions = .{};

fn word(offset: usize) i32 {
    return @bitCast([4]u8{ io[offset], io[offset + 1], io[offset + 2], io[offset + 3] });
}

fn putWord(offset: usize, value: i32) void {
    const bytes: [4]u8 = @bitCast(value);
    @memcpy(io[offset .. offset + 4], &bytes);
}

// ------------------------------------------------------------- helpers

pub fn abs(v: i32) i32 {
    return if (v < 0) -v else v;
}
pub fn manhattan(x0: i32, y0: i32, x1: i32, y1: i32) i32 {
    return abs(x0 - x1) + abs(y0 - y1);
}
pub fn chebyshev(x0: i32, y0: i32, x1: i32, y1: i32) i32 {
    return @max(abs(x0 - x1), abs(y0 - y1));
}
pub fn inBounds(x: i32, y: i32) bool {
    return x >= 0 and y >= 0 and x < game.width and y < game.height;
}
pub fn cell(x: i32, y: i32) usize {
    return @intCast(y * game.width + x);
}
/// Whether a unit may stand on (x, y): on the map, open, not a colony.
pub fn passable(x: i32, y: i32) bool {
    return inBounds(x, y) and walkable[cell(x, y)] == 1;
}

/// A small seeded PRNG (xorshift32 behind a splitmix32 seeding), as in foray.h.
pub const Rng = struct {
    s: u32,
    pub fn seed(self: *Rng, s: u32, stream: u32) void {
        var z: u32 = s +% 0x9E3779B9 *% (stream +% 1);
        z = (z ^ (z >> 16)) *% 0x85EBCA6B;
        z = (z ^ (z >> 13)) *% 0xC2B2AE35;
        z ^= z >> 16;
        self.s = if (z != 0) z else 0x6D2B79F5;
    }
    pub fn next(self: *Rng) u32 {
        var x = self.s;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.s = x;
        return x;
    }
    /// An integer in 0..n-1 (n >= 1).
    pub fn below(self: *Rng, n: u32) u32 {
        return if (n <= 1) 0 else self.next() % n;
    }
};

pub const far: u16 = 0xFFFF;
var bfs_queue: [max_cells]usize = undefined;

/// Fill dist with the 4-connected step count from the nearest source cell
/// (indices y*width+x), walking only on passable cells.
pub fn bfs(dist: []u16, sources: []const usize) void {
    const w: usize = @intCast(game.width);
    const area: usize = @intCast(game.width * game.height);
    @memset(dist[0..area], far);
    var head: usize = 0;
    var tail: usize = 0;
    for (sources) |c| {
        if (c < area and dist[c] != 0) {
            dist[c] = 0;
            bfs_queue[tail] = c;
            tail += 1;
        }
    }
    while (head < tail) : (head += 1) {
        const c = bfs_queue[head];
        const nd = dist[c] + 1;
        const x = c % w;
        const neighbours = [4]?usize{
            if (c >= w) c - w else null,
            if (x + 1 < w) c + 1 else null,
            if (c + w < area) c + w else null,
            if (x > 0) c - 1 else null,
        };
        for (neighbours) |maybe| {
            const n = maybe orelse continue;
            if (walkable[n] == 1 and dist[n] == far) {
                dist[n] = nd;
                bfs_queue[tail] = n;
                tail += 1;
            }
        }
    }
}

pub fn bfsFrom(dist: []u16, x: i32, y: i32) void {
    bfs(dist, &[_]usize{cell(x, y)});
}

/// A direction from (x, y) to a passable neighbour with a smaller dist; .here if none.
pub fn stepDown(dist: []const u16, x: i32, y: i32) Dir {
    var best: Dir = .here;
    var best_d: u32 = dist[cell(x, y)];
    for (1..5) |d| {
        const nx = x + dx[d];
        const ny = y + dy[d];
        if (!passable(nx, ny)) continue;
        const nd: u32 = dist[cell(nx, ny)];
        if (nd < best_d) {
            best_d = nd;
            best = @enumFromInt(@as(i32, @intCast(d)));
        }
    }
    return best;
}

// ------------------------------------------------------------- debug notes

/// The longest note the host keeps (rules §9.9).
pub const note_bytes = 256;
var note_text: [note_bytes]u8 = undefined;
var note_len: usize = 0;

/// Leave a debug note for this tick (at most 256 bytes of UTF-8): the host records
/// it in the replay next to your side. It costs fuel and never changes the game.
/// Notes are kept only by a bot that exports foray_note:
///     export fn foray_note() i32 { return foray.note(); }
pub fn say(text: []const u8) void {
    note_len = @min(text.len, note_bytes);
    @memcpy(note_text[0..note_len], text[0..note_len]);
}

/// The note of this tick, written at the buffer's start (for `export fn foray_note`).
pub fn note() i32 {
    @memcpy(io[0..note_len], note_text[0..note_len]);
    return @intCast(note_len);
}

// ------------------------------------------------------------- the exports

/// The I/O buffer's address (for `export fn foray_buffer`).
pub fn buffer() i32 {
    return @intCast(@intFromPtr(&io));
}

/// Decode INIT, keep copies of the terrain and the ore, call botInit (for `export fn foray_init`).
pub fn init(len: i32, comptime botInit: fn (*const Init) void) i32 {
    if (len < 96 or word(0) != abi_version) return 1;
    const w = word(4);
    const h = word(8);
    if (w < 1 or h < 1 or w > max_side or h > max_side) return 1;
    const area: usize = @intCast(w * h);
    const n_ore = word(88);
    const ore_at: usize = 96 + ((area + 3) & ~@as(usize, 3));
    if (n_ore < 0 or n_ore > area or ore_at + @as(usize, @intCast(n_ore)) * 12 > len) return 1;
    const count: usize = @intCast(n_ore);
    @memcpy(terrain_copy[0..area], io[96 .. 96 + area]);
    for (0..count) |i| {
        const at = ore_at + 12 * i;
        ore_copy[i] = .{ .x = word(at), .y = word(at + 4), .amount = word(at + 8) };
    }
    game = .{
        .width = w,
        .height = h,
        .max_ticks = word(12),
        .seed = @bitCast(word(16)),
        .colony_x = word(20),
        .colony_y = word(24),
        .enemy_colony_x = word(28),
        .enemy_colony_y = word(32),
        .start_energy = word(36),
        .worker_cost = word(40),
        .soldier_cost = word(44),
        .worker_hp = word(48),
        .soldier_hp = word(52),
        .soldier_attack = word(56),
        .carry_cap = word(60),
        .colony_hp = word(64),
        .unit_vision = word(68),
        .colony_vision = word(72),
        .max_units = word(76),
        .fuel_per_tick = word(80),
        .max_memory_bytes = word(84),
        .terrain = terrain_copy[0..area],
        .ore = ore_copy[0..count],
    };
    for (0..area) |i| walkable[i] = if (terrain_copy[i] == 0) 1 else 0;
    if (inBounds(game.colony_x, game.colony_y)) walkable[cell(game.colony_x, game.colony_y)] = 0;
    if (inBounds(game.enemy_colony_x, game.enemy_colony_y))
        walkable[cell(game.enemy_colony_x, game.enemy_colony_y)] = 0;
    rng.seed(game.seed, 0);
    botInit(&game);
    return 0;
}

fn clampCount(value: i32, most: usize) usize {
    return if (value < 0) 0 else @min(@as(usize, @intCast(value)), most);
}

/// Decode OBS, call botTick, then write the records at the buffer's start (for `export fn foray_tick`).
pub fn tick(len: i32, comptime botTick: fn (*const Obs, *Actions) void) i32 {
    _ = len;
    // Clamp the counts to what fits, so a bot never reads past the buffer.
    var room: usize = (buffer_bytes - 64) / 4;
    const n_own = clampCount(word(24), max_units);
    room -= n_own * 6;
    const n_enemy = clampCount(word(28), max_units);
    room -= n_enemy * 6;
    const n_ore = clampCount(word(32), room / 3);
    const units: [*]const Unit = @ptrCast(@alignCast(&io[64]));
    const ores: [*]const Ore = @ptrCast(@alignCast(&io[64 + 24 * (n_own + n_enemy)]));
    obs_now = .{
        .tick = word(0),
        .banked = word(4),
        .energy = word(8),
        .colony_hp = word(12),
        .enemy_banked = word(16),
        .enemy_colony_hp = word(20),
        .last_fuel = word(36),
        .own = units[0..n_own],
        .enemy = units[n_own .. n_own + n_enemy],
        .ore = ores[0..n_ore],
    };
    acts_now.n = 0;
    acts_now.obs = &obs_now;
    note_len = 0;
    @memset(acts_now.used[0 .. n_own + 1], false);
    botTick(&obs_now, &acts_now);
    for (acts_now.rec[0..acts_now.n], 0..) |r, i| {
        putWord(12 * i, r.unit_id);
        putWord(12 * i + 4, r.op);
        putWord(12 * i + 8, r.arg);
    }
    return @intCast(acts_now.n);
}
