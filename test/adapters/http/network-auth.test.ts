import { describe, expect, it } from 'vitest';
import { createNetworkAuth, LOCAL_PRINCIPAL } from '../../../src/adapters/http/network-auth.js';
import { NetworkAuthError } from '../../../src/adapters/http/network-auth-error.js';
import { requestPrincipal, selectSubprotocol } from '../../../src/adapters/http/request-principal.js';
import { createHostOriginCheck } from '../../../src/adapters/http/host-origin-check.js';

const TOKEN = 'a-long-enough-test-token-0123456789';

describe('createNetworkAuth', () => {
  it('accepts the token as a bearer header and refuses anything else', () => {
    const auth = createNetworkAuth({ host: '127.0.0.1', token: TOKEN });
    expect(auth.enabled).toBe(true);
    expect(auth.authenticate(`Bearer ${TOKEN}`)).toBe(LOCAL_PRINCIPAL);
    expect(auth.authenticate(`bearer   ${TOKEN}`)).toBe(LOCAL_PRINCIPAL);
    for (const wrong of [undefined, null, '', TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer ', `Bearer ${TOKEN} extra`]) {
      expect(auth.authenticate(wrong), String(wrong)).toBeUndefined();
    }
  });

  it('generates a random token when none is given and announces it once', () => {
    const lines: string[] = [];
    const first = createNetworkAuth({ host: '127.0.0.1', log: (line) => lines.push(line) });
    const second = createNetworkAuth({ host: '127.0.0.1', log: () => undefined });
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.token).not.toBe(second.token);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(first.token);
    expect(first.authenticate(`Bearer ${first.token}`)).toBe(LOCAL_PRINCIPAL);
    expect(first.authenticate(`Bearer ${second.token}`)).toBeUndefined();
  });

  it('announces a generated token on stderr when no log is given (a face served from a program): a token nobody is told opens nothing', () => {
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    let token: string | undefined;
    try {
      token = createNetworkAuth({ host: '127.0.0.1' }).token;
    } finally {
      process.stderr.write = write;
    }
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(written.join('')).toContain(`network auth token (generated): ${token}`);
  });

  it('maps extra principals to their own tokens', () => {
    const auth = createNetworkAuth({ host: '127.0.0.1', token: TOKEN, principals: { alice: 'alice-token-0123456789abcdef' } });
    expect(auth.authenticate('Bearer alice-token-0123456789abcdef')).toBe('alice');
    expect(auth.authenticateToken(TOKEN)).toBe(LOCAL_PRINCIPAL);
    expect(() => createNetworkAuth({ host: '127.0.0.1', token: TOKEN, principals: { bob: TOKEN } })).toThrow(/same token/);
    expect(() => createNetworkAuth({ host: '127.0.0.1', token: TOKEN, principals: { local: 'another-token-0123456789' } })).toThrow(/reserved/);
  });

  it('refuses short tokens and tokens a header cannot carry', () => {
    for (const token of ['short', 'has spaces in it 0123456789', 'comma,separated,0123456789']) {
      expect(() => createNetworkAuth({ host: '127.0.0.1', token })).toThrow(NetworkAuthError);
    }
  });

  it('allows --no-auth only on a loopback host', () => {
    for (const host of ['127.0.0.1', '::1', '[::1]', 'localhost', '127.0.0.2']) {
      const auth = createNetworkAuth({ host, noAuth: true });
      expect(auth.enabled).toBe(false);
      expect(auth.authenticate(undefined)).toBe(LOCAL_PRINCIPAL);
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.4', 'example.com']) {
      let error: unknown;
      try {
        createNetworkAuth({ host, noAuth: true });
      } catch (caught) {
        error = caught;
      }
      expect(NetworkAuthError.isInstance(error) && error.code).toBe('no_auth_not_loopback');
    }
  });
});

describe('requestPrincipal', () => {
  const auth = createNetworkAuth({ host: '127.0.0.1', token: TOKEN });

  it('takes the Authorization header, else a bearer WebSocket subprotocol', () => {
    expect(requestPrincipal(auth, { authorization: `Bearer ${TOKEN}` })).toBe(LOCAL_PRINCIPAL);
    expect(requestPrincipal(auth, { authorization: undefined, webSocketProtocol: `acp, bearer.${TOKEN}` })).toBe(LOCAL_PRINCIPAL);
    expect(requestPrincipal(auth, { authorization: undefined, webSocketProtocol: 'acp, bearer.nope-nope-nope-nope' })).toBeUndefined();
    // A wrong header is not rescued by a right subprotocol.
    expect(requestPrincipal(auth, { authorization: 'Bearer wrong', webSocketProtocol: `bearer.${TOKEN}` })).toBeUndefined();
    expect(requestPrincipal(auth, { authorization: undefined })).toBeUndefined();
  });

  it('answers an upgrade with the real subprotocol, never the credential when there is another', () => {
    expect(selectSubprotocol([`bearer.${TOKEN}`, 'acp'])).toBe('acp');
    expect(selectSubprotocol([`bearer.${TOKEN}`])).toBe(`bearer.${TOKEN}`);
    expect(selectSubprotocol([])).toBe(false);
  });
});

describe('createHostOriginCheck', () => {
  it('guards a loopback bind against rebinding and foreign origins', () => {
    const check = createHostOriginCheck({ host: '127.0.0.1', allowedOrigins: ['app.example.com'] });
    expect(check({ host: '127.0.0.1:3284', origin: undefined })).toBeUndefined();
    expect(check({ host: 'localhost:3284', origin: 'http://localhost:5173' })).toBeUndefined();
    expect(check({ host: '[::1]:3284', origin: 'https://app.example.com' })).toBeUndefined();
    expect(check({ host: 'evil.example.com:3284', origin: undefined })).toMatch(/host/i);
    expect(check({ host: undefined, origin: undefined })).toMatch(/host/i);
    expect(check({ host: '127.0.0.1:3284', origin: 'http://evil.example.com' })).toMatch(/origin/i);
    expect(check({ host: '127.0.0.1:3284', origin: 'null' })).toMatch(/origin/i);
  });

  it('lets any Host reach a wildcard bind but still checks Origin', () => {
    const check = createHostOriginCheck({ host: '0.0.0.0' });
    expect(check({ host: 'build-box.lan:3284', origin: undefined })).toBeUndefined();
    expect(check({ host: 'build-box.lan:3284', origin: 'http://evil.example.com' })).toMatch(/origin/i);
  });
});
