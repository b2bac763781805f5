;; Tick fills memory in an endless loop: bulk operations cost fuel per byte.
(module (memory (export "memory") 1)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32)
    (loop $l
      (memory.fill (i32.const 0) (i32.const 7) (i32.const 65536))
      (memory.copy (i32.const 0) (i32.const 1) (i32.const 65535))
      (br $l))
    (i32.const 0)))
