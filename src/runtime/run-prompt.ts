import { wrapExternalContent } from '../agents/external-content.js';
import type { AgentAction } from '../mappings/hook-action.js';

/** the gmail preset's mapping id (plugins/gmail/preset.ts) */
const GMAIL_MAPPING = 'gmail';

/**
 * The user message a hook run's model sees: the message inside the external-content safety
 * wrapper, unless the mapping's config turned it off. One function for the run and for the
 * operator's dry runs, so the console shows what the model would get.
 */
export function runPrompt(action: AgentAction, receivedAt: number): string {
  if (action.allowUnsafeExternalContent) return action.message;
  // mail arrives through the gmail preset: OpenClaw labels it Email and names its task `Gmail Hook`
  const mail = action.source?.mappingId === GMAIL_MAPPING;
  return wrapExternalContent(action.message, {
    source: mail ? 'Email' : 'Webhook',
    task: mail ? `${action.name} Hook` : action.name,
    mappingId: action.source?.mappingId ?? 'unknown',
    receivedAt: new Date(receivedAt).toISOString(),
  });
}
