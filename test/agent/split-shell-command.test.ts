import { describe, expect, it } from 'vitest';
import { formatShellPart, splitShellCommand } from '../../src/agent/split-shell-command.js';

const parts = (command: string) => splitShellCommand(command)?.map(formatShellPart);

describe('splitShellCommand', () => {
  it('splits every control operator and subshell into simple commands', () => {
    expect(parts('echo scoped-ok')).toEqual(['echo scoped-ok']);
    expect(parts('echo a && rm -rf notes')).toEqual(['echo a', 'rm -rf notes']);
    expect(parts('a; b | c || d & e |& f')).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(parts('(cd x; rm y) && z')).toEqual(['cd x', 'rm y', 'z']);
    expect(parts('git commit -m "fix: a;b"')).toEqual(["git commit -m 'fix: a;b'"]);
  });

  it('keeps redirections with their command and marks writes to files', () => {
    const [part] = splitShellCommand('echo hi > out.txt')!;
    expect(part).toMatchObject({ words: ['echo', 'hi'], writesFile: true });
    expect(splitShellCommand('npm test > /dev/null')![0]!.writesFile).toBe(false);
    expect(splitShellCommand('cat < in.txt')![0]!.writesFile).toBe(false);
  });

  it('a part written back as a rule reads back as the same part', () => {
    for (const command of ["grep -n 'a$b' src/x.ts", 'git commit -m "fix: a;b (c)"', "echo 'it''s' > out.txt", 'npm test -- --grep "x y"']) {
      const [part] = splitShellCommand(command)!;
      expect(splitShellCommand(formatShellPart(part!)), command).toEqual([part]);
    }
  });

  it('does not judge what it cannot follow exactly', () => {
    for (const command of [
      'echo $(rm -rf notes)',
      'echo `rm -rf notes`',
      'echo "$(rm -rf notes)"',
      'echo ok\nrm -rf notes',
      'd=.gi; printf x > ${d}t/hooks/pre-push',
      "printf x > $'\\x2egit/hooks/pre-rebase'",
      'cat <<EOF\nx\nEOF',
      'diff <(ls a) <(ls b)',
      'echo a # ; rm -rf notes',
      'if true; then rm -rf notes; fi',
      '{rm,-rf,notes}',
      'cd .plai* && ls',
      'rm ~/x',
    ]) {
      expect(splitShellCommand(command), command).toBeUndefined();
    }
  });
});
