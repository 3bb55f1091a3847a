import { newMarkerId, wrapExternalContentCounted } from '../agents/external-content.js';
import type { AgentAction } from '../mappings/hook-action.js';
import { isoString } from '../time/iso-time.js';

/** the gmail preset's mapping id (plugins/gmail/preset.ts) */
const GMAIL_MAPPING = 'gmail';

/**
 * The user message a hook run's model sees: the message inside the external-content safety
 * wrapper, unless the mapping's config turned it off. One function for the run, for the
 * operator's dry runs (what the model would get) and for a run's detail (what it got): given the
 * run's marker id, it makes the run's prompt again.
 */
export function runPrompt(action: AgentAction, receivedAt: number, markerId = newMarkerId()): string {
  return countedRunPrompt(action, receivedAt, markerId).text;
}

/** runPrompt's text with its word count when it was counted as it was made (the wrapper's), for the run's usage estimate */
export function countedRunPrompt(action: AgentAction, receivedAt: number, markerId: string): { text: string; words?: number } {
  if (action.allowUnsafeExternalContent) return { text: action.message };
  // mail arrives through the gmail preset: OpenClaw labels it Email and names its task `Gmail Hook`
  const mail = action.source?.mappingId === GMAIL_MAPPING;
  return wrapExternalContentCounted(action.message, {
    source: mail ? 'Email' : 'Webhook',
    task: mail ? `${action.name} Hook` : action.name,
    mappingId: action.source?.mappingId ?? 'unknown',
    receivedAt: isoString(receivedAt),
  }, markerId);
}

/**
 * The version of the wrapper's text runPrompt makes: a run's message keeps its marker id and this
 * (promptMeta), about 40 bytes, not the ~1 KB prompt, and its detail makes the prompt again
 * (promptOf). A change to the wrapper's text moves this on, so no run is shown a prompt it did not get.
 */
const PROMPT_WRAPPER = 1;

/** what a run's user message keeps of the prompt made with `markerId` */
export function promptMeta(markerId: string): { promptMarker: string; promptWrapper: number } {
  return { promptMarker: markerId, promptWrapper: PROMPT_WRAPPER };
}

/** the prompt a run's model saw, from its user message's meta (null when it was not kept, or by another wrapper) */
export function promptOf(action: AgentAction, receivedAt: number, meta: Record<string, unknown> | null | undefined): string | null {
  // runs before the marker was kept alone have the prompt whole
  if (typeof meta?.prompt === 'string') return meta.prompt;
  if (typeof meta?.promptMarker !== 'string' || meta.promptWrapper !== PROMPT_WRAPPER) return null;
  return runPrompt(action, receivedAt, meta.promptMarker);
}
