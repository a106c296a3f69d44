import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { ownPackageJson } from '../../config/own-package-json.js';

let found: string | null | undefined;

/**
 * What the sandbox runtime starts its network bridges with (its `socatPath`): the package's
 * `bin/socat-dies-with-agent`, which ties each bridge to this process with the kernel's
 * parent-death signal. The runtime's own `socat` outlived an agent killed with SIGKILL, listening
 * on under init. `undefined` where the wrapper is not there to run (the code copied out of its
 * package): the runtime's plain socat, as before.
 */
export function bridgeSocatPath(): string | undefined {
  if (found !== undefined) return found ?? undefined;
  found = null;
  const own = ownPackageJson();
  if (!own) return undefined;
  const wrapper = join(own.dir, 'bin', 'socat-dies-with-agent');
  try {
    accessSync(wrapper, constants.X_OK);
    found = wrapper;
  } catch {
    // Missing or not executable: plain socat.
  }
  return found ?? undefined;
}
