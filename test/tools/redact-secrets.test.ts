import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/tools/redact-secrets.js';

describe('redactSecrets', () => {
  it("takes out the values of the process's secret variables, added values, and token-shaped text", () => {
    const redact = redactSecrets({ MY_SERVICE_TOKEN: 'plain-looking-value-42', HOME: '/home/someone' });
    redact.add(['config-api-key-value', 'short']);
    const line = redact(
      'calling with plain-looking-value-42 and config-api-key-value; Authorization: Bearer abcdefghijklmnop; key sk-proj-ABCDEFGHIJKLMNOPQRSTUV; https://user:hunter22@example.com/x?api_key=zzz999&page=2 in /home/someone short',
    );
    for (const secret of ['plain-looking-value-42', 'config-api-key-value', 'abcdefghijklmnop', 'sk-proj-ABCDEFGHIJKLMNOPQRSTUV', 'hunter22', 'zzz999']) expect(line).not.toContain(secret);
    // Ordinary text stays readable: a home folder, a short value, a page number.
    expect(line).toContain('/home/someone');
    expect(line).toContain('short');
    expect(line).toContain('page=2');
  });
});
