import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { NotARegularFileError } from './not-a-regular-file-error.js';

/**
 * Opens a path a tool was given (the model's choice) for reading or for writing, without ever
 * blocking: opening a named pipe waits for its other end, holding one of libuv's four file
 * threads for good (no signal reaches it), and four such calls stall every file operation of
 * the agent; reading a device whole (/dev/zero through a link) never ends. O_NONBLOCK makes
 * such an open return at once, without effect on regular files, and what is not a regular file
 * is refused with what it is.
 */
export async function openRegularFile(file: string, mode: 'read' | 'write' | 'append'): Promise<FileHandle> {
  if (mode !== 'read') {
    // Refused before the open: O_TRUNC must not reach a device, and a pipe with no reader answers ENXIO.
    const existing = await stat(file).catch(() => undefined);
    if (existing && !existing.isFile()) throw new NotARegularFileError({ path: file, found: describe(existing) });
  }
  const flags = { read: constants.O_RDONLY, write: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, append: constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND }[mode];
  let handle: FileHandle;
  try {
    handle = await open(file, flags | constants.O_NONBLOCK, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') throw new NotARegularFileError({ path: file, found: 'a named pipe' });
    throw error;
  }
  const info = await handle.stat();
  if (info.isFile()) return handle;
  await handle.close();
  throw new NotARegularFileError({ path: file, found: describe(info) });
}

function describe(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** Writes (or appends) `text` to a regular file through {@link openRegularFile}: never waits on a pipe in its place. */
export async function writeRegularFile(file: string, text: string, mode: 'write' | 'append' = 'write'): Promise<void> {
  const handle = await openRegularFile(file, mode);
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
}
