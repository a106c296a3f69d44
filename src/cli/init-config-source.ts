import type { DetectedProvider } from './detect-providers.js';

/**
 * The commented `.plaited/config.ts` that `init` writes: the detected model (the others as
 * comments), and the settings a new user looks for first. A plain object, so it loads whether or
 * not plaited-agent is installed in the project (`defineConfig` only adds types).
 */
export function initConfigSource(detected: readonly DetectedProvider[]): string {
  const [chosen, ...others] = detected;
  const model = chosen
    ? [`    model: '${chosen.model}', // ${chosen.found}`, ...(chosen.baseURL ? [`    baseURL: '${chosen.baseURL}',`] : [])]
    : [
        "    // No model found: set a key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, …) or start",
        '    // Ollama / LM Studio, then name the model here (or pass --model):',
        "    // model: 'anthropic:claude-sonnet-4-5',",
      ];
  const alternatives = others.map((other) => `    // model: '${other.model}',${other.baseURL ? ` baseURL: '${other.baseURL}',` : ''} // ${other.found}`);
  return `// plaited-agent's config for this project (written by \`plaited-agent init\`).
// Every field is optional; the README's "Config reference" lists them all.
// A config runs only while trusted: after editing this file (or a file it imports), run
// \`plaited-agent trust\` again, or the agent starts with the defaults and says why.
// With plaited-agent installed in the project you may wrap the object in defineConfig (types):
//   import { defineConfig } from 'plaited-agent';  export default defineConfig({ ... });

export default {
  agent: {
${[...model, ...alternatives].join('\n')}
    // 'default' asks before edits and commands; 'accept-edits' lets file edits run; 'plan' only reads.
    defaultMode: 'default',
    // maxSteps: 25, // model steps per turn
  },
  tools: {
    // Calls that run without asking: a tool, or a tool and a scope.
    allow: [
      // 'bash(npm test:*)',
      // 'write_file(src/**)',
    ],
    // Calls always refused (deny wins over allow).
    deny: [],
  },
  mcp: {
    // MCP servers every session can use; their tools are found through search.
    servers: [
      // { id: 'fs', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
      // { id: 'docs', transport: 'http', url: 'https://example.com/mcp' },
    ],
  },
};
`;
}

/** The AGENTS.md `init` writes when the project has none: the rules tier the agent reads first. */
export const INIT_AGENTS_MD = `# Rules for agents working on this project

This file is read by plaited-agent (and other coding agents) before each session. Keep it short:
how to build and test, the conventions that matter, and what never to do.

- Build: \`…\`
- Test: \`…\` (run only the tests you touch)
- Conventions: …
`;
