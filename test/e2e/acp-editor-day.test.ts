import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { sharedAcpBed } from '../helpers/shared-acp-bed.js';

/**
 * An editor user's day on the ACP face (stdio, v1): what the conformance kit does not look at.
 * The tests share one CLI, each in sessions and folders of its own, with a config folder of the
 * CLI's own for the "always" answers.
 */
const bed = sharedAcpBed({ prefix: 'plaited-editor-day-' });

const pathOf = (request: acp.RequestPermissionRequest) => (request.toolCall.rawInput as { path: string }).path;

describe('an editor user over ACP', () => {
  const shared = bed.shared({ env: { XDG_CONFIG_HOME: bed.project() } });

  it('"always allow anywhere in the project folder" does not cover a write in an additional directory', async () => {
    const cwd = bed.project();
    const extra = mkdtempSync(join(tmpdir(), 'plaited-editor-day-extra-'));
    const asked: acp.RequestPermissionRequest[] = [];
    const { cli } = shared;
    const { sessionId } = await cli.agent.request('session/new', { cwd, additionalDirectories: [extra], mcpServers: [] });
    const answer = (request: acp.RequestPermissionRequest): acp.RequestPermissionResponse => {
      asked.push(request);
      const folder = request.options.find((option) => option.optionId === 'allow-always-folder');
      return { outcome: { outcome: 'selected', optionId: asked.length === 1 ? folder!.optionId : 'reject-once' } };
    };
    shared.onPermission(sessionId, answer);
    bed.server.push(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'inside.txt', content: 'in' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'sub/also-inside.txt', content: 'in' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: join(extra, 'outside.txt'), content: 'out' } }] },
      { text: 'Done.' },
    );
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write three files' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(asked[0]!.options.find((option) => option.optionId === 'allow-always-folder')?.name).toContain('anywhere in the project folder');
    // The project's files are covered by the answer; the extra folder is not the project: it asks.
    expect(asked.map(pathOf)).toEqual(['inside.txt', join(extra, 'outside.txt')]);
    expect(readFileSync(join(cwd, 'sub/also-inside.txt'), 'utf8')).toBe('in');
    expect(existsSync(join(extra, 'outside.txt'))).toBe(false);
  });
});
