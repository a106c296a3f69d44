import { describe, expect, it } from 'vitest';
import { checkModelSpec } from '../../src/model/check-model-spec.js';
import { modelKeyMissing, modelKeyNeed } from '../../src/model/model-credentials.js';
import { MODEL_PROVIDER_TABLE, MODEL_PROVIDERS, providerApiKey } from '../../src/model/model-providers.js';
import { isSecretEnv } from '../../src/tools/secret-env.js';
import { splitSecrets } from '../../src/tools/secret-hand-over.js';

describe('model providers', () => {
  it('accepts every provider of the table; the presets need no base URL, the generic one does', () => {
    for (const provider of ['anthropic', 'openai', 'google', 'openrouter', 'ollama', 'lmstudio', 'vllm', 'llamacpp-server', 'deepseek', 'groq']) {
      expect(() => checkModelSpec({ agent: { model: `${provider}:some-model` } as never }), provider).not.toThrow();
    }
    expect(() => checkModelSpec({ agent: { model: 'openai-compatible:x' } as never })).toThrow(/needs a base URL/);
    expect(() => checkModelSpec({ agent: { model: 'mistral:x' } as never })).toThrow(`unknown provider "mistral". Providers: ${MODEL_PROVIDERS.join(', ')}`);
    expect(() => checkModelSpec({ agent: { model: 'anthropic:x', baseURL: 'localhost:8080' } as never })).toThrow(/not an http\(s\) URL/);
  });

  it('every provider key variable is a secret: moved off the environment at start and kept from tools', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/usr/bin' };
    for (const info of Object.values(MODEL_PROVIDER_TABLE)) {
      if (!('keyEnv' in info)) continue;
      expect(isSecretEnv(info.keyEnv), info.keyEnv).toBe(true);
      env[info.keyEnv] = 'value';
    }
    const { env: clean, secrets } = splitSecrets(env);
    expect(Object.keys(clean)).toEqual(['PATH']);
    expect(Object.keys(secrets)).toEqual(expect.arrayContaining(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'OPENROUTER_API_KEY']));
  });

  it('reads the key from agent.apiKey, then the provider variable, then PLAITED_API_KEY', () => {
    const anthropic = MODEL_PROVIDER_TABLE.anthropic;
    expect(providerApiKey(anthropic, 'configured', { ANTHROPIC_API_KEY: 'env' })).toBe('configured');
    expect(providerApiKey(anthropic, undefined, { ANTHROPIC_API_KEY: 'env', PLAITED_API_KEY: 'generic' })).toBe('env');
    expect(providerApiKey(anthropic, undefined, { PLAITED_API_KEY: 'generic' })).toBe('generic');
    expect(providerApiKey(anthropic, undefined, { ANTHROPIC_API_KEY: '', PLAITED_API_KEY: 'generic' })).toBe('generic');
  });

  it("reads Gemini's key where Google's docs put it: GOOGLE_API_KEY, then GEMINI_API_KEY", () => {
    const google = MODEL_PROVIDER_TABLE.google;
    expect(providerApiKey(google, undefined, { GEMINI_API_KEY: 'gemini' })).toBe('gemini');
    expect(providerApiKey(google, undefined, { GEMINI_API_KEY: 'gemini', GOOGLE_API_KEY: 'google' })).toBe('google');
    expect(providerApiKey(google, undefined, { GEMINI_API_KEY: 'gemini', GOOGLE_GENERATIVE_AI_API_KEY: 'sdk' })).toBe('sdk');
    const need = modelKeyNeed({ model: 'google:gemini-2.5-flash' })!;
    expect(modelKeyMissing(need, undefined, { GEMINI_API_KEY: 'k' })).toBe(false);
    expect(modelKeyMissing(need, undefined, { GEMINI_API_KEY: '' })).toBe(true);
    expect(isSecretEnv('GEMINI_API_KEY')).toBe(true);
    expect(isSecretEnv('GOOGLE_API_KEY')).toBe(true);
  });

  it('names the variable the configured provider needs, and none for local servers', () => {
    expect(modelKeyNeed({ model: 'anthropic:claude-sonnet-4-5' })?.envVar).toBe('ANTHROPIC_API_KEY');
    expect(modelKeyNeed({ model: 'google:gemini-2.5-flash' })?.envVar).toBe('GOOGLE_GENERATIVE_AI_API_KEY');
    expect(modelKeyNeed({ model: 'openrouter:meta/llama' })).toEqual({ envVar: 'OPENROUTER_API_KEY', envVars: ['OPENROUTER_API_KEY'], endpoint: 'https://openrouter.ai/api/v1' });
    expect(modelKeyNeed({ model: 'openai-compatible:x', baseURL: 'https://api.example.com/v1' })?.envVar).toBe('PLAITED_API_KEY');
    expect(modelKeyNeed({ model: 'ollama:llama3' })).toBeUndefined();
    expect(modelKeyNeed({ model: 'anthropic:x', baseURL: 'http://127.0.0.1:4000/v1' })).toBeUndefined();
    expect(modelKeyNeed({ model: 'llama-cpp:./m.gguf' })).toBeUndefined();
    const need = modelKeyNeed({ model: 'openai:gpt-5' })!;
    expect(modelKeyMissing(need, undefined, {})).toBe(true);
    expect(modelKeyMissing(need, undefined, { OPENAI_API_KEY: 'k' })).toBe(false);
  });
});
