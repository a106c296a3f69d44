/**
 * JSON columns: how values cross into and out of SQLite text.
 * Binary data (AI SDK file and image parts may hold a Uint8Array or Buffer) is stored
 * as base64, which the AI SDK accepts back wherever it accepts bytes.
 */

export function toJsonColumn(value: unknown): string {
  return JSON.stringify(value, function replacer(this: Record<string, unknown>, key: string, converted: unknown) {
    // `converted` has already been through toJSON (a Buffer arrives as {type:'Buffer',data:[…]}),
    // so look at the original value on the holder.
    const original = key === '' ? value : this[key];
    if (original instanceof Uint8Array) return Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('base64');
    if (original instanceof ArrayBuffer) return Buffer.from(original).toString('base64');
    return converted;
  });
}

export type ParsedColumn = { ok: true; value: unknown } | { ok: false; error: Error };

/** Never throws: a corrupt row is reported, not fatal. */
export function parseJsonColumn(text: unknown): ParsedColumn {
  if (typeof text !== 'string') return { ok: false, error: new Error(`expected JSON text, found ${text === null ? 'NULL' : typeof text}`) };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
  }
}
