/** The image formats every vision model takes (OpenAI, Anthropic, Gemini), by canonical MIME type. */
export const MODEL_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ModelImageType = (typeof MODEL_IMAGE_TYPES)[number];

/** 16 base64 characters: the 12 bytes the longest signature below needs. */
const PREFIX_CHARS = 16;

/**
 * The format base64 image data really has, from its first bytes (its "magic number"), or
 * `undefined` when it is none of MODEL_IMAGE_TYPES: text, SVG, a truncated file.
 * Decodes only a prefix, so a large image costs nothing here.
 */
export function sniffImageType(base64: string): ModelImageType | undefined {
  const bytes = Buffer.from(base64.slice(0, PREFIX_CHARS), 'base64');
  const ascii = (start: number, end: number) => bytes.subarray(start, end).toString('latin1');
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'image/gif';
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/** Lower case, parameters dropped: `Image/PNG; x=y` → `image/png`. */
export function essenceOf(mimeType: string): string {
  return mimeType.split(';')[0]!.trim().toLowerCase();
}
