import { describe, expect, it } from 'vitest';
import { internalErrorMessage, isBareInternalError } from '../../src/adapters/internal-error-message.js';
import { PlaitedError } from '../../src/errors/plaited-error.js';

describe('internalErrorMessage: what a client is told when its request failed inside the server', () => {
  it('names the cause and its code, and what to do', () => {
    const error = Object.assign(new Error('attempt to write a readonly database.'), { code: 'SQLITE_READONLY' });
    expect(internalErrorMessage(error)).toBe(
      'Internal error: attempt to write a readonly database (SQLITE_READONLY). The request was not completed; the server is still running. ' +
        'Retry it; if it fails again, the server log (stderr) has the details.',
    );
    expect(internalErrorMessage(new PlaitedError('storage_failed', 'storage_failed: the store refused'))).toMatch(/^Internal error: storage_failed: the store refused\. The request/);
  });

  it('redacts credentials from the cause, whether an error or an SDK\'s message', () => {
    const message = internalErrorMessage(new Error('connect failed for postgres://admin:s3cretpassw0rd@db:5432/x with Bearer abcdefghijklmnop1234'));
    expect(message).toContain('postgres://[redacted]@db:5432/x');
    expect(message).toContain('Bearer [redacted]');
    expect(message).not.toMatch(/s3cretpassw0rd|abcdefghijklmnop1234/);
    expect(internalErrorMessage('token=sk-abcdefghijklmnopqrstuv')).not.toContain('sk-abcdefghijklmnopqrstuv');
  });

  it('never answers a bare "Internal error"', () => {
    expect(internalErrorMessage(new Error(''))).toMatch(/^Internal error: an unexpected error\. The request was not completed/);
    expect(isBareInternalError('Internal error')).toBe(true);
    expect(isBareInternalError(internalErrorMessage('x'))).toBe(false);
  });
});
