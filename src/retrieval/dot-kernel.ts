import { DOT_KERNEL_WASM } from './dot-kernel-wasm.js';

/**
 * A matrix of float32 rows in WebAssembly memory, scored against a query with SIMD
 * (tools/wasm/dot-kernel.wat): four lanes at a time instead of one, which makes a scan of
 * 10,000 × 100 dimensions about 5× faster than the unrolled JavaScript loop. Rows are
 * padded with zeros to a multiple of eight floats, so the kernel has no tail to handle.
 */
export interface DotKernel {
  /** Floats per row in `matrix` (the dimensions, padded). */
  readonly stride: number;
  /** The rows, `stride` apart; write them before the first `scores` call. */
  readonly matrix: Float32Array;
  /** Every row's dot product with `query`, by row; a view that the next call overwrites. */
  scores(query: Float32Array): Float32Array;
}

const PAGE = 65_536;
/** wasm32 addresses 4 GiB; a larger matrix stays in JavaScript. */
const MAX_PAGES = 65_535;

let compiled: WebAssembly.Module | null | undefined;

/**
 * A kernel with room for `rows` rows of `dimensions` floats, or undefined where the
 * runtime has no WebAssembly SIMD (or the memory cannot be had): callers then score in
 * JavaScript.
 */
export function createDotKernel(rows: number, dimensions: number): DotKernel | undefined {
  if (rows <= 0 || dimensions <= 0) return undefined;
  const module = kernelModule();
  if (!module) return undefined;
  const stride = Math.ceil(dimensions / 8) * 8;
  const floats = rows * stride + stride + rows;
  const pages = Math.ceil((floats * 4) / PAGE);
  if (pages > MAX_PAGES) return undefined;
  try {
    const instance = new WebAssembly.Instance(module, {});
    const memory = instance.exports.memory as WebAssembly.Memory;
    const run = instance.exports.scores as (data: number, rows: number, stride: number, query: number, out: number) => void;
    if (pages > 1) memory.grow(pages - 1);
    const matrix = new Float32Array(memory.buffer, 0, rows * stride);
    const queryOffset = rows * stride * 4;
    const query = new Float32Array(memory.buffer, queryOffset, stride);
    const outOffset = queryOffset + stride * 4;
    const out = new Float32Array(memory.buffer, outOffset, rows);
    return {
      stride,
      matrix,
      scores(vector) {
        query.set(vector.subarray(0, dimensions));
        run(0, rows, stride, queryOffset, outOffset);
        return out;
      },
    };
  } catch {
    return undefined;
  }
}

function kernelModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  try {
    compiled = typeof WebAssembly === 'undefined' ? null : new WebAssembly.Module(Buffer.from(DOT_KERNEL_WASM, 'base64'));
  } catch {
    // No SIMD in this runtime (the module fails validation): score in JavaScript.
    compiled = null;
  }
  return compiled;
}
