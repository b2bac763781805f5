;; What wasm-bindgen leaves in a Rust module built for wasm32-unknown-unknown.
(module
  (import "__wbindgen_placeholder__" "__wbindgen_describe" (func (param i32)))
  (import "__wbindgen_placeholder__" "__wbindgen_throw" (func (param i32 i32)))
  (memory (export "memory") 1)
  (func (export "foray_buffer") (result i32) i32.const 0)
  (func (export "foray_init") (param i32) (result i32) i32.const 0)
  (func (export "foray_tick") (param i32) (result i32) i32.const 0))
