export const SUMMARY_MAX_CHARS = 2000;

/**
 * The event a finished run posts to the main session: `Hook <name>: <reply>`, the reply cut at
 * 2000 characters (an ellipsis marks the cut) so one chatty run cannot flood the main session.
 */
export function runSummary(name: string, outcome: { reply?: string; error?: string; timedOut?: boolean }): string {
  if (outcome.timedOut) return `Hook ${name}: (timeout)`;
  if (outcome.error !== undefined) return `Hook ${name}: (error) ${cut(outcome.error)}`;
  return `Hook ${name}: ${cut(outcome.reply?.trim() || '(empty reply)')}`;
}

function cut(text: string): string {
  return text.length > SUMMARY_MAX_CHARS ? `${text.slice(0, SUMMARY_MAX_CHARS)}…` : text;
}
