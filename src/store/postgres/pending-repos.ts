import { HeraldError } from '../../errors.js';
import type { ApiKeysRepo, KnowledgeRepo } from '../port.js';

/**
 * Stand-ins until this adapter stores knowledge and API keys (issue 9, part 3): it holds none,
 * so reads answer empty (config API keys still work; a search finds nothing) and a write is
 * refused with a 503 saying why, never accepted and lost.
 */
const notYet = (what: string) => new HeraldError('HERALD_UNAVAILABLE', `${what} are not stored on PostgreSQL yet; use storage.sqlite for them`);

export const pendingKnowledgeRepo: KnowledgeRepo = {
  add: async () => {
    throw notYet('knowledge documents');
  },
  get: async () => undefined,
  findByHash: async () => undefined,
  list: async () => [],
  documentCounts: async () => new Map(),
  delete: async () => false,
  search: async () => [],
};

export const pendingApiKeysRepo: ApiKeysRepo = {
  create: async () => {
    throw notYet('API keys');
  },
  findByHash: async () => undefined,
  get: async () => undefined,
  list: async () => [],
  revoke: async () => false,
};
