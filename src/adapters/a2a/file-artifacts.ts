import type { Artifact } from '@a2a-js/sdk';
import { createTwoFilesPatch } from 'diff';
import type { ToolCallContent } from '../../contracts/agent-output.js';
import { dataPart, textPart } from './a2a-messages.js';

/**
 * The files a turn wrote, one artifact per path: a unified diff from the file as it was
 * before the turn's first write to its latest content, re-sent (same artifact id) after
 * every write so the task always holds the turn's whole change to that file.
 */
export class FileArtifacts {
  private readonly files = new Map<string, { id: string; before: string | null; after: string }>();

  /** Records the diffs of a finished tool call; returns the artifacts that changed. */
  record(content: readonly ToolCallContent[] | undefined): Artifact[] {
    const changed: Artifact[] = [];
    for (const item of content ?? []) {
      if (item.type !== 'diff') continue;
      const known = this.files.get(item.path);
      const file = known ?? { id: `file-${this.files.size + 1}`, before: item.oldText, after: item.newText };
      file.after = item.newText;
      this.files.set(item.path, file);
      changed.push(toArtifact(item.path, file));
    }
    return changed;
  }
}

function toArtifact(path: string, file: { id: string; before: string | null; after: string }): Artifact {
  const patch = createTwoFilesPatch(file.before === null ? '/dev/null' : `a${path}`, `b${path}`, file.before ?? '', file.after);
  return {
    artifactId: file.id,
    name: path,
    description: file.before === null ? `created ${path}` : `changed ${path}`,
    parts: [{ ...textPart(patch), mediaType: 'text/x-diff', filename: path }, dataPart({ path, created: file.before === null })],
    metadata: undefined,
    extensions: [],
  };
}
