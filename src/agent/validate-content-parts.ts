import type { ContentPart } from '../contracts/agent-output.js';
import { essenceOf, MODEL_IMAGE_TYPES, sniffImageType } from './image-format.js';

/** Why one content part is refused: `path` names the field (`prompt[2].data`). */
export interface ContentProblem {
  path: string;
  reason: string;
}

/** Canonical base64 (RFC 4648 §4, padding optional): what every model provider decodes. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;
/** RFC 6838 type/subtype, parameters allowed. */
const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[^\u0000-\u001f\u007f]*)?$/;
const MAX_URI_CHARS = 8_192;
const MAX_NAME_CHARS = 1_024;
const MAX_MIME_CHARS = 255;

export function isBase64(value: string): boolean {
  return BASE64.test(value);
}

/**
 * Checks prompt content before it is stored or sent to a model: one bad block (an image
 * whose data is not base64) would otherwise be saved and break every later turn of the
 * session. Returns the first problem, or `undefined` when every part is usable.
 */
export function validateContentParts(parts: readonly ContentPart[], field = 'prompt'): ContentProblem | undefined {
  for (const [index, part] of parts.entries()) {
    const at = (name: string) => `${field}[${index}]${name ? `.${name}` : ''}`;
    switch (part.type) {
      case 'text':
        if (typeof part.text !== 'string') return { path: at('text'), reason: 'must be a string' };
        break;
      case 'image': {
        const problem =
          checkData(part.data, at('data')) ?? checkMime(part.mimeType, at('mimeType'), 'image/') ?? checkImage(part.data, part.mimeType, at);
        if (problem) return problem;
        if (part.uri !== undefined) {
          const uriProblem = checkUri(part.uri, at('uri'));
          if (uriProblem) return uriProblem;
        }
        break;
      }
      case 'resource': {
        const problem =
          checkUri(part.uri, at('resource.uri')) ?? (part.mimeType !== undefined ? checkMime(part.mimeType, at('resource.mimeType')) : undefined);
        if (problem) return problem;
        if (part.text === undefined && part.blob === undefined) return { path: at('resource'), reason: 'needs text or blob' };
        if (part.blob !== undefined) {
          const blobProblem = checkData(part.blob, at('resource.blob'));
          if (blobProblem) return blobProblem;
        }
        if (part.text !== undefined && typeof part.text !== 'string') return { path: at('resource.text'), reason: 'must be a string' };
        break;
      }
      case 'resource_link': {
        const problem =
          checkUri(part.uri, at('uri')) ??
          (typeof part.name !== 'string' || part.name.length === 0 || part.name.length > MAX_NAME_CHARS
            ? { path: at('name'), reason: `must be a non-empty string of at most ${MAX_NAME_CHARS} characters` }
            : undefined) ??
          (part.mimeType !== undefined ? checkMime(part.mimeType, at('mimeType')) : undefined);
        if (problem) return problem;
        break;
      }
      default:
        return { path: at('type'), reason: `unsupported content type ${JSON.stringify((part as { type: unknown }).type)}` };
    }
  }
  return undefined;
}

function checkData(data: unknown, path: string): ContentProblem | undefined {
  if (typeof data !== 'string' || data.length === 0) return { path, reason: 'must be non-empty base64' };
  if (!isBase64(data)) return { path, reason: 'is not valid base64' };
  return undefined;
}

/**
 * An image must be in a format models take and really be what it says: a provider that
 * refuses it (OpenAI refuses `base64("hello")` as image/png) would fail every later turn of
 * the session, since the image is part of its history.
 */
function checkImage(data: string, mimeType: string, at: (name: string) => string): ContentProblem | undefined {
  const declared = essenceOf(mimeType);
  if (!(MODEL_IMAGE_TYPES as readonly string[]).includes(declared)) {
    return { path: at('mimeType'), reason: `is ${declared}, which models do not take as an image; send ${MODEL_IMAGE_TYPES.join(', ')}` };
  }
  const actual = sniffImageType(data);
  if (!actual) return { path: at('data'), reason: `is not a ${declared} image (its first bytes match none of ${MODEL_IMAGE_TYPES.join(', ')})` };
  if (actual !== declared) return { path: at('data'), reason: `is a ${actual} image, but mimeType says ${declared}; send mimeType ${actual}` };
  return undefined;
}

function checkMime(mimeType: unknown, path: string, prefix?: string): ContentProblem | undefined {
  if (typeof mimeType !== 'string' || mimeType.length > MAX_MIME_CHARS || !MIME.test(mimeType)) return { path, reason: 'must be a MIME type like image/png' };
  if (prefix && !mimeType.toLowerCase().startsWith(prefix)) return { path, reason: `must be an ${prefix}* MIME type` };
  return undefined;
}

function checkUri(uri: unknown, path: string): ContentProblem | undefined {
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI_CHARS) return { path, reason: `must be a non-empty string of at most ${MAX_URI_CHARS} characters` };
  if (/[\u0000-\u001f\u007f]/.test(uri)) return { path, reason: 'must not contain control characters' };
  return undefined;
}
