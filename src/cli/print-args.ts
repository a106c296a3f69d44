import type { SessionMode } from '../agent/agent.js';

/** How `-p` writes its outcome on stdout. */
export type OutputFormat = 'text' | 'json' | 'stream-json';

/** What `-p` / `--print` (the headless one-shot) was asked to do. */
export interface PrintArgs {
  /** The prompt given on the command line; absent (or `-`): read from stdin. */
  prompt?: string;
  outputFormat: OutputFormat;
  mode?: SessionMode;
  /** Permission rules added to `tools.allow` / `tools.deny` for this run. */
  allow: string[];
  deny: string[];
  /** Add the turn to this session. */
  resume?: string;
  /** Add the turn to the latest session of the cwd. */
  continue: boolean;
}

/** The flags of the headless one-shot, spread into the CLI's `parseArgs` table. */
export const PRINT_OPTIONS = {
  print: { type: 'boolean', short: 'p' },
  'output-format': { type: 'string' },
  mode: { type: 'string' },
  allow: { type: 'string', multiple: true },
  deny: { type: 'string', multiple: true },
  resume: { type: 'string' },
  continue: { type: 'boolean', short: 'c' },
} as const;

const FORMATS: readonly OutputFormat[] = ['text', 'json', 'stream-json'];
const MODES: readonly SessionMode[] = ['default', 'accept-edits', 'plan'];

export interface PrintValues {
  print?: boolean;
  'output-format'?: string;
  mode?: string;
  allow?: string[];
  deny?: string[];
  resume?: string;
  continue?: boolean;
}

/**
 * The print flags read from parsed values: `undefined` without `-p`. Throws a message naming the
 * bad flag (the caller wraps it in its usage error).
 */
export function printArgsFrom(values: PrintValues, positionals: readonly string[]): PrintArgs | undefined {
  const used = (['output-format', 'mode', 'allow', 'deny', 'resume', 'continue'] as const).filter((name) => values[name] !== undefined);
  if (!values.print) {
    if (used.length > 0) throw new Error(`--${used[0]} goes with -p/--print (the headless one-shot): plaited-agent -p "task" --${used[0]} ...`);
    if (positionals.length > 0) throw new Error(`unexpected argument '${positionals[0]}' (to run one task headless: plaited-agent -p "${positionals[0]}")`);
    return undefined;
  }
  const outputFormat = (values['output-format'] ?? 'text') as OutputFormat;
  if (!FORMATS.includes(outputFormat)) throw new Error(`--output-format must be one of ${FORMATS.join(', ')}`);
  const mode = values.mode as SessionMode | undefined;
  if (mode !== undefined && !MODES.includes(mode)) throw new Error(`--mode must be one of ${MODES.join(', ')}`);
  if (values.resume !== undefined && values.continue) throw new Error('--resume ID and --continue exclude each other: pick one');
  // A lone `-` names stdin, as for most Unix tools (`cat task.md | plaited-agent -p -`).
  const prompt = positionals.length > 0 && !(positionals.length === 1 && positionals[0] === '-') ? positionals.join(' ') : undefined;
  return {
    ...(prompt !== undefined ? { prompt } : {}),
    outputFormat,
    ...(mode !== undefined ? { mode } : {}),
    allow: values.allow ?? [],
    deny: values.deny ?? [],
    ...(values.resume !== undefined ? { resume: values.resume } : {}),
    continue: values.continue ?? false,
  };
}
