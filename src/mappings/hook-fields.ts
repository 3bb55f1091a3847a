import { z } from 'zod';
import { MAX_TIMEOUT_SECONDS, sessionModes, thinkingLevels, wakeModes } from '../config/sections/mapping-schema.js';

/** a string with more than white space */
const nonBlank = z.string().min(1).refine((v) => v.trim().length > 0);

/**
 * The fields of a hook action (a /hooks/wake or /hooks/agent body, or a mapping's rendered
 * result), one schema each, so a fault names its field (hook-action.ts). The HTTP layer describes
 * the two bodies from these same schemas (http/hooks/hooks-api.ts). None transforms its value.
 */
export const hookFields = {
  text: nonBlank,
  message: nonBlank,
  mode: z.enum(wakeModes),
  wakeMode: z.enum(wakeModes),
  name: z.string(),
  agentId: z.string(),
  sessionKey: z.string().min(1).max(512),
  sessionMode: z.enum(sessionModes),
  deliver: z.boolean(),
  channel: z.string(),
  to: z.string(),
  threadId: z.string().max(256),
  model: z.string(),
  thinking: z.enum(thinkingLevels),
  // zod's number refuses NaN and the infinities
  timeoutSeconds: z.number().positive().max(MAX_TIMEOUT_SECONDS),
};
