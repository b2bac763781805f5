;; What asc builds by default: the runtime's abort, trace() and Math.random()'s seed.
(module
  (import "env" "abort" (func (param i32 i32 i32 i32)))
  (import "env" "trace" (func (param i32 i32 f64 f64 f64 f64 f64)))
  (import "env" "seed" (func (result f64)))
  (memory (export "memory") 1)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32) i32.const 0))
