/**
 * Flattens a tool's JSON Schema into the `args` field of an index document:
 * "city: The city name. units: metric or imperial." Argument names say a lot about what a
 * tool does (`repo`, `issue_number`), and their descriptions often hold the words of a
 * request that the tool's own description leaves out. Nested objects are walked a few
 * levels deep; the result is capped so a huge schema cannot drown the other fields.
 */
export function flattenSchemaArgs(schema: unknown, options: { maxChars?: number } = {}): string {
  const maxChars = options.maxChars ?? 2_000;
  const parts: string[] = [];
  walk(schema, 0, parts);
  const text = parts.join(' ');
  return text.length > maxChars ? text.slice(0, maxChars) : text;
}

function walk(schema: unknown, depth: number, parts: string[]): void {
  if (depth > 3 || !isRecord(schema)) return;
  const properties = schema.properties;
  if (isRecord(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      const description = isRecord(property) && typeof property.description === 'string' ? property.description : '';
      parts.push(description ? `${name}: ${description.trim()}` : `${name}.`);
      walk(property, depth + 1, parts);
    }
  }
  if (isRecord(schema.items)) walk(schema.items, depth + 1, parts);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
