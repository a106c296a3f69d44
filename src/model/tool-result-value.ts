import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';

/** A tool result as a plain value for a local model's prompt; errors keep an `error` key so the model can tell. */
export function toolResultValue(output: LanguageModelV3ToolResultOutput): unknown {
  switch (output.type) {
    case 'text':
      return output.value;
    case 'json':
      return output.value;
    case 'error-text':
    case 'error-json':
      return { error: output.value };
    case 'execution-denied':
      return { error: `execution denied${output.reason ? `: ${output.reason}` : ''}` };
    case 'content':
      return output.value
        .map((part) => (part.type === 'text' ? part.text : `[${part.type}${'mediaType' in part ? ` ${String(part.mediaType)}` : ''}]`))
        .join('\n');
    default:
      return null;
  }
}
