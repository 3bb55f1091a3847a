import type { AgentConfig, AgentDirectory } from '../../../agents/agent-directory.js';
import { PASSAGES_PER_TURN } from '../../../agents/agent-turn.js';
import { responseStore, type ResponseRecord } from './response-record.js';
import { openResponseTurn, type ResponseTurn, type ResponseTurnDeps, type ResponseTurnInput } from './response-turn.js';
import { HeraldError } from '../../../errors.js';
import { conversationOwner, mayUseAgent, type ApiPrincipal } from '../../../accounts/api-keys.js';
import type { VectorStores } from '../../../knowledge-stores/vector-stores.js';
import { requireAgent } from '../../v1/agent-access.js';

export interface ResponsesDeps {
  turns: ResponseTurnDeps;
  agents: AgentDirectory;
  /** what a file_search tool searches */
  vectorStores: VectorStores;
}

/** a request's file_search tool: the vector stores it names, each with the parameter that named it */
export interface FileSearchRequest {
  vectorStoreIds: { id: string; param: string }[];
  maxResults?: number;
  includeResults: boolean;
}

/** a response as asked: the agent it names as `model`, its file_search tool, and the turn's own inputs */
export interface ResponseRequest extends Omit<ResponseTurnInput, 'agent' | 'owner' | 'usage' | 'fileSearch'> {
  model: unknown;
  fileSearch?: FileSearchRequest;
}

/**
 * POST /v1/responses: the key may use the agent it names (404 otherwise, param `model`) and the
 * vector stores its file_search tool names; the turn opens on the key's own responses, its tokens
 * counted against the key and the agent, whose budgets the turn checks as it is admitted (429
 * before anything is answered).
 */
export async function openResponse(deps: ResponsesDeps, principal: ApiPrincipal, request: ResponseRequest): Promise<{ agent: AgentConfig; turn: ResponseTurn }> {
  const agent = requireAgent(deps.agents, principal, request.model, 'model');
  const { model: _model, fileSearch, ...asked } = request;
  const stores = fileSearch && (await Promise.all(fileSearch.vectorStoreIds.map(({ id, param }) => deps.vectorStores.resolve(principal, id, param))));
  const turn = await openResponseTurn(deps.turns, {
    ...asked,
    agent,
    owner: conversationOwner(principal),
    usage: { source: 'response', keyName: principal.name },
    ...(fileSearch &&
      stores && {
        fileSearch: {
          search: (question: string) => deps.vectorStores.search(stores, question, fileSearch.maxResults ?? PASSAGES_PER_TURN),
          includeResults: fileSearch.includeResults,
        },
      }),
  });
  return { agent, turn };
}

/**
 * GET and DELETE /v1/responses/:id: a stored response the key may see, one of an agent it may
 * use and of its own group; another key's does not exist for this one (its passages, its answer).
 */
export async function storedResponse(deps: Pick<ResponsesDeps, 'turns'>, principal: ApiPrincipal, id: string): Promise<ResponseRecord> {
  const record = await responseStore(deps.turns.state).get(id);
  if (!record || !mayUseAgent(principal, record.agentId) || (record.owner !== undefined && record.owner !== conversationOwner(principal))) {
    throw new HeraldError('HERALD_RESPONSE_NOT_FOUND', `No response "${id}".`, { param: 'response_id' });
  }
  return record;
}

/** DELETE /v1/responses/:id, once `storedResponse` found it */
export function deleteResponse(deps: Pick<ResponsesDeps, 'turns'>, record: ResponseRecord): Promise<void> {
  return responseStore(deps.turns.state).delete(record.id);
}
