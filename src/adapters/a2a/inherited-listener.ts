import { createServer } from 'node:net';

/** Set for a sandboxed child: the fd of the A2A listening socket its parent opened. */
export const A2A_LISTEN_FD_ENV = 'PLAITED_A2A_LISTEN_FD';

/**
 * A listening TCP socket for a child to inherit. The whole-agent sandbox gives the agent a
 * network namespace of its own, so a server it opened inside would be unreachable; the
 * parent binds in the host's namespace and the child accepts on the inherited socket.
 * `release` closes the parent's copy: call it right after spawning, before the event loop
 * turns, so the parent never accepts a connection itself.
 */
export async function openInheritableListener(host: string, port: number): Promise<{ fd: number; release(): void }> {
  const server = createServer();
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen({ host, port, exclusive: true }, () => ready());
  });
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) {
    server.close();
    throw new Error('cannot hand the A2A listening socket to the sandboxed agent on this platform');
  }
  return { fd, release: () => server.close() };
}

/** The inherited fd named by the environment, if any. */
export function inheritedListenFd(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = env[A2A_LISTEN_FD_ENV];
  if (!value || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}
