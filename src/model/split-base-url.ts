import { splitBaseURLCredentials } from './base-url-credentials.js';
import { splitBaseURLQuery } from './base-url-query.js';

/** A configured base URL as every call uses it (the model's, `models list`'s, `doctor`'s). */
export interface BaseURLParts {
  /** What the SDK (or the listing request) is given: no query, no user or password. */
  base: string;
  /** Its query (`?api-version=…`), added to each request's URL (base-url-query.ts). */
  query: URLSearchParams | undefined;
  /** Its user and password as an `Authorization: Basic` value (base-url-credentials.ts). */
  authorization: string | undefined;
  /** The password alone, for the values no error may repeat. */
  password: string | undefined;
}

export function splitBaseURL(baseURL: string): BaseURLParts {
  const { base: withCredentials, query } = splitBaseURLQuery(baseURL);
  return { query, ...splitBaseURLCredentials(withCredentials) };
}
