import { errorMessage } from '../../errors/error-message.js';

export interface PostgresOpenProblem {
  /** What went wrong, in the server's or the socket's words (the URL's password already taken out by the caller). */
  reason: string;
  /** What the operator does about it. */
  fix: string;
  /**
   * No retry fixes it (a refused user or password, a user who may not create the schema): a start
   * stops. Else it may only be early (the server starting, the database not created yet): the
   * replica serves and retries.
   */
  permanent: boolean;
}

const URL_SOURCES = 'the store URL (--store, PLAITED_STORE or storage.url)';

/**
 * Why PostgreSQL could not be opened, with the fix for that cause: a SQLSTATE (`28P01` …) from
 * the server, or a socket code (`ECONNREFUSED` …) from the connection, on the error or, for a
 * connection tried on several addresses, on the first of its `errors`.
 */
export function describePostgresOpenError(error: unknown, url: string): PostgresOpenProblem {
  const { where, user, database } = urlParts(url);
  const reason = errorMessage(error);
  switch (errorCode(error)) {
    case '28P01':
    case '28000':
      return { reason, fix: `fix the user or password in ${URL_SOURCES}`, permanent: true };
    case '3D000':
      // Not permanent: a deployment may create the database after its replicas start (an init job).
      return { reason, fix: `create that database (createdb), or name an existing one in ${URL_SOURCES}`, permanent: false };
    case '42501':
      return {
        reason,
        fix: `the schema is created at start: as the database's owner, GRANT CREATE ON SCHEMA public TO ${user} (or ALTER DATABASE ${database} OWNER TO ${user}), or use a user who may create tables`,
        permanent: true,
      };
    case 'ENOTFOUND':
      // Not permanent: a container's name resolves only once it exists (a replica may start first).
      return { reason, fix: `fix the host name in ${URL_SOURCES}`, permanent: false };
    case 'ECONNREFUSED':
      return { reason, fix: `start PostgreSQL at ${where}, or fix the host and port in ${URL_SOURCES}`, permanent: false };
    default:
      return { reason, fix: `check ${URL_SOURCES} and that PostgreSQL answers at ${where}`, permanent: false };
  }
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const first = (error as { errors?: unknown }).errors;
  return Array.isArray(first) ? errorCode(first[0]) : undefined;
}

/** `host:port`, the user and the database of a store URL, for a fix (never its password). */
function urlParts(url: string): { where: string; user: string; database: string } {
  try {
    const parsed = new URL(url);
    const user = decodeURIComponent(parsed.username) || 'the user';
    return { where: `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`, user, database: decodeURIComponent(parsed.pathname.slice(1)) || user };
  } catch {
    return { where: "the URL's host", user: 'the user', database: 'the database' };
  }
}
