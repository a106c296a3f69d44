import { describe, expect, it } from 'vitest';
import type { Part } from '@a2a-js/sdk';
import { PERMISSION_OPTIONS } from '../../../src/agent/ask-permission.js';
import { permissionAnswer } from '../../../src/adapters/a2a/a2a-permission-answer.js';

const text = (value: string): Part => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined });
const data = (value: Record<string, unknown>): Part => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined });
const answer = (...parts: Part[]) => permissionAnswer(parts, PERMISSION_OPTIONS)?.optionId;

describe('permissionAnswer: a peer reply to an input-required question', () => {
  it('reads the words a person or an agent would write', () => {
    expect(answer(text('allow'))).toBe('allow-once');
    expect(answer(text('Yes.'))).toBe('allow-once');
    expect(answer(text('  Always '))).toBe('allow-always');
    expect(answer(text('allow always'))).toBe('allow-always');
    expect(answer(text('reject'))).toBe('reject-once');
    expect(answer(text('no'))).toBe('reject-once');
    expect(answer(text('never'))).toBe('reject-always');
    expect(answer(text('reject-always'))).toBe('reject-always');
  });

  it('reads a data part by option id or by decision kind', () => {
    expect(answer(data({ optionId: 'allow-always' }))).toBe('allow-always');
    expect(answer(data({ decision: 'reject_once' }))).toBe('reject-once');
  });

  it('is not an answer when it says something else', () => {
    expect(answer(text('maybe later?'))).toBeUndefined();
    expect(answer(text('allow this but not that'))).toBeUndefined();
    expect(answer(data({ optionId: 'allow-everything' }))).toBeUndefined();
    expect(answer()).toBeUndefined();
  });
});
