import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readThresholds, THRESHOLD_METRICS, thresholdsTable } from '../../bench/retrieval-thresholds.js';

describe('the retrieval quality bar (bench/retrieval-thresholds.json)', () => {
  const thresholds = readThresholds();

  it('is what bench/RETRIEVAL.md records: its quality bar table is the JSON rendered', () => {
    const document = readFileSync(new URL('../../bench/RETRIEVAL.md', import.meta.url), 'utf8');
    expect(document).toContain('bench/retrieval-thresholds.json');
    expect(document).toContain(thresholdsTable(thresholds));
  });

  it('has every metric of every mode as a fraction for each eval set', () => {
    expect(Object.keys(thresholds.sets)).toEqual(expect.arrayContaining(['eval/metatool', 'eval/apibank', 'real-mcp-catalog/heldout']));
    for (const bar of Object.values(thresholds.sets)) {
      for (const mode of ['bm25', 'dense', 'hybrid'] as const) {
        for (const metric of THRESHOLD_METRICS) expect(bar[mode][metric]).toBeGreaterThanOrEqual(0);
        for (const metric of THRESHOLD_METRICS) expect(bar[mode][metric]).toBeLessThanOrEqual(1);
      }
    }
  });
});
