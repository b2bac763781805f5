;; foray_init grows memory above the cap: an init fault.
(module (memory (export "memory") 1)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) (drop (memory.grow (i32.const 1100))) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32) i32.const 0))
