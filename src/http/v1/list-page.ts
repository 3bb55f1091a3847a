import type { Context } from 'hono';
import { HeraldError } from '../../errors.js';

export interface ListPage<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/**
 * OpenAI's cursor pagination over a list already in its natural (oldest first) order:
 * `limit` (1..100), `order` (asc|desc), `after` / `before` an id of the list. Files and vector
 * stores default to `desc`, newest first, as OpenAI's API reference says of those lists; herald's
 * own lists (agents, models, knowledge) keep their natural order.
 */
export function listPage<T extends { id: string }>(c: Context, items: T[], defaultLimit = 20, defaultOrder: 'asc' | 'desc' = 'asc'): ListPage<T> {
  const limitText = c.req.query('limit');
  const limit = limitText === undefined ? defaultLimit : Number(limitText);
  if (limitText !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
    throw new HeraldError('HERALD_INVALID_FIELD', 'limit must be an integer from 1 to 100', { param: 'limit' });
  }
  const order = c.req.query('order') ?? defaultOrder;
  if (order !== 'asc' && order !== 'desc') throw new HeraldError('HERALD_INVALID_FIELD', 'order must be "asc" or "desc"', { param: 'order' });
  let list = order === 'asc' ? items : [...items].reverse();
  const cursor = (name: 'after' | 'before') => {
    const id = c.req.query(name);
    if (id === undefined) return undefined;
    const at = list.findIndex((item) => item.id === id);
    if (at < 0) throw new HeraldError('HERALD_INVALID_FIELD', `${name}: no item with id "${id}" in this list`, { param: name });
    return at;
  };
  const after = cursor('after');
  const before = cursor('before');
  let hasMore: boolean;
  if (before !== undefined && after === undefined) {
    // the page just before the cursor, still in list order
    const start = Math.max(0, before - limit);
    hasMore = start > 0;
    list = list.slice(start, before);
  } else {
    const start = after === undefined ? 0 : after + 1;
    const end = before === undefined ? list.length : before;
    hasMore = start + limit < end;
    list = list.slice(start, Math.min(end, start + limit));
  }
  return { object: 'list', data: list, first_id: list[0]?.id ?? null, last_id: list.at(-1)?.id ?? null, has_more: hasMore };
}
