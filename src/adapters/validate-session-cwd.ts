import { constants } from 'node:fs';
import { access, realpath, stat, statfs } from 'node:fs/promises';
import { isAbsolute, join, sep } from 'node:path';
import { InvalidCwdError } from './invalid-cwd-error.js';

/** Linux PATH_MAX and NAME_MAX: longer paths fail in the kernel anyway, with a less clear error. */
const MAX_PATH_BYTES = 4096;
const MAX_NAME_BYTES = 255;

/**
 * Kernel pseudo-filesystems: their files are generated on read, some folders there loop
 * (`mkdir` under /proc answers ENOENT, then EEXIST, forever) and nothing in them is a project.
 */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'];
/** statfs magic numbers of the same filesystems, for when they are mounted somewhere else. */
const PSEUDO_FS_TYPES = new Set([
  0x9fa0, // proc
  0x62656572, // sysfs
  0x1cd1, // devpts
  0x27e0eb, // cgroup
  0x63677270, // cgroup2
  0x64626720, // debugfs
  0x74726163, // tracefs
  0x73636673, // securityfs
  0xcafe4a11, // bpf
  0x62656570, // configfs
  0x6165676c, // pstore
  0xde5e81e4, // efivarfs
  0x65735543, // fusectl
  0x6e736673, // nsfs
  0x42494e4d, // binfmt_misc
  0x19800202, // mqueue
]);

/**
 * A session folder a client names (ACP `session/new`/`load`/`list`, MCP `new_session`/`list_sessions`)
 * must be an existing, absolute, normalized directory outside the kernel's pseudo-filesystems,
 * and not the filesystem root. Checked before anything is created under it, with async calls only,
 * so a hostile path can neither create folders nor stall the event loop. Returns the folder
 * without a trailing slash; throws `InvalidCwdError` naming `field` otherwise.
 */
export async function validateSessionCwd(value: unknown, field = 'cwd'): Promise<string> {
  const refuse = (reason: string) => new InvalidCwdError(field, typeof value === 'string' ? value.slice(0, 200) : typeof value, reason);
  if (typeof value !== 'string') throw refuse('must be a string (an absolute folder path)');
  if (value.length === 0) throw refuse('must not be empty');
  if (/[\u0000-\u001f\u007f]/.test(value)) throw refuse('must not contain control characters (NUL, newline, …)');
  if (Buffer.byteLength(value) > MAX_PATH_BYTES) throw refuse(`is longer than ${MAX_PATH_BYTES} bytes`);
  if (!isAbsolute(value)) throw refuse('must be an absolute path');
  const segments = value.split(sep).filter((segment) => segment.length > 0);
  if (segments.some((segment) => segment === '.' || segment === '..')) throw refuse("must be normalized (no '.' or '..' segments)");
  if (segments.some((segment) => Buffer.byteLength(segment) > MAX_NAME_BYTES)) throw refuse(`has a name longer than ${MAX_NAME_BYTES} bytes`);
  const cwd = sep + segments.join(sep);
  if (cwd === sep) throw refuse('must not be the filesystem root');
  if (isPseudo(cwd)) throw refuse(`must not be inside ${PSEUDO_ROOTS.join(', ')} (kernel pseudo-filesystems)`);

  let real: string;
  try {
    real = await realpath(cwd);
  } catch (error) {
    throw refuse(describeFsError(error));
  }
  if (real === sep) throw refuse('must not be the filesystem root');
  if (isPseudo(real)) throw refuse(`resolves to ${real.slice(0, 200)}, inside a kernel pseudo-filesystem`);
  try {
    if (!(await stat(real)).isDirectory()) throw refuse('is not a directory');
    if (PSEUDO_FS_TYPES.has((await statfs(real)).type)) throw refuse('is on a kernel pseudo-filesystem');
    // Sessions are stored in <cwd>/.plaited: a folder where that cannot be written is a bad cwd, not an internal error.
    await access(join(real, '.plaited'), constants.W_OK).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw refuse('is not writable (sessions are stored in its .plaited folder)');
      await access(real, constants.W_OK).catch(() => {
        throw refuse('is not writable (sessions are stored in its .plaited folder)');
      });
    });
  } catch (error) {
    if (InvalidCwdError.isInstance(error)) throw error;
    throw refuse(describeFsError(error));
  }
  return cwd;
}

/** The reasons that mean "no such folder here": a filter by such a folder matches nothing (ACP `session/list`). */
export const NO_SUCH_FOLDER_REASONS: readonly string[] = ['does not exist', 'is not a directory'];

function isPseudo(path: string): boolean {
  return PSEUDO_ROOTS.some((root) => path === root || path.startsWith(`${root}/`));
}

function describeFsError(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'does not exist';
    case 'ENOTDIR':
      return 'is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'is not accessible';
    case 'ELOOP':
      return 'has a symbolic link loop';
    case 'ENAMETOOLONG':
      return 'is too long';
    default:
      return `cannot be used: ${(error as Error).message}`;
  }
}
