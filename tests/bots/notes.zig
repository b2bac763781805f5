//! The Zig SDK's notes: the template's bot, saying what its workers do each tick.
const foray = @import("foray.zig");

fn botInit(game: *const foray.Init) void {
    _ = game;
}

fn botTick(obs: *const foray.Obs, acts: *foray.Actions) void {
    _ = acts;
    var text: [32]u8 = undefined;
    var n: usize = 0;
    for ("units: ") |c| {
        text[n] = c;
        n += 1;
    }
    text[n] = '0' + @as(u8, @intCast(@min(obs.own.len, 9)));
    n += 1;
    foray.say(text[0..n]);
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
export fn foray_note() i32 {
    return foray.note();
}
