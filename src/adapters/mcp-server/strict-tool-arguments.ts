import { z } from 'zod';
import { closestName } from '../../config/closest-name.js';

/**
 * A tool's arguments as a strict object: a key the tool does not take is an error naming it, the
 * key it is a typo of and the keys the tool takes, and the listed schema says
 * `additionalProperties: false`. Stripped silently, `sessionID` for `sessionId` sent the turn to a
 * fresh session without the context the caller meant to continue.
 */
export function strictToolArguments<Shape extends z.ZodRawShape>(tool: string, shape: Shape) {
  const known = Object.keys(shape);
  const takes = known.length > 0 ? `${tool} takes ${known.join(', ')}` : `${tool} takes no arguments`;
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      const named = issue.keys.map((key) => {
        const meant = closestName(key, known);
        return `unknown argument "${key}"${meant ? `: did you mean ${meant}?` : ''}`;
      });
      return `${named.join('; ')} (${takes})`;
    },
  });
}
