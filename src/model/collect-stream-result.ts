import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3Warning,
} from '@ai-sdk/provider';

/** A provider's `doGenerate` from its `doStream`: the streamed parts collected into one result. */
export async function collectStreamResult({ stream, request }: LanguageModelV3StreamResult): Promise<LanguageModelV3GenerateResult> {
  const content: LanguageModelV3Content[] = [];
  let finishReason: LanguageModelV3FinishReason = { unified: 'other', raw: undefined };
  let usage: LanguageModelV3Usage = emptyUsage();
  let warnings: SharedV3Warning[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === 'stream-start') warnings = value.warnings;
    else if (value.type === 'text-delta') {
      const last = content[content.length - 1];
      if (last?.type === 'text') last.text += value.delta;
      else content.push({ type: 'text', text: value.delta });
    } else if (value.type === 'text-end') content.push({ type: 'text', text: '' });
    else if (value.type === 'tool-call') content.push(value);
    else if (value.type === 'finish') {
      finishReason = value.finishReason;
      usage = value.usage;
    }
  }
  return {
    content: content.filter((part) => part.type !== 'text' || part.text.length > 0),
    finishReason,
    usage,
    warnings,
    request,
  };
}

function emptyUsage(): LanguageModelV3Usage {
  return {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
}
