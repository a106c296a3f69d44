import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../src/agent/terminal-safe.js';
import { terminalSafeStream } from '../../src/cli/terminal-safe-stream.js';

describe('terminalSafe', () => {
  it('writes each control character as its visible escape: escape sequences, one-byte CSI, bell, a lone carriage return, DEL', () => {
    expect(terminalSafe('a\u001b[2Kb')).toBe('a\\u001b[2Kb');
    expect(terminalSafe('\u001b]52;c;cm0gLXJmIH4=\u0007')).toBe('\\u001b]52;c;cm0gLXJmIH4=\\u0007');
    expect(terminalSafe('x\u009b31my')).toBe('x\\u009b31my');
    expect(terminalSafe('rm -rf ~\rls')).toBe('rm -rf ~\\u000dls');
    expect(terminalSafe('a\u0008b\u007f\u0000')).toBe('a\\u0008b\\u007f\\u0000');
  });

  it('shows the marks that reorder text (a command that reads one way and runs another)', () => {
    expect(terminalSafe('echo \u202eevil\u202c ok \u2066x\u2069 \u200f')).toBe('echo \\u202eevil\\u202c ok \\u2066x\\u2069 \\u200f');
  });

  it('keeps newlines, tabs, a CRLF line end (as a newline) and every printable character', () => {
    expect(terminalSafe('line one\r\n\tline two\n')).toBe('line one\n\tline two\n');
    expect(terminalSafe('naïve 日本語 emoji 🙂 — “quotes”')).toBe('naïve 日本語 emoji 🙂 — “quotes”');
  });

  it('is lossless inside JSON text: the escape is JSON’s own', () => {
    const value = { text: 'a\u009bb\u202ec\u007f', nested: ['\u001b[0m'] };
    expect(JSON.parse(terminalSafe(JSON.stringify(value, null, 2)))).toEqual(value);
  });
});

describe('terminalSafeStream', () => {
  it('escapes what is written to a terminal and leaves a pipe’s bytes as written', () => {
    const written: string[] = [];
    const terminal = Object.assign(new PassThrough(), { isTTY: true });
    terminal.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
    terminalSafeStream(terminal).write('a\u001b[2Jb\n');
    expect(written.join('')).toBe('a\\u001b[2Jb\n');

    const pipe = new PassThrough();
    expect(terminalSafeStream(pipe)).toBe(pipe);
  });
});
