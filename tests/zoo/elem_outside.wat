;; An active element segment that runs past the end of its table; its offset is
;; an extended constant expression, so only an evaluator of those sees it.
(module (memory (export "memory") 1)
  (table 2 funcref)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32) i32.const 0)
  (elem (offset (i32.add (i32.const 3) (i32.const -2))) func 0 1 2))
