;; What zig cc -target wasm32-wasi builds from C that calls printf: wasi-libc's imports,
;; and the producers section clang writes (kept without -Wl,--strip-all).
(module
  (@producers (language "C11" "") (processed-by "clang" "19.1.0"))
  (import "wasi_snapshot_preview1" "fd_fdstat_get" (func (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func (param i32)))
  (memory (export "memory") 1)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32) i32.const 0))
