/** A store URL fit for logs and error messages: its password (if any) replaced by `***`. */
export function redactStoreUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL we can parse: show its scheme only, never the rest (it may hold a password).
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
    return scheme ? `${scheme}//…` : '(store URL)';
  }
}
