/**
 * The message of anything thrown: for error results the model reads, notices and logs.
 * Its own folder so that every layer (storage at the bottom included) may import it.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
