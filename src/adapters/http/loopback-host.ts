import { isIPv4, isIPv6 } from 'node:net';

/** Whether binding to `host` keeps the server reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIPv4(bare)) return bare.startsWith('127.');
  if (isIPv6(bare)) return bare === '::1' || /^::ffff:127\./.test(bare) || bare === '0:0:0:0:0:0:0:1';
  return false;
}
