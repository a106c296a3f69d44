import { defineConfig } from '../src/config/define-config.js';

// This repository's own config: plaited-agent works on itself with it.
// Point it at any OpenAI-compatible endpoint (Ollama shown) or a local GGUF file.
export default defineConfig({
  agent: {
    model: process.env.PLAITED_MODEL ?? 'openai-compatible:qwen2.5-coder:7b',
    baseURL: process.env.PLAITED_BASE_URL ?? 'http://127.0.0.1:11434/v1',
  },
  scripts: {
    test: 'npm test',
    bench: 'npm run bench',
  },
});
