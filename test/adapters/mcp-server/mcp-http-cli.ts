import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI } from '../../helpers/acp-cli.js';
import { runtimeExecutable, type RuntimeName } from '../../helpers/runtimes.js';
import { TEST_AUTH_TOKEN } from '../../helpers/test-auth-token.js';
import { requireBuiltCli } from './mcp-test-kit.js';
import { trustProjectConfig } from '../../helpers/trust-config.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** A temp copy of the MCP fixture project (one skill: release-notes). */
export function fixtureProject(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-mcp-http-'));
  cpSync(join(root, 'test/fixtures/adapters/mcp-project'), cwd, { recursive: true });
  return cwd;
}

export interface HttpCli {
  child: ChildProcess;
  /** Read from the CLI's "listening" log line. */
  url: string;
  stderr(): string;
  close(): Promise<void>;
}

/** Starts the built CLI serving HTTP (`--transport http --port 0`, or `port`) and waits for the URL it logs; clients authenticate with `TEST_AUTH_TOKEN` unless `env` says otherwise. */
export async function startHttpCli(options: {
  cwd: string;
  args: string[];
  urlPattern: RegExp;
  transportFlag?: boolean;
  env?: Record<string, string | undefined>;
  /** The runtime that runs the CLI (default: this Node). */
  runtime?: RuntimeName;
  /** The port to listen on (default 0: any free one); a restarted replica takes its old one again. */
  port?: number;
}): Promise<HttpCli> {
  requireBuiltCli();
  const transport = options.transportFlag === false ? [] : ['--transport', 'http'];
  const env: NodeJS.ProcessEnv = { ...process.env, PLAITED_AUTH_TOKEN: TEST_AUTH_TOKEN, ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  trustProjectConfig(options.cwd, options.args, options.env);
  const child = spawn(runtimeExecutable(options.runtime), [CLI, ...options.args, ...transport, '--port', String(options.port ?? 0)], {
    cwd: options.cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((found, fail) => {
    const timer = setTimeout(() => fail(new Error(`the CLI did not report its URL within 20 s; stderr:\n${stderr}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = options.urlPattern.exec(stderr);
      if (match) {
        clearTimeout(timer);
        found(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the CLI exited (${code}) before listening; stderr:\n${stderr}`));
    });
  });
  return {
    child,
    url,
    stderr: () => stderr,
    close: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          done();
        });
        child.kill('SIGTERM');
      }),
  };
}
