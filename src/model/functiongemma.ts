/**
 * FunctionGemma's own prompt format (Google, "FunctionGemma formatting and best practices"):
 * Gemma turns (`<start_of_turn>role` … `<end_of_turn>`), tools declared between
 * `<start_function_declaration>` / `<end_function_declaration>`, calls between
 * `<start_function_call>` / `<end_function_call>`, results between `<start_function_response>` /
 * `<end_function_response>`, and every string value wrapped in `<escape>` … `<escape>` so braces,
 * commas and quotes inside it stay literal. Pure functions: text in, text out.
 */

export const FG = {
  startTurn: '<start_of_turn>',
  endTurn: '<end_of_turn>',
  startDeclaration: '<start_function_declaration>',
  endDeclaration: '<end_function_declaration>',
  startCall: '<start_function_call>',
  endCall: '<end_function_call>',
  startResponse: '<start_function_response>',
  endResponse: '<end_function_response>',
  escape: '<escape>',
} as const;

/** The developer-turn phrase the model was trained on to switch tool use on. */
export const FUNCTIONGEMMA_TOOL_TRIGGER = 'You are a model that can do function calling with the following functions';

/** Where generation must stop: end of turn, and before the model invents a tool's result. */
export const FUNCTIONGEMMA_STOP_SEQUENCES: readonly string[] = [FG.endTurn, FG.startResponse];

/** Output text without the stop markers, which are never part of what the model says. */
export function withoutFunctionGemmaStopMarkers(text: string): string {
  return FUNCTIONGEMMA_STOP_SEQUENCES.reduce((rest, marker) => rest.split(marker).join(''), text);
}

export interface FunctionGemmaTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters?: unknown;
}

export interface FunctionGemmaCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type FunctionGemmaModelPart =
  | { type: 'text'; text: string }
  | { type: 'call'; name: string; arguments: Record<string, unknown> }
  | { type: 'response'; name: string; response: unknown };

export type FunctionGemmaMessage =
  | { role: 'system'; text: string }
  | { role: 'user'; text: string }
  | { role: 'model'; parts: FunctionGemmaModelPart[] };

const CONTROL_TOKENS = Object.values(FG);
const CONTROL_TOKEN_PATTERN = new RegExp(`(${CONTROL_TOKENS.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`);

/**
 * Free text (user messages, tool output, model text) must not carry control tokens: a file that
 * contains `<end_of_turn>` would otherwise end the turn. They are removed.
 */
export function stripFunctionGemmaControlTokens(text: string): string {
  return text.split(CONTROL_TOKEN_PATTERN).filter((_part, index) => index % 2 === 0).join('');
}

/**
 * A formatted prompt → alternating pieces: even indexes are plain text, odd indexes are control
 * tokens. Tokenize control tokens as special tokens and everything else as plain text.
 */
export function splitFunctionGemmaControlTokens(prompt: string): string[] {
  return prompt.split(CONTROL_TOKEN_PATTERN);
}

/** JSON Schema keys the model was trained to read; everything else ($schema, additionalProperties…) is noise to it. */
const SCHEMA_KEYS = new Set(['description', 'enum', 'items', 'nullable', 'properties', 'required', 'type']);

/** A literal `<escape>` inside a string cannot be represented, so it is dropped rather than breaking the block. */
function escapeString(value: string): string {
  return `${FG.escape}${stripFunctionGemmaControlTokens(value)}${FG.escape}`;
}

/** Serialises a JSON value the way FunctionGemma reads it: `{key:value,…}`, `[a,b]`, strings in `<escape>`, keys sorted. */
export function formatFunctionGemmaValue(value: unknown): string {
  if (typeof value === 'string') return escapeString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : escapeString(String(value));
  if (typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(formatFunctionGemmaValue).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${k}:${formatFunctionGemmaValue(v)}`).join(',')}}`;
  }
  return escapeString(String(value));
}

/** JSON Schema → the declaration's schema shape: known keys only, type names upper-cased, nullable unions folded. */
export function toFunctionGemmaSchema(schema: unknown): Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (!SCHEMA_KEYS.has(key) || value === undefined) continue;
    if (key === 'type') {
      const types = Array.isArray(value) ? value.map(String) : [String(value)];
      const concrete = types.filter((t) => t !== 'null');
      if (concrete.length < types.length) out.nullable = true;
      out.type = (concrete[0] ?? 'null').toUpperCase();
    } else if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, toFunctionGemmaSchema(sub)]),
      );
    } else if (key === 'items') {
      out.items = toFunctionGemmaSchema(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** One tool → `<start_function_declaration>declaration:NAME{description:…,parameters:{…}}<end_function_declaration>`. */
export function formatFunctionGemmaDeclaration(tool: FunctionGemmaTool): string {
  const body: Record<string, unknown> = {};
  if (tool.description) body.description = tool.description;
  if (tool.parameters !== undefined) body.parameters = toFunctionGemmaSchema(tool.parameters);
  return `${FG.startDeclaration}declaration:${tool.name}${formatFunctionGemmaValue(body)}${FG.endDeclaration}`;
}

export function formatFunctionGemmaCall(call: FunctionGemmaCall): string {
  return `${FG.startCall}call:${call.name}${formatFunctionGemmaValue(call.arguments)}${FG.endCall}`;
}

/** A tool result; a result that is not an object is wrapped as `{value:…}` because the block's body must be an object. */
export function formatFunctionGemmaResponse(name: string, response: unknown): string {
  const body = typeof response === 'object' && response !== null && !Array.isArray(response) ? response : { value: response };
  return `${FG.startResponse}response:${name}${formatFunctionGemmaValue(body)}${FG.endResponse}`;
}

function formatModelParts(parts: readonly FunctionGemmaModelPart[]): string {
  return parts
    .map((part) => {
      if (part.type === 'text') return stripFunctionGemmaControlTokens(part.text);
      if (part.type === 'call') return formatFunctionGemmaCall(part);
      return formatFunctionGemmaResponse(part.name, part.response);
    })
    .join('');
}

/**
 * A whole conversation → the prompt text (special tokens written as text; tokenize with special
 * tokens enabled). System text and tool declarations form the developer turn. A model turn whose
 * last part is a tool response is left open, as in Google's multi-step example, so the model
 * continues that same turn; otherwise the prompt ends with an open model turn.
 */
export function formatFunctionGemmaPrompt(input: {
  messages: readonly FunctionGemmaMessage[];
  tools?: readonly FunctionGemmaTool[];
}): string {
  const tools = input.tools ?? [];
  const system = input.messages
    .filter((m): m is Extract<FunctionGemmaMessage, { role: 'system' }> => m.role === 'system')
    .map((m) => stripFunctionGemmaControlTokens(m.text))
    .filter((text) => text.length > 0);
  let developer = system.join('\n\n');
  if (tools.length > 0) {
    developer = `${developer ? `${developer}\n` : ''}${FUNCTIONGEMMA_TOOL_TRIGGER}${tools.map(formatFunctionGemmaDeclaration).join('')}`;
  }

  let out = '';
  if (developer) out += `${FG.startTurn}developer\n${developer}${FG.endTurn}\n`;
  const rest = input.messages.filter((m) => m.role !== 'system');
  let openModelTurn = false;
  rest.forEach((message, index) => {
    if (message.role === 'user') {
      out += `${FG.startTurn}user\n${stripFunctionGemmaControlTokens(message.text)}${FG.endTurn}\n`;
      return;
    }
    if (message.role !== 'model') return;
    const isLast = index === rest.length - 1;
    const last = message.parts[message.parts.length - 1];
    out += `${FG.startTurn}model\n${formatModelParts(message.parts)}`;
    if (isLast && last?.type === 'response') openModelTurn = true;
    else out += `${FG.endTurn}\n`;
  });
  if (!openModelTurn) out += `${FG.startTurn}model\n`;
  return out;
}

export type FunctionGemmaOutputPart = { type: 'text'; text: string } | ({ type: 'call' } & FunctionGemmaCall);

/**
 * Model output → text and calls, in order. A call block that does not parse (unclosed, bad
 * syntax) is kept as text, never thrown: the caller shows it and the model can try again.
 */
export function parseFunctionGemmaOutput(output: string): FunctionGemmaOutputPart[] {
  const parts: FunctionGemmaOutputPart[] = [];
  const pushText = (text: string) => {
    const cleaned = withoutFunctionGemmaStopMarkers(text);
    if (!cleaned) return;
    const previous = parts[parts.length - 1];
    if (previous?.type === 'text') previous.text += cleaned;
    else parts.push({ type: 'text', text: cleaned });
  };
  let rest = output;
  for (;;) {
    const start = rest.indexOf(FG.startCall);
    if (start === -1) break;
    pushText(rest.slice(0, start));
    const end = rest.indexOf(FG.endCall, start);
    if (end === -1) {
      pushText(rest.slice(start));
      rest = '';
      break;
    }
    const block = rest.slice(start, end + FG.endCall.length);
    const call = parseFunctionGemmaCallBody(rest.slice(start + FG.startCall.length, end));
    if (call) parts.push({ type: 'call', ...call });
    else pushText(block);
    rest = rest.slice(end + FG.endCall.length);
  }
  pushText(rest);
  return parts;
}

/** `call:NAME{…}` → a call, or undefined when it is malformed. */
export function parseFunctionGemmaCallBody(body: string): FunctionGemmaCall | undefined {
  const match = /^\s*call:([A-Za-z0-9_.\-]+)\s*/.exec(body);
  if (!match) return undefined;
  const reader = new ValueReader(body, match[0].length);
  try {
    const args = reader.readValue();
    reader.skipSpace();
    if (!reader.atEnd() || typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
    return { name: match[1], arguments: args as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/** Reads one FunctionGemma value (the inverse of formatFunctionGemmaValue); throws on bad syntax. */
export function parseFunctionGemmaValue(text: string): unknown {
  const reader = new ValueReader(text, 0);
  const value = reader.readValue();
  reader.skipSpace();
  if (!reader.atEnd()) throw new SyntaxError(`unexpected text at ${reader.position}`);
  return value;
}

class ValueReader {
  constructor(
    private readonly text: string,
    public position: number,
  ) {}

  atEnd(): boolean {
    return this.position >= this.text.length;
  }

  skipSpace(): void {
    while (this.position < this.text.length && /\s/.test(this.text[this.position])) this.position++;
  }

  readValue(): unknown {
    this.skipSpace();
    if (this.text.startsWith(FG.escape, this.position)) return this.readString();
    const ch = this.text[this.position];
    if (ch === '{') return this.readObject();
    if (ch === '[') return this.readArray();
    return this.readBare();
  }

  private readString(): string {
    const start = this.position + FG.escape.length;
    const end = this.text.indexOf(FG.escape, start);
    if (end === -1) throw new SyntaxError('unterminated <escape> string');
    this.position = end + FG.escape.length;
    return this.text.slice(start, end);
  }

  private expect(ch: string): void {
    this.skipSpace();
    if (this.text[this.position] !== ch) throw new SyntaxError(`expected "${ch}" at ${this.position}`);
    this.position++;
  }

  private readObject(): Record<string, unknown> {
    this.expect('{');
    const out: Record<string, unknown> = {};
    this.skipSpace();
    if (this.text[this.position] === '}') {
      this.position++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      const keyMatch = /^[^:{}[\],<]+/.exec(this.text.slice(this.position));
      if (!keyMatch) throw new SyntaxError(`expected a key at ${this.position}`);
      this.position += keyMatch[0].length;
      const key = keyMatch[0].trim();
      this.expect(':');
      out[key] = this.readValue();
      this.skipSpace();
      const next = this.text[this.position];
      this.position++;
      if (next === '}') return out;
      if (next !== ',') throw new SyntaxError(`expected "," or "}" at ${this.position - 1}`);
    }
  }

  private readArray(): unknown[] {
    this.expect('[');
    const out: unknown[] = [];
    this.skipSpace();
    if (this.text[this.position] === ']') {
      this.position++;
      return out;
    }
    for (;;) {
      out.push(this.readValue());
      this.skipSpace();
      const next = this.text[this.position];
      this.position++;
      if (next === ']') return out;
      if (next !== ',') throw new SyntaxError(`expected "," or "]" at ${this.position - 1}`);
    }
  }

  /** Unescaped scalars: numbers, true/false/null, and (leniently) bare words as strings. */
  private readBare(): unknown {
    const match = /^[^,}\]]*/.exec(this.text.slice(this.position));
    const raw = (match?.[0] ?? '').trim();
    if (!raw || raw.includes('<') || raw.includes('{') || raw.includes('[')) {
      throw new SyntaxError(`expected a value at ${this.position}`);
    }
    this.position += match![0].length;
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    if (raw === 'null') return null;
    if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) return Number(raw);
    return raw;
  }
}
