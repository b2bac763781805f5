;; Tick grows memory above the cap, then runs out of fuel: memory wins over fuel.
(module (memory (export "memory") 1)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32)
    (drop (memory.grow (i32.load (i32.const 0))))
    (loop $l (br $l))
    (i32.const 0)))
