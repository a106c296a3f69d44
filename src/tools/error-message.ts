/** The message of anything thrown, for error results the model reads. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
