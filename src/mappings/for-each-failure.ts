import type { ItemRefusal } from './compiled-mapping.js';
import type { HookRequest } from './hook-request.js';
import { mappingFailureOf, redactedCause, type ItemFailure, type MappingFailure } from './mapping-failure.js';

/** enough items for the operator to see the pattern; the count says how many there were */
const MAX_ITEMS = 20;
const MAX_CAUSE_LENGTH = 400;

/**
 * Where and why a `forEach` mapping failed for some of its items while the others ran: each failed
 * item (its index, the stage, the cause without the request's values), the first one's stage and
 * place as the request's own, and a cause that counts them. The items the dispatch refused (a rate
 * limit) carry no mapping stage: theirs is `dispatch`, their message cleaned the same way.
 */
export function forEachFailure(mappingId: string, total: number, refused: readonly ItemRefusal[], request: Pick<HookRequest, 'payload' | 'headers' | 'query'>): MappingFailure | undefined {
  if (!refused.length) return undefined;
  const items: ItemFailure[] = [...refused]
    .sort((a, b) => a.index - b.index)
    .slice(0, MAX_ITEMS)
    .map(({ index, error }) => {
      const marked = mappingFailureOf(error);
      if (marked) return { index, stage: marked.stage, cause: marked.cause, ...(marked.at && { at: marked.at }) };
      return { index, stage: 'dispatch', cause: redactedCause(error.message, request) };
    });
  const first = items[0]!;
  const counted = `${refused.length} of ${total} items failed; item ${first.index}: ${first.cause}`;
  return {
    stage: first.stage,
    mappingId,
    cause: counted.length > MAX_CAUSE_LENGTH ? `${counted.slice(0, MAX_CAUSE_LENGTH)}…` : counted,
    ...(first.at && { at: first.at }),
    items,
  };
}
