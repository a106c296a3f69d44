import { describe, expect, it } from 'vitest';
import { promptArguments, promptUsage } from '../../src/mcp/prompt-arguments.js';
import { promptCommandName } from '../../src/mcp/prompt-command-name.js';

const greet = [
  { name: 'name', required: true },
  { name: 'style', required: false },
];
const three = [{ name: 'repo', required: true }, { name: 'branch', required: true }, { name: 'note' }];

describe('the arguments of /server:prompt', () => {
  it('one argument takes the whole text, with or without its name=', () => {
    expect(promptArguments([{ name: 'diff', required: true }], 'fix the bug in a=b')).toEqual({ args: { diff: 'fix the bug in a=b' }, missing: [] });
    expect(promptArguments([{ name: 'diff', required: true }], 'diff=x y')).toEqual({ args: { diff: 'x y' }, missing: [] });
    expect(promptArguments([{ name: 'diff', required: true }], '').missing.map((argument) => argument.name)).toEqual(['diff']);
  });

  it('several take name=value pairs (quoted or not) and words in order; the last unfilled one takes the rest', () => {
    expect(promptArguments(greet, 'Ann style=formal').args).toEqual({ name: 'Ann', style: 'formal' });
    expect(promptArguments(greet, 'style=formal Ann Lee').args).toEqual({ name: 'Ann Lee', style: 'formal' });
    expect(promptArguments(greet, 'name="Ann Lee" casual').args).toEqual({ name: 'Ann Lee', style: 'casual' });
    expect(promptArguments(greet, '"Ann Lee" very casual').args).toEqual({ name: 'Ann Lee', style: 'very casual' });
    expect(promptArguments(three, 'plaited note=hi main dev').args).toEqual({ repo: 'plaited', branch: 'main dev', note: 'hi' });
    // A pair naming no declared argument is a word like any other.
    expect(promptArguments(three, 'a=b main the rest').args).toEqual({ repo: 'a=b', branch: 'main', note: 'the rest' });
  });

  it('names the required arguments left out (an empty value counts as left out)', () => {
    expect(promptArguments(greet, 'style=formal').missing.map((argument) => argument.name)).toEqual(['name']);
    expect(promptArguments(three, 'branch= note=x').missing.map((argument) => argument.name)).toEqual(['repo', 'branch']);
    expect(promptUsage(greet)).toBe('<name> [style]');
  });

  it('names a command server:prompt with nothing a client would split on', () => {
    expect(promptCommandName('fx', 'greet')).toBe('fx:greet');
    expect(promptCommandName('my server', 'review/pr:now')).toBe('my_server:review_pr_now');
    expect(promptCommandName('gh.enterprise', 'open-issue')).toBe('gh.enterprise:open-issue');
  });
});
