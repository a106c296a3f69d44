import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTextToolCalls, ToolCallTextFilter } from '../../src/agent/text-tool-calls.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject, textOf } from './agent-test-kit.js';

describe('text-format (xml) tool calls', () => {
  it('parses <tool_call> blocks from text, runs them, and returns results as <tool_result> text', async () => {
    const cwd = tempProject();
    writeFileSync(join(cwd, 'a.txt'), 'xml file body');
    const model = scriptedModel([
      { text: 'Let me look.\n<tool_call>{"tool": "read_file", "args": {"path": "a.txt"}}</tool_call>' },
      { text: 'It says xml file body.' },
    ]);
    const agent = makeAgent(model, { agent: { toolCallFormat: 'xml' } });
    const { sessionId } = await agent.sessions.create({ cwd });
    const events = await collect(agent, sessionId, 'read a.txt');
    expect(model.calls[0]!.tools ?? []).toEqual([]);
    const system = JSON.stringify(model.calls[0]!.prompt[0]);
    expect(system).toContain('<tool_call>');
    expect(system).toContain('read_file');
    // The client sees prose only.
    expect(textOf(events)).toBe('Let me look.\nIt says xml file body.');
    expect(events.find((event) => event.type === 'tool-call')).toMatchObject({ toolName: 'read_file', input: { path: 'a.txt' } });
    const second = model.calls[1]!.prompt;
    const last = JSON.stringify(second.at(-1));
    expect(second.at(-1)!.role).toBe('user');
    expect(last).toContain('<tool_result tool=\\"read_file\\">');
    expect(last).toContain('xml file body');
    // The assistant's own text (with its block) is kept verbatim: no native tool-call parts.
    expect(JSON.stringify(second)).not.toContain('"tool-call"');
  });

  it('reports malformed blocks to the model as errors and runs the good ones', async () => {
    const cwd = tempProject();
    const model = scriptedModel([
      {
        text:
          '<tool_call>{"tool": "write_file", "args": {"path": "x.txt", </tool_call>' +
          '<tool_call>["not", "an", "object"]</tool_call>' +
          '<tool_call>{"tool": "write_file", "args": {"path": "ok.txt", "content": "fine"}}</tool_call>',
      },
      { text: 'fixed' },
    ]);
    const agent = makeAgent(model, { agent: { toolCallFormat: 'xml', defaultMode: 'accept-edits' } });
    const { sessionId } = await agent.sessions.create({ cwd });
    const events = await collect(agent, sessionId, 'write');
    expect(readFileSync(join(cwd, 'ok.txt'), 'utf8')).toBe('fine');
    const failed = events.filter((event) => event.type === 'tool-call-update' && event.status === 'failed');
    expect(failed).toHaveLength(2);
    const feedback = JSON.stringify(model.calls[1]!.prompt.at(-1));
    expect(feedback.match(/malformed <tool_call> block/g)).toHaveLength(2);
    expect(feedback).toContain('error=\\"true\\"');
  });

  it('parses edge cases: unclosed blocks, missing args, non-object args', () => {
    const calls = parseTextToolCalls('a <tool_call>{"tool":"glob"}</tool_call> b <tool_call>{"tool":"x","args":[1]}</tool_call><tool_call>{"tool":"y"');
    expect(calls.map((call) => [call.toolName, call.invalidReason === undefined])).toEqual([
      ['glob', true],
      ['x', false],
      ['y', false],
    ]);
    expect(calls[0]!.input).toEqual({});
    expect(calls[2]!.invalidReason).toContain('no closing');
  });

  it('hides blocks from streamed text even when tags are split across chunks', () => {
    const filter = new ToolCallTextFilter();
    const input = 'Hi <to' + 'ol_call>{"tool":"glob"}</tool' + '_call> there <b>bold</b> <tool';
    let out = '';
    for (const piece of input.match(/.{1,3}/gs)!) out += filter.push(piece);
    out += filter.flush();
    expect(out).toBe('Hi  there <b>bold</b> <tool');
  });
});
