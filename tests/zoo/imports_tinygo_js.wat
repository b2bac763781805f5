;; What tinygo builds for -target=wasm: WASI's fd_write, then the gojs runtime's clock.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (import "gojs" "runtime.ticks" (func (result f64)))
  (import "gojs" "runtime.sleepTicks" (func (param f64)))
  (memory (export "memory") 1)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32) i32.const 0))
