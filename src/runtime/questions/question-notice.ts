import type { HeraldConfig } from '../../config/schema.js';
import type { AlertTarget } from '../../config/sections/alerts-schema.js';
import type { ToolQuestionRecord } from '../../store/port.js';
import { derivedDeliveryId } from '../alerts/alert-notices.js';
import { decisionPaths } from '../approvals/approval-notice.js';

/** a notice is read in a chat: a longer message is cut there (the console shows it whole) */
const MESSAGE_SHOWN = 1500;

/** the delivery id of one question's notice to one target: announcing again adds no second row */
export const questionNoticeId = (questionId: string, target: AlertTarget): string => derivedDeliveryId(`question:${questionId}:${target.channel}:${target.to ?? ''}`);

/** what a target receives: whose question it is (the server's words, marked as such), until when, how to answer */
export function questionNoticeText(question: ToolQuestionRecord, gateway: HeraldConfig['gateway']): string {
  const message = question.message.length > MESSAGE_SHOWN ? `${question.message.slice(0, MESSAGE_SHOWN)}… (cut: the console shows all)` : question.message;
  const paths = decisionPaths(question.id, gateway);
  const fields = Object.keys((question.requestedSchema?.properties as Record<string, unknown> | undefined) ?? {});
  return [
    `herald question from the tool server ${question.server} (its words, not herald's)`,
    `Agent ${question.agentId} · ${question.ownerKind} ${question.ownerId} · tool call ${question.toolCallId}`,
    `Question: ${message}`,
    question.mode === 'url' ? `Page to open: ${question.url}` : fields.length ? `Fields: ${fields.join(', ')}` : null,
    `Cancelled unless answered by ${new Date(question.expiresAt).toISOString()}.`,
    `Answer: POST /admin/approvals/${encodeURIComponent(question.id)}/answer {"action": "accept" | "decline" | "cancel", "content": {…}}`,
    `Console: ${paths.console}`,
  ]
    .filter((line) => line !== null)
    .join('\n');
}
