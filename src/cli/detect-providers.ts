/** A model `init` can configure, and why it was picked. */
export interface DetectedProvider {
  /** `PROVIDER:MODEL` for `agent.model`. */
  model: string;
  /** Set when the server is not at the preset's usual address. */
  baseURL?: string;
  /** One line for the user (the key variable, or the server that answered). */
  found: string;
}

/** Providers whose key in the environment is enough, with a sensible first model (edit it in the config). */
const KEYED: ReadonlyArray<{ env: string[]; model: string }> = [
  { env: ['ANTHROPIC_API_KEY'], model: 'anthropic:claude-sonnet-4-5' },
  { env: ['OPENAI_API_KEY'], model: 'openai:gpt-4.1-mini' },
  { env: ['GOOGLE_GENERATIVE_AI_API_KEY'], model: 'google:gemini-2.5-flash' },
  { env: ['OPENROUTER_API_KEY'], model: 'openrouter:anthropic/claude-sonnet-4.5' },
  { env: ['DEEPSEEK_API_KEY'], model: 'deepseek:deepseek-chat' },
  { env: ['GROQ_API_KEY'], model: 'groq:llama-3.3-70b-versatile' },
];

/**
 * What the environment offers, best first: keys of hosted providers, then a local Ollama
 * (`OLLAMA_HOST`, else 127.0.0.1:11434) or LM Studio (127.0.0.1:1234) server that answers
 * within a second, with the first model it lists.
 */
export async function detectProviders(env: NodeJS.ProcessEnv = process.env): Promise<DetectedProvider[]> {
  const found: DetectedProvider[] = KEYED.filter((entry) => entry.env.some((name) => env[name])).map((entry) => ({
    model: entry.model,
    found: `${entry.env.find((name) => env[name])} is set`,
  }));
  const ollama = ollamaURL(env.OLLAMA_HOST);
  const [fromOllama, fromLmStudio] = await Promise.all([
    firstModel(`${ollama}/api/tags`, (body) => (body as { models?: Array<{ name?: string }> }).models?.[0]?.name),
    firstModel('http://127.0.0.1:1234/v1/models', (body) => (body as { data?: Array<{ id?: string }> }).data?.[0]?.id),
  ]);
  if (fromOllama !== undefined) {
    found.push({
      model: `ollama:${fromOllama ?? 'llama3.2'}`,
      ...(ollama === 'http://127.0.0.1:11434' ? {} : { baseURL: `${ollama}/v1` }),
      found: `an Ollama server answers at ${ollama}${fromOllama === null ? ' (no model pulled yet: ollama pull llama3.2)' : ''}`,
    });
  }
  if (fromLmStudio !== undefined) {
    found.push({ model: `lmstudio:${fromLmStudio ?? 'MODEL'}`, found: `an LM Studio server answers at http://127.0.0.1:1234${fromLmStudio === null ? ' (no model loaded yet)' : ''}` });
  }
  return found;
}

/** Ollama's own convention: `host`, `host:port` or a URL; 0.0.0.0 (listen everywhere) is reached on loopback. */
function ollamaURL(host: string | undefined): string {
  if (!host) return 'http://127.0.0.1:11434';
  const url = new URL(/^[a-z]+:\/\//i.test(host) ? host : `http://${host}`);
  if (url.port === '') url.port = '11434';
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  return url.origin;
}

/** The first model a local server lists: `undefined` when nothing answers, `null` when it lists none. */
async function firstModel(url: string, pick: (body: unknown) => string | undefined): Promise<string | null | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    if (!response.ok) return undefined;
    return pick(await response.json()) ?? null;
  } catch {
    return undefined;
  }
}
