;; Dot products of one query with every row of a matrix, four float32 lanes at a time.
;; Source of src/retrieval/dot-kernel-wasm.ts (built by tools/wasm/build-dot-kernel.mjs).
;;
;; scores(data, rows, stride, query, out): for r in [0, rows):
;;   out[r] = sum over i < stride of data[r * stride + i] * query[i]
;; All arguments are byte offsets into the exported memory except rows and stride (floats per
;; row, a multiple of 8: the caller pads rows and query with zeros). Two accumulators keep two
;; independent multiply-add chains in flight.
(module
  (memory (export "memory") 1)
  (func (export "scores") (param $data i32) (param $rows i32) (param $stride i32) (param $query i32) (param $out i32)
    (local $r i32) (local $p i32) (local $q i32) (local $end i32) (local $bytes i32)
    (local $a v128) (local $b v128)
    (local.set $bytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $p (local.get $data))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $end (i32.add (local.get $p) (local.get $bytes)))
        (local.set $q (local.get $query))
        (local.set $a (v128.const f32x4 0 0 0 0))
        (local.set $b (v128.const f32x4 0 0 0 0))
        (block $row_done
          (loop $lanes
            (br_if $row_done (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $a (f32x4.add (local.get $a) (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
            (local.set $b (f32x4.add (local.get $b)
              (f32x4.mul (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 32)))
            (local.set $q (i32.add (local.get $q) (i32.const 32)))
            (br $lanes)))
        (local.set $a (f32x4.add (local.get $a) (local.get $b)))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
            (f32.add (f32x4.extract_lane 2 (local.get $a)) (f32x4.extract_lane 3 (local.get $a)))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))))
