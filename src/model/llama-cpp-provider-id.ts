/**
 * The local provider's id, and the provider-options key under which a call names its session
 * (`providerOptions['llama-cpp'].sessionId`). Its own file so the agent can set it without
 * loading the provider (and node-llama-cpp's types) on every step.
 */
export const LLAMA_CPP_PROVIDER = 'llama-cpp';
