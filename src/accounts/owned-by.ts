import type { ApiPrincipal } from './api-keys.js';

/**
 * Whether a key may see a file or vector store: a key of every agent sees them all; a key of some
 * agents sees what a key sharing one of its agents made, and what is attached to one of its agents.
 */
export const mayUseOwned = (principal: ApiPrincipal, madeFor: string[] | undefined, attachedTo: readonly string[] = []) =>
  !principal.agents || [...(madeFor ?? []), ...attachedTo].some((agent) => principal.agents!.includes(agent));
