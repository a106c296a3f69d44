import * as acp from '@agentclientprotocol/sdk';
import type { ContentPart } from '../../contracts/agent-output.js';
import { validateContentParts } from '../../agent/validate-content-parts.js';
import { InvalidCwdError } from '../invalid-cwd-error.js';
import { NO_SUCH_FOLDER_REASONS, validateSessionCwd } from '../validate-session-cwd.js';
import { fromContentBlocks } from './acp-prompt.js';

/** Protocol versions this agent speaks; the spec's negotiation answers the latest one otherwise. */
const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [acp.PROTOCOL_VERSION];

/** The client's version when supported, else the latest this agent supports (never echoes 0 or garbage). */
export function negotiateProtocolVersion(requested: unknown): number {
  return typeof requested === 'number' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : acp.PROTOCOL_VERSION;
}

/** A session folder from a request, or -32602 naming the field (`validateSessionCwd`'s rules). */
export async function checkedCwd(value: unknown, field = 'cwd'): Promise<string> {
  try {
    return await validateSessionCwd(value, field);
  } catch (error) {
    if (InvalidCwdError.isInstance(error)) throw acp.RequestError.invalidParams({ field: error.field, reason: error.reason }, error.message);
    throw error;
  }
}

/**
 * The `cwd` filter of `session/list`: a folder that does not exist (or is a file) holds no
 * session, so the filter matches nothing (`undefined`) rather than failing; a malformed path
 * (relative, not normalized, a pseudo-filesystem) is still -32602.
 */
export async function checkedListCwd(value: unknown): Promise<string | undefined> {
  try {
    return await validateSessionCwd(value, 'cwd');
  } catch (error) {
    if (InvalidCwdError.isInstance(error) && NO_SUCH_FOLDER_REASONS.includes(error.reason)) return undefined;
    if (InvalidCwdError.isInstance(error)) throw acp.RequestError.invalidParams({ field: error.field, reason: error.reason }, error.message);
    throw error;
  }
}

/** Prompt blocks as the core's content parts, or -32602 naming the first bad block (nothing is stored then). */
export function checkedPrompt(blocks: readonly acp.ContentBlock[]): ContentPart[] {
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'audio') {
      throw acp.RequestError.invalidParams({ field: `prompt[${index}]` }, `prompt[${index}]: audio is not supported (promptCapabilities.audio is false)`);
    }
  }
  const parts = fromContentBlocks(blocks);
  const problem = validateContentParts(parts);
  if (problem) throw acp.RequestError.invalidParams({ field: problem.path, reason: problem.reason }, `${problem.path} ${problem.reason}`);
  // Nothing to say: stored, an empty user message makes some providers (Anthropic) refuse every later turn of the session.
  if (parts.every((part) => part.type === 'text' && part.text.trim() === '')) {
    throw acp.RequestError.invalidParams(
      { field: 'prompt', reason: 'empty' },
      'prompt is empty (no text but whitespace, nothing attached): nothing was sent to the model or stored; type a message or attach something',
    );
  }
  return parts;
}
