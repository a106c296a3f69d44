import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { agentText, initialize } from '../helpers/acp-cli.js';

/** Turns and restarts of the real CLI: generous for a loaded CI machine (a bound, not a measure). */
const RESTART_TIMEOUT_MS = 90_000;
const bed = acpTestBed({ prefix: 'plaited-reply-cap-' });

describe('a reply past agent.maxReplyBytes', () => {
  it('is cut there: the turn ends max_tokens with a notice naming the setting, and the session goes on', async () => {
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agent: { maxReplyBytes: 20_000 } }));
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const words = Array.from({ length: 10_000 }, (_, i) => `w${i}`).join(' ');
    bed.server.push({ text: words, toolCalls: [{ id: 'never_run', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] });
    const answer = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'talk forever' }] });
    expect(answer.stopReason).toBe('max_tokens');
    const shown = agentText(cli, sessionId);
    expect(shown).toContain('agent.maxReplyBytes');
    const reply = shown.slice(0, shown.indexOf('\n['));
    expect(Buffer.byteLength(reply)).toBeLessThanOrEqual(20_000);
    expect(words.startsWith(reply)).toBe(true);
    expect(reply.length).toBeGreaterThan(10_000);

    const from = cli.updates.length;
    bed.server.push({ text: 'short now' });
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'briefly?' }] })).stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId, from)).toBe('short now');
    const history = JSON.stringify(bed.server.requests.at(-1)!.messages);
    expect(history).not.toContain('never_run');
  }, RESTART_TIMEOUT_MS);
});
