;; The 41-byte module of issue 24: a v128 in foray_tick's signature. wasmtime's C API
;; aborts the process when asked the kind of a v128; admission must refuse it by name.
(module (func (export "foray_tick") (param v128)))
