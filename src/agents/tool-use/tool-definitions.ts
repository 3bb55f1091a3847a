import type { ToolSpec } from '../../tools/tool-spec.js';

/** server-side tools as the model is offered them: OpenAI's function tools (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools) */
export function toolDefinitions(specs: readonly ToolSpec[]) {
  return specs.map((spec) => ({
    type: 'function' as const,
    function: { name: spec.name, description: spec.description, parameters: spec.inputSchema },
  }));
}
