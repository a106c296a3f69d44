import { permissionRule } from '../config/schema.js';
import { CliUsageError } from './parse-cli-args.js';
import type { PrintArgs } from './print-args.js';
import { unknownToolRule } from './unknown-tool-rule.js';

/**
 * `-p --allow/--deny` rules, checked as the config's are but blamed on the flag that gave them
 * (a malformed one was reported as "Invalid config … tools.allow.0"), and a tool no agent of the
 * CLI has (`bsh`) refused with the one it is a typo of. Not in the argument parser:
 * the schema (zod) stays out of `--version` and `--help`.
 */
export function checkPrintRules(print: PrintArgs): void {
  for (const flag of ['allow', 'deny'] as const) {
    for (const rule of print[flag]) {
      const checked = permissionRule.safeParse(rule);
      if (!checked.success) throw new CliUsageError(`--${flag} "${rule}": ${checked.error.issues[0]?.message ?? 'not a permission rule'}`);
      // A typo would otherwise allow (or deny) nothing, silently.
      const unknown = unknownToolRule(rule);
      if (unknown !== undefined) throw new CliUsageError(`--${flag} "${rule}": ${unknown}`);
    }
  }
}
