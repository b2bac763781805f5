;; What emcc builds with its JavaScript glue: WASI's I/O first, then its own runtime's names.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func (param i32) (result i32)))
  (import "env" "exit" (func (param i32)))
  (import "env" "emscripten_resize_heap" (func (param i32) (result i32)))
  (import "env" "_abort_js" (func))
  (memory (export "memory") 1)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32) i32.const 0))
