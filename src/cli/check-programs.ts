import { spawnSync } from 'node:child_process';
import type { DoctorCheck } from './doctor-check.js';

const PROGRAMS: ReadonlyArray<{ name: string; args: string[]; why: string; fix: string }> = [
  { name: 'rg', args: ['--version'], why: 'the grep and glob tools', fix: 'install ripgrep (apt install ripgrep, brew install ripgrep)' },
  { name: 'bwrap', args: ['--version'], why: 'the sandbox around commands', fix: 'install bubblewrap (apt install bubblewrap); without it commands run without the read-only layer' },
  { name: 'socat', args: ['-V'], why: "the sandbox's network proxy", fix: 'install socat (apt install socat)' },
  { name: 'setpriv', args: ['--version'], why: 'dropping privileges in the sandbox', fix: 'install util-linux (apt install util-linux)' },
];

/** Node itself, then each program the agent runs, found on PATH and answering its version flag. */
export function checkPrograms(env: NodeJS.ProcessEnv = process.env): DoctorCheck[] {
  const major = Number(process.versions.node.split('.')[0]);
  const checks: DoctorCheck[] = [
    { name: 'node', ok: major >= 20, detail: `${process.versions.node}${major >= 20 ? '' : ' (20 or later needed)'}`, fix: 'install Node.js 20 or later' },
  ];
  for (const program of PROGRAMS) {
    const run = spawnSync(program.name, program.args, { encoding: 'utf8', env, timeout: 10_000 });
    const found = run.error === undefined && run.status === 0;
    const version = versionLine(`${run.stdout ?? ''}${run.stderr ?? ''}`);
    checks.push({
      name: program.name,
      ok: found,
      detail: found ? `${version} (${program.why})` : `not found on PATH (needed for ${program.why})`,
      fix: program.fix,
    });
  }
  return checks;
}

/** The line of a version flag's output that names the version: socat's first line is a credit. */
function versionLine(output: string): string {
  const lines = output.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  return lines.find((line) => /\d+\.\d+/.test(line)) ?? lines[0] ?? '';
}
