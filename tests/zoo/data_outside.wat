;; An active data segment that runs past the end of the initial memory.
(module (memory (export "memory") 1)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32) i32.const 0)
  (data (i32.const 65530) "0123456789"))
