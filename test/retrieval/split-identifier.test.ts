import { describe, expect, it } from 'vitest';
import { segmentGluedName } from '../../src/retrieval/segment-glued-name.js';
import { splitIdentifier } from '../../src/retrieval/split-identifier.js';
import { tokenize } from '../../src/retrieval/tokenize.js';

describe('splitIdentifier', () => {
  it.each([
    ['getWeather', 'get Weather'],
    ['get_weather', 'get weather'],
    ['get-weather', 'get weather'],
    ['mcp.get.weather', 'mcp get weather'],
    ['HTTPServerStatus', 'HTTP Server Status'],
    ['base64Encode', 'base64 Encode'],
    ['mcp__github__create_issue', 'mcp github create issue'],
  ])('%s → %s', (input, expected) => {
    expect(splitIdentifier(input)).toBe(expected);
  });
});

describe('tokenize', () => {
  it('lower-cases, splits identifiers and keeps letters of any script', () => {
    expect(tokenize('listPullRequests für café, 2 files!')).toEqual(['list', 'pull', 'requests', 'für', 'café', '2', 'files']);
  });
});

describe('segmentGluedName', () => {
  const vocabulary = new Set(['theme', 'park', 'waiting', 'times', 'keyword', 'explorer', 'air', 'quality', 'forecast']);
  it('cuts known words out of a glued name and keeps the rest whole', () => {
    expect(segmentGluedName('themeparkhipster', vocabulary)).toEqual(['theme', 'park', 'hipster']);
    expect(segmentGluedName('keywordexplorer', vocabulary)).toEqual(['keyword', 'explorer']);
    expect(segmentGluedName('airqualityforeast', vocabulary)).toEqual(['air', 'quality', 'foreast']);
  });
  it('leaves unknown, short, known or mixed-case words alone', () => {
    expect(segmentGluedName('zyxwvuts', vocabulary)).toEqual(['zyxwvuts']);
    expect(segmentGluedName('park', vocabulary)).toEqual(['park']);
    expect(segmentGluedName('explorer', vocabulary)).toEqual(['explorer']);
    expect(segmentGluedName('Theme2Park', vocabulary)).toEqual(['theme2park']);
  });
});
