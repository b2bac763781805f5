;; A "negative" address: read as unsigned it lies far outside memory.
(module (memory (export "memory") 2)
  (func (export "foray_buffer") (result i32) i32.const -16)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32) i32.const 0))
