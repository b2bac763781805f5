;; Tick recurses without end: a stack overflow trap.
(module (memory (export "memory") 1)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func $r (param i32) (result i32)
    (i32.add (call $r (i32.add (local.get 0) (i32.const 1))) (i32.const 1)))
  (func (export "foray_tick") (param i32) (result i32) (call $r (local.get 0))))
