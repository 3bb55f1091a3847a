export const SUMMARY_MAX_CHARS = 2000;

/** The event a finished run posts to the main session: `Hook <name>: <reply>`. */
export function runSummary(name: string, outcome: { reply?: string; error?: string; timedOut?: boolean }): string {
  if (outcome.timedOut) return `Hook ${name}: (timeout)`;
  if (outcome.error !== undefined) return cut(`Hook ${name}: (error) ${outcome.error}`);
  return cut(`Hook ${name}: ${outcome.reply?.trim() || '(empty reply)'}`);
}

function cut(text: string): string {
  return text.length > SUMMARY_MAX_CHARS ? `${text.slice(0, SUMMARY_MAX_CHARS - 1)}…` : text;
}
