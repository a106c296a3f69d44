import { expect } from 'vitest';

/** A CLI whose every message was checked against the ACP schema (see acp-cli.ts's AcpSchemaValidator). */
export interface CheckedCli {
  close(): Promise<unknown>;
  validator: { errors: string[] };
}

/** Closes `cli` and expects that nothing it said or was told broke the ACP schema. */
export async function closeChecked(cli: CheckedCli): Promise<void> {
  await cli.close();
  expect(cli.validator.errors, cli.validator.errors.join('\n')).toEqual([]);
}
