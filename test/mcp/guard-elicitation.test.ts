import { describe, expect, it } from 'vitest';
import type { ElicitRequestParams } from '@modelcontextprotocol/client';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { configSchema } from '../../src/config/schema.js';
import { DEFAULT_ELICITATION_PER_MINUTE, guardElicitation } from '../../src/mcp/guard-elicitation.js';
import type { McpSessionCallContext } from '../../src/mcp/mcp-registry-types.js';

const request = { message: 'Proceed?', requestedSchema: { type: 'object', properties: {} } } as ElicitRequestParams;

function setup(server: Record<string, unknown> = {}) {
  let asked = 0;
  let clock = 0;
  const notices: AgentOutput[] = [];
  const guarded = guardElicitation(async () => (asked++, { action: 'accept', content: {} }), { now: () => clock });
  const config = configSchema.parse({ mcp: { servers: [{ id: 'nag', transport: 'stdio', command: 'x', ...server }] } }).mcp.servers[0]!;
  const context: McpSessionCallContext = { serverId: 'nag', signal: new AbortController().signal, sessionId: 's1', server: config, emit: (event) => notices.push(event) };
  return { guarded, context, notices, asked: () => asked, tick: (ms: number) => (clock += ms) };
}

describe('guardElicitation', () => {
  it('puts the first questions of a minute to the user, declines the rest unasked with a notice naming the setting, and asks again a minute on', async () => {
    const { guarded, context, notices, asked, tick } = setup();
    for (let i = 0; i < DEFAULT_ELICITATION_PER_MINUTE; i++) expect(await guarded(request, context)).toEqual({ action: 'accept', content: {} });
    expect(await guarded(request, context)).toEqual({ action: 'decline' });
    expect(asked()).toBe(DEFAULT_ELICITATION_PER_MINUTE);
    expect(notices).toEqual([expect.objectContaining({ type: 'notice', sessionId: 's1', level: 'warning', message: expect.stringMatching(/"nag" asked more than 5 questions in a minute.*elicitationPerMinute/) })]);
    // Another session is counted apart; a minute later the server may ask again.
    expect(await guarded(request, { ...context, sessionId: 's2' })).toEqual({ action: 'accept', content: {} });
    tick(60_001);
    expect(await guarded(request, context)).toEqual({ action: 'accept', content: {} });
  });

  it('takes the server config\'s elicitationPerMinute (0: never asks)', async () => {
    const { guarded, context, asked } = setup({ elicitationPerMinute: 0 });
    expect(await guarded(request, context)).toEqual({ action: 'decline' });
    expect(asked()).toBe(0);
  });
});
