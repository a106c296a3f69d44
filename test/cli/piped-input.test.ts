import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { printTask, type PrintStdin } from '../../src/cli/piped-input.js';

/** A stdin whose fd is `fd` (a file opened here, for fstat) and whose content is `text`. */
const stdinOf = (text: string, fd?: number, isTTY?: boolean): PrintStdin => Object.assign(Readable.from([Buffer.from(text)]), { fd, isTTY });
const fileFd = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'plaited-piped-')), 'input.txt');
  writeFileSync(path, text);
  return openSync(path, 'r');
};

describe("-p's task and what was piped in", () => {
  it('a given task is followed by the text of a pipe or file, between <stdin> tags; an empty one adds nothing', async () => {
    const fd = fileFd('x');
    try {
      expect(await printTask('why does this fail?', stdinOf('Error: boom\n  at main\n', fd))).toEqual({ task: 'why does this fail?\n\n<stdin>\nError: boom\n  at main\n</stdin>' });
      expect(await printTask('why?', stdinOf(' \n', fd))).toEqual({ task: 'why?' });
    } finally {
      closeSync(fd);
    }
  });

  it('beside a given task, a stdin that is not a pipe or a file (a socket held open, no fd, a terminal) is not read', async () => {
    const never = (fd?: number, isTTY?: boolean): PrintStdin =>
      Object.assign(
        new Readable({
          read() {
            throw new Error('read');
          },
        }),
        { fd, isTTY },
      );
    expect(await printTask('task', never())).toEqual({ task: 'task' });
    expect(await printTask('task', never(undefined, true))).toEqual({ task: 'task' });
    // An fd that is neither a pipe nor a file (a directory stands in for a socket: fstat tells them apart alike).
    const dir = openSync(mkdtempSync(join(tmpdir(), 'plaited-piped-dir-')), 'r');
    try {
      expect(await printTask('task', never(dir))).toEqual({ task: 'task' });
    } finally {
      closeSync(dir);
    }
  });

  it('beside a task, a pipe is read once it speaks; one silent and open past the wait is let go, and the notice says how to skip the wait', async () => {
    // A FIFO opened read-write: fstat calls it a pipe, and opening it waits for no writer.
    const fifo = join(mkdtempSync(join(tmpdir(), 'plaited-piped-fifo-')), 'in');
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(fifo, 'r+');
    try {
      const late = Object.assign(new PassThrough(), { fd });
      const reading = printTask('why?', late, { silentMs: 60_000 });
      late.end('Error: boom\n');
      expect(await reading).toEqual({ task: 'why?\n\n<stdin>\nError: boom\n</stdin>' });

      const silent = Object.assign(new PassThrough(), { fd });
      expect(await printTask('why?', silent, { silentMs: 50 })).toEqual({
        task: 'why?',
        notice: expect.stringContaining('stdin is a pipe that sent nothing for 0.05 s and did not end, so the task runs without it; a program that starts plaited-agent should close its stdin'),
      });
      expect(silent.destroyed).toBe(true);
    } finally {
      closeSync(fd);
    }
  });

  it('without a task, stdin is the task (a terminal gives none)', async () => {
    expect(await printTask(undefined, stdinOf('summarise this\n'))).toEqual({ task: 'summarise this\n' });
    expect(await printTask(undefined, stdinOf('ignored', undefined, true))).toEqual({});
  });

  it('more than the limit, or binary data, is refused with what to do instead', async () => {
    const big = await printTask(undefined, Readable.from([Buffer.alloc(600, 'a'), Buffer.alloc(600, 'a')]), { limit: 1024 });
    expect(big).toEqual({ problem: expect.stringContaining('more than a prompt can carry: save it to a file and name the file in the task') });
    const fd = fileFd('x');
    try {
      expect(await printTask('describe it', stdinOf('PNG\0\0\x01', fd))).toEqual({ problem: expect.stringContaining('binary data (a NUL byte, or bytes that are not text)') });
      // Without a NUL: bytes that decode to little but U+FFFD (a compressed file).
      const noise = Object.assign(Readable.from([Buffer.from(Array.from({ length: 200 }, (_, i) => 0x80 + (i % 64)))]), { fd });
      expect(await printTask('describe it', noise)).toEqual({ problem: expect.stringContaining('binary data') });
      // A Latin-1 log: a few bytes that are not UTF-8 among text, sent as it decodes.
      const latin1 = Object.assign(Readable.from([Buffer.from('caf\xe9 crashed at line 3, na\xefve retry failed\n', 'latin1')]), { fd });
      expect(await printTask('why?', latin1)).toEqual({ task: expect.stringContaining('crashed at line 3') });
    } finally {
      closeSync(fd);
    }
  });
});
