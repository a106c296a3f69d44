import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { agentText, initialize, type AcpCli } from '../helpers/acp-cli.js';
import type { RecordedRequest } from '../helpers/scripted-openai-server.js';

/** Turns and restarts of the real CLI: generous for a loaded CI machine (a bound, not a measure). */
const RESTART_TIMEOUT_MS = 90_000;
const bed = acpTestBed({ prefix: 'plaited-attachments-' });

/** A real 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>').toString('base64');

async function newSession(cli: AcpCli, cwd: string): Promise<string> {
  await initialize(cli);
  return (await cli.agent.request('session/new', { cwd, mcpServers: [] })).sessionId;
}

function sendsAnImage(request: RecordedRequest): boolean {
  return JSON.stringify(request.messages).includes('image_url');
}

describe('attachments are checked before anything is stored', () => {
  it('refuses base64 that is not the image it claims to be with -32602 naming the cause, and stores nothing of it', async () => {
    const cwd = bed.project();
    const first = bed.start(cwd);
    const sessionId = await newSession(first, cwd);
    const refused = [
      { block: { type: 'image' as const, data: Buffer.from('hello').toString('base64'), mimeType: 'image/png' }, cause: 'is not a image/png image' },
      { block: { type: 'image' as const, data: SVG, mimeType: 'image/svg+xml' }, cause: 'image/svg+xml, which models do not take' },
      { block: { type: 'image' as const, data: 'AA==', mimeType: 'image/png' }, cause: 'is not a image/png image' },
      { block: { type: 'image' as const, data: PNG, mimeType: 'image/jpeg' }, cause: 'is a image/png image, but mimeType says image/jpeg' },
    ];
    for (const { block, cause } of refused) {
      const error = await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'look' }, block] }).then(
        () => undefined,
        (failure: unknown) => failure as { code: number; message: string; data?: unknown },
      );
      expect(error?.code, block.mimeType).toBe(-32602);
      expect(`${error?.message} ${JSON.stringify(error?.data)}`).toContain(`prompt[1]`);
      expect(`${error?.message} ${JSON.stringify(error?.data)}`).toContain(cause);
    }
    expect(bed.server.requests).toHaveLength(0);
    await bed.closeNow(first);

    const second = bed.start(cwd);
    await initialize(second);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(JSON.stringify(second.updates)).not.toContain(SVG);
    expect(JSON.stringify(second.updates)).not.toContain('AA==');
    bed.server.push({ text: 'all good' });
    expect((await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).stopReason).toBe('end_turn');
    expect(bed.server.requests).toHaveLength(1);
  }, RESTART_TIMEOUT_MS);

  it('an image the provider still refuses is left out of what is sent, with a notice; the stored record keeps it', async () => {
    const cwd = bed.project();
    const first = bed.start(cwd);
    const sessionId = await newSession(first, cwd);
    const refusal = {
      status: 400,
      errorBody: { error: { message: "You uploaded an unsupported image. Please make sure your image is valid.", type: 'invalid_request_error', param: null, code: 'invalid_image_format' } },
    };
    for (let turn = 0; turn < 2; turn++) bed.server.push(refusal, { text: `answer ${turn}` });
    const answer = await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'see this' }, { type: 'image', data: PNG, mimeType: 'image/png' }] });
    expect(answer.stopReason).toBe('end_turn');
    expect(agentText(first, sessionId)).toContain('answer 0');
    expect(agentText(first, sessionId)).toContain('unsupported image');
    expect(agentText(first, sessionId)).toContain('left out of what is sent');
    expect(sendsAnImage(bed.server.requests[0]!)).toBe(true);
    expect(sendsAnImage(bed.server.requests[1]!)).toBe(false);
    await bed.closeNow(first);

    const second = bed.start(cwd);
    await initialize(second);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(JSON.stringify(second.updates)).toContain(PNG);
    const next = await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
    expect(next.stopReason).toBe('end_turn');
    // The stored record still has the image: it is offered again, and left out again when refused.
    expect(sendsAnImage(bed.server.requests[2]!)).toBe(true);
    expect(agentText(second, sessionId)).toContain('answer 1');
  }, RESTART_TIMEOUT_MS);
});
