import { describe, expect, it } from 'vitest';
import type { CreateMessageRequestParams, CreateMessageResult } from '@modelcontextprotocol/client';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { configSchema } from '../../src/config/schema.js';
import { guardSampling } from '../../src/mcp/guard-sampling.js';
import type { McpSessionCallContext } from '../../src/mcp/mcp-registry-types.js';

const request: CreateMessageRequestParams = { messages: [{ role: 'user', content: { type: 'text', text: 'summarise' } }], maxTokens: 10 };
const answer: CreateMessageResult = { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' };

function setup(answerWith: string, server: Record<string, unknown> = {}) {
  let sampled = 0;
  const asked: Array<Extract<AgentOutput, { type: 'permission-request' }>> = [];
  let clock = 0;
  const guarded = guardSampling(async () => (sampled++, answer), { now: () => clock });
  const config = configSchema.parse({ mcp: { servers: [{ id: 'writer', transport: 'stdio', command: 'x', ...server }] } }).mcp.servers[0]!;
  const context: McpSessionCallContext = {
    serverId: 'writer',
    signal: new AbortController().signal,
    sessionId: 's1',
    server: config,
    emit: (event) => {
      if (event.type !== 'permission-request') return;
      asked.push(event);
      event.respond({ outcome: 'selected', optionId: answerWith });
    },
  };
  return { guarded, context, asked, sampled: () => sampled, tick: (ms: number) => (clock += ms) };
}

describe('guardSampling', () => {
  it('refuses when there is no session to ask through, naming the fix', async () => {
    const { guarded, context, sampled } = setup('sampling-once');
    await expect(guarded(request, { ...context, emit: undefined })).rejects.toMatchObject({ code: -1, message: expect.stringMatching(/no user to ask.*sampling: 'allow'/) });
    expect(sampled()).toBe(0);
  });

  it('a rejected question is an MCP error; "always" stops asking for that server in that session', async () => {
    const rejected = setup('sampling-reject');
    await expect(rejected.guarded(request, rejected.context)).rejects.toMatchObject({ code: -1, message: expect.stringContaining('the user declined') });
    const always = setup('sampling-always');
    await always.guarded(request, always.context);
    await always.guarded(request, always.context);
    expect(always.asked).toHaveLength(1);
    expect(always.sampled()).toBe(2);
  });

  it('counts requests over a sliding minute, per the config, and lets them through again after it', async () => {
    const { guarded, context, sampled, tick } = setup('sampling-once', { sampling: 'allow', samplingPerMinute: 2 });
    await guarded(request, context);
    await guarded(request, context);
    await expect(guarded(request, context)).rejects.toMatchObject({ message: expect.stringContaining('2 completions per minute') });
    tick(60_001);
    await guarded(request, context);
    expect(sampled()).toBe(3);
  });

  it("the question names what the answer may spend: the sampler's cap when the server asks for more", async () => {
    const capped = Object.assign(async () => answer, { maxTokensCap: 20 });
    const { context, asked } = setup('sampling-once');
    await guardSampling(capped)({ ...request, maxTokens: 1_000 }, context);
    await guardSampling(capped)({ ...request, maxTokens: 8 }, context);
    await guardSampling(async () => answer)({ ...request, maxTokens: 1_000 }, context);
    expect(asked.map((question) => /up to (\d+) tokens/.exec(question.title)?.[1])).toEqual(['20', '8', '1000']);
  });
});
