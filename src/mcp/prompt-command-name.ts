/**
 * The slash command of an MCP server's prompt: `server:prompt`, so two servers' prompts never
 * collide, nor one with a skill (`[a-z0-9-]`) or the agent's own commands (no `:` in either).
 * Characters other than letters, digits, `_`, `-` and `.` become `_`: a client reads a command's
 * name up to the first space (Zed also looks for the last `/` in the line), and `:` stays the one
 * separator.
 */
export function promptCommandName(serverId: string, promptName: string): string {
  return `${promptCommandPrefix(serverId)}${part(promptName)}`;
}

/** What every prompt command of one server starts with: `server:`. */
export function promptCommandPrefix(serverId: string): string {
  return `${part(serverId)}:`;
}

function part(value: string): string {
  return value.replace(/[^A-Za-z0-9_.-]/g, '_') || '_';
}
