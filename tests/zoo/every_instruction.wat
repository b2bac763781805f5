;; A controller that never calls $every: one instruction of each encoding the
;; engine accepts (rules §8.3), so the structural reader's scan of the code
;; (rules §8.4) is checked against the compiler on every immediate's layout.
(module
  (type $pair (func (param i32 i32) (result i32 i32)))
  (type $none (func))
  (memory (export "memory") 2)
  (table $t 4 funcref)
  (table $u 2 funcref)
  (global $g (mut i32) (i32.const 0))
  (data $d "abc")
  (elem $e func $noop)
  (func $noop)
  (func (export "foray_buffer") (result i32) (i32.const 0))
  (func (export "foray_init") (param i32) (result i32) (i32.const 0))
  (func (export "foray_tick") (param i32) (result i32) (i32.const 0))
  (func $swap (type $pair) (local.get 1) (local.get 0))
  (func $tail (param i32) (result i32)
    (return_call $every (local.get 0) (v128.const i64x2 0 0)))
  (func $tail_indirect (param i32 i32) (result i32 i32)
    (return_call_indirect $t (type $pair) (local.get 0) (local.get 1) (i32.const 2)))
  (func $every (param $p i32) (param $v v128) (result i32)
    (local $f f32) (local $d f64) (local $l i64) (local $r funcref)
    ;; control: every block type, branches, calls
    nop
    block
      loop $again (result i32)
        (br_if $again (i32.eqz (local.get $p)))
        (i32.const 1)
      end
      drop
      (i32.const 1) (i32.const 2)
      block (type $pair)
        call $swap
      end
      drop drop
      (if (local.get $p) (then nop) (else nop))
      (if (result i64) (local.get $p) (then (i64.const 1)) (else (i64.const 2)))
      drop
      (block $a (block $b (br_table $a $b $a (local.get $p))))
      (br_if 0 (local.get $p))
      (call $noop)
      (call_indirect $t (type $none) (i32.const 0))
      (drop (select (i32.const 1) (i32.const 2) (local.get $p)))
      (drop (select (result f64) (f64.const 1) (f64.const 2) (local.get $p)))
      br 0
    end
    ;; variables
    (local.set $p (local.tee $p (local.get $p)))
    (global.set $g (global.get $g))
    ;; tables and references
    (drop (table.get $t (i32.const 0)))
    (table.set $t (i32.const 0) (ref.null func))
    (table.set $u (i32.const 1) (ref.null func))
    (drop (table.size $u))
    (drop (table.grow $t (ref.func $noop) (i32.const 1)))
    (table.fill $t (i32.const 0) (ref.null func) (i32.const 1))
    (table.copy $t $t (i32.const 0) (i32.const 1) (i32.const 1))
    (table.init $t $e (i32.const 0) (i32.const 0) (i32.const 1))
    (elem.drop $e)
    (local.set $r (ref.func $noop))
    (drop (ref.is_null (local.get $r)))
    ;; memory
    (drop (memory.size))
    (drop (memory.grow (i32.const 0)))
    (memory.fill (i32.const 0) (i32.const 0) (i32.const 1))
    (memory.copy (i32.const 0) (i32.const 1) (i32.const 1))
    (memory.init $d (i32.const 0) (i32.const 0) (i32.const 1))
    (data.drop $d)
    (drop (i32.load offset=65536 align=2 (local.get $p)))
    (drop (i64.load8_s offset=3 (local.get $p)))
    (drop (f32.load (local.get $p)))
    (f64.store offset=8 (local.get $p) (f64.const -0.5))
    (i64.store32 align=1 (local.get $p) (i64.const -9223372036854775808))
    ;; numbers: constants, arithmetic, conversions, sign extension, saturation
    (drop (i32.add (i32.const -2147483648) (i32.const 2147483647)))
    (drop (i64.div_s (i64.const 9223372036854775807) (local.get $l)))
    (local.set $f (f32.sqrt (f32.const nan)))
    (local.set $d (f64.nearest (f64.promote_f32 (local.get $f))))
    (drop (i32.trunc_f64_s (local.get $d)))
    (drop (i32.extend8_s (local.get $p)))
    (drop (i64.trunc_sat_f64_u (local.get $d)))
    (drop (i32.reinterpret_f32 (local.get $f)))
    ;; SIMD: memory, constants, lanes, shuffles, the two-byte sub-opcodes
    (drop (v128.load offset=16 (local.get $p)))
    (drop (v128.load8x8_s (local.get $p)))
    (drop (v128.load32_splat (local.get $p)))
    (drop (v128.load64_zero (local.get $p)))
    (v128.store (local.get $p) (local.get $v))
    (drop (v128.load16_lane 7 (local.get $p) (local.get $v)))
    (v128.store64_lane offset=8 1 (local.get $p) (local.get $v))
    (drop (i8x16.shuffle 0 17 2 19 4 21 6 23 8 25 10 27 12 29 14 31 (local.get $v) (local.get $v)))
    (drop (i8x16.swizzle (local.get $v) (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)))
    (drop (i8x16.extract_lane_s 15 (i8x16.splat (local.get $p))))
    (drop (f64x2.replace_lane 1 (local.get $v) (local.get $d)))
    (drop (i64x2.mul (local.get $v) (local.get $v)))
    (drop (i32x4.trunc_sat_f32x4_u (f32x4.sqrt (local.get $v))))
    (drop (f64x2.promote_low_f32x4 (local.get $v)))
    (drop (i8x16.popcnt (local.get $v)))
    (drop (v128.any_true (local.get $v)))
    (i32.const 0)
    return))
