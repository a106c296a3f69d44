import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize, type AcpCli } from '../helpers/acp-cli.js';

const bed = acpTestBed({ prefix: 'plaited-read-huge-' });

/** The most memory the agent process ever held (kB), from the kernel's own count. */
function peakRssKb(cli: AcpCli): number {
  const status = readFileSync(`/proc/${cli.child.pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1]);
}

function toolResults(request: { messages: Array<{ role: string }> }): string[] {
  return request.messages.filter((message) => message.role === 'tool').map((message) => JSON.stringify(message));
}

describe('read_file of a huge file', () => {
  it('answers a window of a 300 MB file (three reads in parallel) and keeps the agent’s memory bounded', async () => {
    const cwd = bed.project();
    const file = join(cwd, 'huge.log');
    writeFileSync(file, Array.from({ length: 3000 }, (_, i) => `entry ${i + 1}`).join('\n') + '\n');
    truncateSync(file, 300 * 1024 * 1024); // sparse: 300 MB, the rest NULs
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const before = bed.server.requests.length;
    bed.server.push(
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'huge.log' } },
          { name: 'read_file', arguments: { path: 'huge.log', offset: 2999 } },
          { name: 'read_file', arguments: { path: 'huge.log', offset: 2500, limit: 3 } },
        ],
      },
      { text: 'Read.' },
    );
    const answer = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read the log' }] });
    expect(answer.stopReason).toBe('end_turn');

    const [whole, tail, middle] = toolResults(bed.server.requests[before + 1]!);
    expect(whole).toContain('entry 2000');
    expect(whole).not.toContain('entry 2001');
    expect(whole).toContain('more lines follow (the file has 300.0 MB); use offset=2001 to continue.');
    expect(tail).toContain('entry 3000');
    expect(middle).toContain('entry 2502');
    expect(middle).toContain('use offset=2503 to continue');
    // Whole-file reads held 300 MB as a buffer and again as a string, per call.
    expect(peakRssKb(cli)).toBeLessThan(600 * 1024);
  }, 60_000);

  it('asks an ACP client for the window only (fs/read_text_file with line and limit)', async () => {
    const cwd = bed.project();
    const asked: Array<{ line?: number | null; limit?: number | null }> = [];
    const cli = bed.start(cwd, {
      configureClient: (client) => {
        client.onRequest('fs/read_text_file', ({ params }) => {
          asked.push({ line: params.line, limit: params.limit });
          const first = params.line ?? 1;
          return { content: Array.from({ length: params.limit ?? 10 }, (_, i) => `buffer line ${first + i}`).join('\n') };
        });
      },
    });
    await initialize(cli, { fs: { readTextFile: true, writeTextFile: false } });
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const before = bed.server.requests.length;
    bed.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'open-in-editor.txt', offset: 40, limit: 5 } }] }, { text: 'ok' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read the buffer' }] });
    expect(asked).toEqual([{ line: 40, limit: 6 }]);
    const [result] = toolResults(bed.server.requests[before + 1]!);
    expect(result).toContain('buffer line 44');
    expect(result).not.toContain('buffer line 45');
    expect(result).toContain('more lines follow; use offset=45 to continue.');
  }, 60_000);
});
