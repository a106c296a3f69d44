import { describe, expect, it } from 'vitest';
import { mcpServerSchema } from '../../src/config/schema.js';
import { expandServerVariables } from '../../src/mcp/expand-server-variables.js';

const env = { DOCS_TOKEN: 'token-1', EMPTY: '', HOST: 'docs.example.com' };

describe('expandServerVariables', () => {
  it('replaces ${NAME} in args, env, url, headers and the bearer token, and ${NAME:-default} when unset or empty', () => {
    const server = mcpServerSchema.parse({
      id: 'docs',
      transport: 'http',
      url: 'https://${HOST}/mcp',
      args: ['--region=${REGION:-eu}'],
      env: { TOKEN: '${DOCS_TOKEN}', MODE: '${EMPTY:-safe}' },
      headers: { 'X-Key': 'key ${DOCS_TOKEN} and $NOT_A_VARIABLE' },
      auth: { type: 'bearer', token: '${DOCS_TOKEN}' },
    });
    const expanded = expandServerVariables(server, env);
    expect(expanded).toMatchObject({
      url: 'https://docs.example.com/mcp',
      args: ['--region=eu'],
      env: { TOKEN: 'token-1', MODE: 'safe' },
      headers: { 'X-Key': 'key token-1 and $NOT_A_VARIABLE' },
      auth: { type: 'bearer', token: 'token-1' },
    });
    // The config as written is untouched (it is what /mcp shows and sessions store).
    expect(server.auth).toEqual({ type: 'bearer', token: '${DOCS_TOKEN}' });
  });

  it('refuses an unset variable without a default as a permanent connect failure naming it and the field', () => {
    const server = mcpServerSchema.parse({ id: 'gh', transport: 'stdio', command: 'gh-mcp', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } });
    expect(() => expandServerVariables(server, env)).toThrow(
      expect.objectContaining({ code: 'connect_failed', permanent: true, message: expect.stringContaining('GITHUB_TOKEN (used in its env.GITHUB_TOKEN) is not set') }),
    );
  });
});
