/**
 * Which vector store the hybrid index uses, measured: brute-force cosine over one
 * in-memory Float32Array (VectorMatrix, its WebAssembly SIMD scan and its JavaScript loop), sqlite-vec's vec0 KNN, and sqlite-vec's
 * `vec_distance_cosine` scanning float32 blobs. Random unit vectors, top 100.
 */
import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import * as sqliteVec from 'sqlite-vec';
import { normalize, VectorMatrix } from '../src/retrieval/vector-matrix.js';
import { percentile } from './stats.js';

function randomUnit(dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = Math.random() * 2 - 1;
  return normalize(vector);
}

function timeP50(runs: number, task: () => void): number {
  task();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    task();
    times.push(performance.now() - start);
  }
  return percentile(times, 50);
}

export function benchVectorStores(options: { rows?: number; dimensions?: readonly number[]; runs?: number } = {}): Record<string, number> {
  const rows = options.rows ?? 10_000;
  const runs = options.runs ?? 30;
  const result: Record<string, number> = {};
  for (const dimensions of options.dimensions ?? [100, 384]) {
    const vectors = Array.from({ length: rows }, () => randomUnit(dimensions));
    const query = randomUnit(dimensions);
    const rowsOf = vectors.map((vector, i) => ({ rowid: i + 1, vector }));
    const matrix = new VectorMatrix(dimensions, rowsOf);
    const plain = new VectorMatrix(dimensions, rowsOf, { simd: false });
    result[`wasmSimd${dimensions}dP50Ms`] = timeP50(runs, () => matrix.nearest(query, 100));
    result[`jsBruteForce${dimensions}dP50Ms`] = timeP50(runs, () => plain.nearest(query, 100));

    const db = new Database(':memory:');
    sqliteVec.load(db);
    db.exec(`CREATE VIRTUAL TABLE v USING vec0(embedding float[${dimensions}]); CREATE TABLE b (rowid INTEGER PRIMARY KEY, vector BLOB)`);
    const insertVec = db.prepare('INSERT INTO v (rowid, embedding) VALUES (?, ?)');
    const insertBlob = db.prepare('INSERT INTO b (rowid, vector) VALUES (?, ?)');
    db.transaction(() => {
      vectors.forEach((vector, i) => {
        const blob = Buffer.from(vector.buffer);
        insertVec.run(BigInt(i + 1), blob);
        insertBlob.run(i + 1, blob);
      });
    })();
    const queryBlob = Buffer.from(query.buffer);
    const knn = db.prepare('SELECT rowid, distance FROM v WHERE embedding MATCH ? AND k = 100');
    const scan = db.prepare('SELECT rowid, vec_distance_cosine(vector, ?) AS d FROM b ORDER BY d LIMIT 100');
    result[`vec0Knn${dimensions}dP50Ms`] = timeP50(runs, () => knn.all(queryBlob));
    result[`vecDistanceScan${dimensions}dP50Ms`] = timeP50(runs, () => scan.all(queryBlob));
    db.close();
  }
  return result;
}
