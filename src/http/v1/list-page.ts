import type { z } from 'zod';
import { HeraldError } from '../../errors.js';
import type { listQuerySchema } from '../openapi/common-schemas.js';

/** a list's query as its declaration's schema parsed it (request-param.ts) */
export type ListQuery = z.output<typeof listQuerySchema>;

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
export function listPage<T extends { id: string }>(query: ListQuery, items: T[], defaultLimit = 20, defaultOrder: 'asc' | 'desc' = 'asc'): ListPage<T> {
  const limit = query.limit ?? defaultLimit;
  let list = (query.order ?? defaultOrder) === 'asc' ? items : [...items].reverse();
  const cursor = (name: 'after' | 'before') => {
    const id = query[name];
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
