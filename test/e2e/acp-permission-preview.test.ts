import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize } from '../helpers/acp-cli.js';

const bed = acpTestBed({ prefix: 'plaited-permission-preview-' });

/**
 * An editor shows a permission question's `toolCall.content`: for an edit, the diff the user
 * allows. Without it the user approved blind (only the raw arguments).
 */
describe('a permission question for an edit carries its diff', () => {
  it('edit_file and write_file ask with the change they would make; a rejected write changes nothing; an edit that cannot apply asks without one', async () => {
    const cwd = bed.project();
    writeFileSync(join(cwd, 'notes.txt'), 'one\ntwo\n');
    const asked: acp.RequestPermissionRequest[] = [];
    const cli = bed.start(cwd, {
      onPermission: (request) => {
        asked.push(request);
        const answer = request.toolCall.title?.startsWith('Write') ? 'reject-once' : 'allow-once';
        return { outcome: { outcome: 'selected', optionId: request.options.find((option) => option.optionId === answer)!.optionId } };
      },
    });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push(
      { toolCalls: [{ id: 'edit_1', name: 'edit_file', arguments: JSON.stringify({ path: 'notes.txt', old_string: 'two', new_string: 'deux' }) }] },
      { toolCalls: [{ id: 'write_1', name: 'write_file', arguments: JSON.stringify({ path: 'fresh.txt', content: 'new file\n' }) }] },
      { toolCalls: [{ id: 'edit_2', name: 'edit_file', arguments: JSON.stringify({ path: 'notes.txt', old_string: 'absent', new_string: 'x' }) }] },
      { text: 'done' },
    );
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'change things' }] })).stopReason).toBe('end_turn');

    const [edit, write, unapplicable] = asked;
    expect(edit?.toolCall.content).toEqual([{ type: 'diff', path: join(cwd, 'notes.txt'), oldText: 'one\ntwo\n', newText: 'one\ndeux\n' }]);
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('one\ndeux\n');
    expect(write?.toolCall.content).toEqual([{ type: 'diff', path: join(cwd, 'fresh.txt'), oldText: null, newText: 'new file\n' }]);
    expect(existsSync(join(cwd, 'fresh.txt'))).toBe(false);
    // The edit would fail (its text is not in the file): no diff to show, the question still comes.
    expect(unapplicable).toBeDefined();
    expect(unapplicable!.toolCall.content).toBeUndefined();
  });
});
