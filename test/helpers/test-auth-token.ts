/** The bearer token the tests' HTTP servers are started with (PLAITED_AUTH_TOKEN / the `authToken` option). */
export const TEST_AUTH_TOKEN = 'plaited-test-token-0123456789abcdef';

/** Headers that authenticate a test client. */
export const TEST_AUTH_HEADERS: Record<string, string> = { authorization: `Bearer ${TEST_AUTH_TOKEN}` };
