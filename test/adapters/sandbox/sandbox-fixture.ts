import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

/**
 * A throwaway world for the attack battery: a fake HOME with an SSH key, a
 * project with a `.env` and an `output/` folder, a symlink in `output/` that
 * leads out of it, an HTTP server on 127.0.0.1 (the "allowed domain") and a
 * bare TCP server on 127.0.0.1 (the one that must stay unreachable). Both
 * servers count what reaches them, so a test can prove nothing did.
 */
export interface SandboxWorld {
  root: string;
  home: string;
  project: string;
  sshKeyPath: string;
  outsideTarget: string;
  httpPort: number;
  tcpPort: number;
  /** Connections the forbidden TCP server accepted. */
  tcpConnections(): number;
  close(): Promise<void>;
}

export const FIXTURE_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nplaited-fixture-key-not-a-real-secret\n-----END OPENSSH PRIVATE KEY-----\n';
export const FIXTURE_ENV = 'API_TOKEN=fixture-token-not-a-real-secret\n';
export const ALLOWED_BODY = 'hello from the allowed host';

export async function createSandboxWorld(): Promise<SandboxWorld> {
  const root = mkdtempSync(join(tmpdir(), 'plaited-sandbox-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(project, 'output'), { recursive: true });
  const sshKeyPath = join(home, '.ssh', 'id_rsa');
  writeFileSync(sshKeyPath, FIXTURE_KEY, { mode: 0o600 });
  writeFileSync(join(project, '.env'), FIXTURE_ENV);
  // Outside the project too, so the link leads out of every writable path (the whole-agent walls include the project).
  const outsideTarget = join(root, 'outside.txt');
  symlinkSync(outsideTarget, join(project, 'output', 'escape-link'));

  const http: HttpServer = createHttpServer((_request, response) => response.end(ALLOWED_BODY));
  let connections = 0;
  const tcp: TcpServer = createTcpServer((socket) => {
    connections++;
    socket.end('forbidden service\n');
  });
  const httpPort = await listen(http);
  const tcpPort = await listen(tcp);
  return {
    root,
    home,
    project,
    sshKeyPath,
    outsideTarget,
    httpPort,
    tcpPort,
    tcpConnections: () => connections,
    async close() {
      await Promise.all([new Promise((done) => http.close(done)), new Promise((done) => tcp.close(done))]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function listen(server: HttpServer | TcpServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** A file's SHA-256, to prove an attack left it unchanged. */
export function fileHash(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Fails loudly, naming the package to install, when a program the sandbox needs is missing. */
export function requirePrograms(...names: string[]): void {
  const missing = names.filter((name) => spawnSync('sh', ['-c', `command -v ${name}`]).status !== 0);
  if (missing.length > 0) {
    throw new Error(`sandbox tests need ${missing.join(', ')} on PATH: apt-get install -y bubblewrap socat ripgrep curl`);
  }
}

/**
 * Refuses to run a fork bomb where nothing would stop it: as root the kernel
 * ignores `ulimit -u`, and only a writable pids cgroup caps the sandbox.
 */
export async function requireProcessLimit(): Promise<void> {
  const { checkSandboxAvailability } = await import('../../../src/adapters/sandbox/sandbox-availability.js');
  const availability = await checkSandboxAvailability();
  if (!availability.processLimit) {
    throw new Error(
      'the fork-bomb test needs an enforceable process limit: run as a non-root user, or as root with a writable pids cgroup (/sys/fs/cgroup/pids, or cgroup v2 with pids delegated)',
    );
  }
}
