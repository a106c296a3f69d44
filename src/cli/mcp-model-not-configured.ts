import { ModelError } from '../model/model-error.js';

/**
 * The model of a turn on the MCP face when no model is configured and the calling host offers
 * no sampling (Claude Code advertises only roots and elicitation): not the default local model,
 * which is far too small for a coding host's requests, but the `prompt` tool's error saying a
 * model must be configured and how.
 */
export async function mcpModelNotConfigured(): Promise<never> {
  throw new ModelError(
    'model_not_configured',
    'No model configured, and this MCP host does not offer sampling to lend its own: configure a model for the mounted agent, ' +
      'e.g. `claude mcp add plaited -e ANTHROPIC_API_KEY=... -- plaited-agent --adapter mcp --model anthropic:claude-sonnet-4-5` ' +
      '(or --model openai:gpt-5-mini, ollama:llama3.2, llama-cpp:/path/to/model.gguf), or set agent.model in .plaited/config.json.',
  );
}
