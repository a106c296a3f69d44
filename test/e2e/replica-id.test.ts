import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { TEST_AUTH_TOKEN } from '../helpers/test-auth-token.js';

const URL_LINE = /ACP over HTTP at (http:\/\/\S+\/acp)/;
const MODEL = ['--model', 'openai-compatible:scripted', '--base-url', 'http://127.0.0.1:9/v1'];
const running: HttpCli[] = [];
afterEach(async () => {
  for (const cli of running.splice(0)) await cli.close();
});

describe('the replica route name on the command line', () => {
  it('takes config server.replicaId, PLAITED_REPLICA_ID over it and --replica-id over both; logs it with the URL and names it on every response', async () => {
    const configured = mkdtempSync(join(tmpdir(), 'plaited-replica-id-'));
    mkdirSync(join(configured, '.plaited'));
    writeFileSync(join(configured, '.plaited', 'config.json'), JSON.stringify({ server: { replicaId: 'from-config' } }));
    const fromConfig = await startHttpCli({ cwd: configured, args: MODEL, urlPattern: URL_LINE });
    running.push(fromConfig);
    const answer = await fetch(fromConfig.url, { method: 'POST' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('plaited-replica')).toBe('from-config');
    await answer.body?.cancel();

    const fromEnv = await startHttpCli({ cwd: configured, args: MODEL, urlPattern: URL_LINE, env: { PLAITED_REPLICA_ID: 'from-env' } });
    running.push(fromEnv);
    expect(fromEnv.stderr()).toMatch(/ACP over HTTP at \S+ \(WebSocket on the same path; replica from-env\)/);
    const health = await fetch(new URL('/healthz', fromEnv.url));
    expect(health.headers.get('plaited-replica')).toBe('from-env');
    await health.body?.cancel();

    const fromFlag = await startHttpCli({ cwd: configured, args: [...MODEL, '--replica-id', 'from_flag'], urlPattern: URL_LINE, env: { PLAITED_REPLICA_ID: 'from-env' } });
    running.push(fromFlag);
    const ready = await fetch(new URL('/readyz', fromFlag.url));
    expect(ready.headers.get('plaited-replica')).toBe('from_flag');
    await ready.body?.cancel();
  });

  it('refuses to start with a name a balancer could not route by, saying what a name may hold', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-replica-id-'));
    const result = spawnSync(process.execPath, [CLI, ...MODEL, '--transport', 'http', '--port', '0', '--replica-id', 'web.1'], {
      cwd,
      env: { ...process.env, PLAITED_AUTH_TOKEN: TEST_AUTH_TOKEN },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('the replica id "web.1" must be 1 to 63 letters, digits, "-" or "_" (no ".")');
  });
});
