import { wrapExternalContent } from '../agents/external-content.js';
import type { AgentAction } from '../mappings/hook-action.js';

/**
 * The user message a hook run's model sees: the message inside the external-content safety
 * wrapper, unless the mapping's config turned it off. One function for the run and for the
 * operator's dry runs, so the console shows what the model would get.
 */
export function runPrompt(action: AgentAction, receivedAt: number): string {
  if (action.allowUnsafeExternalContent) return action.message;
  return wrapExternalContent(action.message, {
    source: action.source?.mappingId === 'agent' ? 'webhook /agent' : `webhook mapping ${action.source?.mappingId ?? 'unknown'}`,
    hookName: action.name,
    receivedAt: new Date(receivedAt).toISOString(),
  });
}
