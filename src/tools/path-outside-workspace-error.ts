import { PlaitedError } from '../errors/plaited-error.js';

/** A tool was asked to touch a path outside the session's cwd and the allowed roots. */
export class PathOutsideWorkspaceError extends PlaitedError<'path_outside_workspace'> {
  /** The path as the caller gave it. */
  readonly path: string;
  /** Where it really points (symlinks followed). */
  readonly resolvedPath: string;
  /** The roots it had to stay within. */
  readonly roots: readonly string[];

  constructor(options: { path: string; resolvedPath: string; roots: readonly string[] }) {
    const via = options.resolvedPath === options.path ? '' : ` (resolves to ${options.resolvedPath})`;
    super(
      'path_outside_workspace',
      `Path "${options.path}"${via} is outside the workspace; allowed roots: ${options.roots.join(', ')}. ` +
        'To let the agent reach it, the user can open the session with its folder as an additional directory ' +
        '(an editor\'s extra workspace folder) or list the folder in `agent.allowedRoots` in the project\'s config',
    );
    this.name = 'PathOutsideWorkspaceError';
    this.path = options.path;
    this.resolvedPath = options.resolvedPath;
    this.roots = options.roots;
  }

  /** Works across duplicate copies of this package, where instanceof would not. */
  static override isInstance(error: unknown): error is PathOutsideWorkspaceError {
    return error instanceof Error && (error as { code?: unknown }).code === 'path_outside_workspace';
  }
}
