import { homedir } from 'node:os';
import type { PlaitedConfig } from '../../config/schema.js';
import { userConfigDir } from '../../config/user-config-dir.js';
import { agentStateDir } from '../../tools/agent-state-path.js';
import { createProtectedLayer, type ProtectedLayer } from '../../tools/protected-layer.js';
import { ALWAYS_DENIED_READS, createSandboxPolicy, expandPath } from './sandbox-policy.js';
import { ensureFolder } from '../../storage/ensure-folder.js';

const layers = new WeakMap<PlaitedConfig, ProtectedLayer | null>();
let told = false;

/**
 * The thin read-only layer for commands and stdio MCP servers that run without the
 * sandbox (src/tools/protected-layer.ts), for a config: the protected set, the
 * user's own plaited folder read-only, and the policy's denied reads: the ones a
 * config or the agent adds are hidden, the built-in secret folders (`~/.ssh`, `.env`)
 * stay readable as without the layer (ssh pushes, dev servers) but read-only.
 * `null` inside the whole-agent sandbox (its walls hold already) and where
 * bubblewrap cannot run (commands then run bare; `log` is told once).
 */
export function commandLayerFor(config: PlaitedConfig, log?: (message: string) => void): ProtectedLayer | null {
  // Inside the whole-agent sandbox (sandboxed-runtime.ts's marker; not imported: it loads the sandbox library).
  if (process.env.PLAITED_SANDBOXED === '1') return null;
  if (layers.has(config)) return layers.get(config) ?? null;
  const home = process.env.HOME ?? homedir();
  // Made if missing (it is the user's own, outside every project), so that a command cannot make it first.
  ensureFolder(userConfigDir(), 0o700);
  const denied = (roots: readonly string[]) => {
    const cwd = roots[0] ?? process.cwd();
    const policy = createSandboxPolicy({ config: config.adapters.sandbox, cwd, additionalRoots: roots.slice(1), home, protectedSet: false });
    const builtIn = new Set(roots.flatMap((root) => ALWAYS_DENIED_READS.map((path) => expandPath(path, { cwd: root, home }))));
    // The agent's own state (every principal's transcripts) is no command's to read.
    const state = roots.map((root) => agentStateDir(root));
    return { hidden: [...policy.denyRead.filter((path) => !builtIn.has(path)), ...state], readOnly: [...builtIn] };
  };
  const { layer, reason } = createProtectedLayer({
    paths: (roots) => {
      const { readOnly, hidden } = denied(roots);
      return { readOnly: [userConfigDir(), ...readOnly], hidden };
    },
    wholeGitDirs: config.adapters.sandbox.security.readOnlyGit,
  });
  if (!layer && reason && !told) {
    told = true;
    log?.(`commands run without the read-only layer (${reason}): see README "Sandbox" for what an allowed bash can change`);
  }
  layers.set(config, layer);
  return layer;
}
