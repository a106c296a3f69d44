import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The reference configuration the README points to; the tests run this very file. */
export const NGINX_REFERENCE_CONF = join(root, 'deploy/nginx/plaited-agent.conf');
/** The replicas the reference configuration names, in order: their address and their `--replica-id`. */
export const NGINX_REFERENCE_REPLICAS = [
  { address: '10.0.0.11:3284', replicaId: 'replica-a' },
  { address: '10.0.0.12:3284', replicaId: 'replica-b' },
  { address: '10.0.0.13:3284', replicaId: 'replica-c' },
] as const;
const REFERENCE_LISTEN = 'listen 80;';

export interface NginxBalancer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  port: number;
  /** nginx's error log so far (for a failing test's message). */
  errorLog(): string;
  /** The access log: one line per request, `<status> <upstream address> <method> <uri>`. */
  accessLog(): string;
  stop(): Promise<void>;
}

/**
 * Debian's nginx (`apt-get install nginx`, as .ci/run does) in front of up to three replicas,
 * with the reference configuration: the file's three replica addresses become `127.0.0.1:<port>`
 * of `replicaPorts` (in the order of `NGINX_REFERENCE_REPLICAS`: start the replicas with those
 * `--replica-id`s), its listen port `listenPort` or a free loopback one; nothing else is changed. nginx runs in
 * the foreground as the current user, with its pid, logs and temp files in a temp prefix.
 */
export async function startNginxBalancer(replicaPorts: readonly number[], options: { listenPort?: number } = {}): Promise<NginxBalancer> {
  if (replicaPorts.length !== NGINX_REFERENCE_REPLICAS.length) throw new Error(`the reference nginx configuration names ${NGINX_REFERENCE_REPLICAS.length} replicas; got ${replicaPorts.length} ports`);
  const binary = ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].find((path) => existsSync(path));
  if (!binary) throw new Error('nginx not found in /usr/sbin or /usr/local/sbin: install it (apt-get install nginx) to run the replica tests');
  const prefix = mkdtempSync(join(tmpdir(), 'plaited-nginx-'));
  for (const dir of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(prefix, dir));
  writeFileSync(join(prefix, 'plaited-agent.conf'), renderReference(replicaPorts, options.listenPort ?? (await freePort())));
  writeFileSync(join(prefix, 'nginx.conf'), mainConf(prefix));
  try {
    return await run(binary, prefix);
  } catch (error) {
    rmSync(prefix, { recursive: true, force: true });
    throw error;
  }
}

/** The reference file with the test's addresses and listen port; fails loudly if the file no longer names what it replaces. */
function renderReference(replicaPorts: readonly number[], listenPort: number): string {
  let conf = readFileSync(NGINX_REFERENCE_CONF, 'utf8');
  const swaps: Array<[string, string]> = NGINX_REFERENCE_REPLICAS.map((replica, index) => [replica.address, `127.0.0.1:${replicaPorts[index]}`]);
  swaps.push([REFERENCE_LISTEN, `listen 127.0.0.1:${listenPort};`]);
  for (const [from, to] of swaps) {
    if (!conf.includes(from)) throw new Error(`${NGINX_REFERENCE_CONF} no longer contains "${from}": update test/helpers/nginx-balancer.ts`);
    conf = conf.split(from).join(to);
  }
  return conf;
}

/** The main context the reference file is included in: only paths and the process's own settings. */
function mainConf(prefix: string): string {
  const asRoot = process.getuid?.() === 0;
  return [
    // As root, nginx would switch its worker to `nobody`, which cannot write the temp prefix.
    ...(asRoot ? [`user ${userInfo().username};`] : []),
    'worker_processes 1;',
    `error_log ${join(prefix, 'error.log')} info;`,
    'events { worker_connections 1024; }',
    'http {',
    "  log_format replicas '$status $upstream_addr $request_method $request_uri';",
    `  access_log ${join(prefix, 'access.log')} replicas;`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(prefix, kind === 'client_body' ? 'body' : kind)};`),
    `  include ${join(prefix, 'plaited-agent.conf')};`,
    '}',
    '',
  ].join('\n');
}

async function run(binary: string, prefix: string): Promise<NginxBalancer> {
  const conf = join(prefix, 'nginx.conf');
  const child = spawn(binary, ['-p', prefix, '-e', join(prefix, 'error.log'), '-c', conf, '-g', `daemon off; pid ${join(prefix, 'nginx.pid')};`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const read = (name: string) => (existsSync(join(prefix, name)) ? readFileSync(join(prefix, name), 'utf8') : '');
  const port = Number(/listen 127\.0\.0\.1:(\d+);/.exec(readFileSync(join(prefix, 'plaited-agent.conf'), 'utf8'))![1]);
  await untilAccepting(port, child, join(prefix, 'nginx.pid'), () => `${stderr}${read('error.log')}`);
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    errorLog: () => read('error.log'),
    accessLog: () => read('access.log'),
    stop: async () => {
      await stopProcess(child);
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

async function untilAccepting(port: number, child: ChildProcess, pidFile: string, log: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`nginx exited (${child.exitCode ?? child.signalCode}): ${log()}`);
    // nginx writes its pid once its ports are bound: an accepting port without it may be another process's.
    if ((await accepts(port)) && existsSync(pidFile)) return;
    if (Date.now() > deadline) throw new Error(`nginx did not accept connections on port ${port} within 20 s: ${log()}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/** SIGTERM: nginx's fast stop (open SSE streams would hold a graceful one for an hour); SIGKILL after 10 s. */
function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

/**
 * A loopback port free right now, for a balancer whose address the replicas must know before it
 * starts (`listenPort`). Picked below the kernel's ephemeral range (from 32768 on Linux): a port
 * the kernel hands out could go to any server of a test running beside this one (they listen on
 * port 0) between this probe and nginx's bind, and then "nginx accepts" would be that server.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
  throw new Error('no free loopback port between 20000 and 32000 after 50 tries');
}

function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}
