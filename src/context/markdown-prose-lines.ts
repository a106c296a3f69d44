/** One line of markdown prose with its 1-based line number. */
export interface ProseLine {
  /** The line with inline code spans blanked to spaces of the same length, so offsets stay put. */
  text: string;
  line: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The lines of markdown where links are real: everything outside fenced code blocks, with inline
 * code spans blanked. Shared by markdown links (skills, rules) and `[[wiki links]]` (memory).
 */
export function markdownProseLines(markdown: string): ProseLine[] {
  const prose: ProseLine[] = [];
  const lines = markdown.split(/\r?\n/);
  let fence: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const fenceMatch = FENCE.exec(line);
    if (fence !== undefined) {
      // A fence closes with the same character, at least as long, and nothing else on the line.
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length && line.trim() === fenceMatch[1]) {
        fence = undefined;
      }
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      continue;
    }
    prose.push({ text: line.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length)), line: index + 1 });
  }
  return prose;
}
