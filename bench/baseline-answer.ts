/**
 * The baselines' canned answer to a run's message: word for word what herald's embedded model
 * answers a hook's message (src/models/embedded-model.ts), so both servers store the same bytes
 * for it (the run's reply, the session's assistant message, the main session's summary event).
 * A shorter answer would give the baseline smaller rows, and so fewer pages per commit, than the
 * records it is meant to keep the same. Written out here: the baseline imports nothing of herald.
 */
export function cannedAnswer(message: string): string {
  const question = message.replace(/\s+/g, ' ').trim().slice(0, 280);
  return `Received: "${question}". I am herald's embedded model: I can acknowledge and digest events, but I cannot act on this myself. Configure a model provider to have it handled.`;
}
