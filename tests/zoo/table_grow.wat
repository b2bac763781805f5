;; Tick grows its table by word 0 elements and returns one record holding the result.
(module (memory (export "memory") 1) (table $t 1 funcref)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32)
    (i32.store (i32.const 0) (table.grow $t (ref.null func) (i32.load (i32.const 0))))
    (i32.store (i32.const 4) (table.size $t))
    (i32.const 1)))
