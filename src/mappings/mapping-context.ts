import type { Logger } from 'pino';
import type { ActionContext } from './hook-action.js';
import type { TransformRunner } from './transforms/transform-runner.js';

/** what compiling a mapping needs of the gateway around it: the config, the channels and tools it may name, where to tell what it found */
export type MappingContext = Pick<ActionContext, 'config' | 'channelNames' | 'recipientFault' | 'isConfigured' | 'toolSpec'> & {
  /** where per-request mapping failures are logged (mapping id and reason, never the body) */
  logger?: Logger;
  /** receives what loads but deserves attention (a transform not there yet, ...), each naming its mapping */
  warnings?: string[];
  /** receives what the operator should know once, though nothing is wrong (a preset's path shadowed by your mappings) */
  notes?: string[];
  /** where transforms run: the gateway passes its worker pool; without one, in the calling thread */
  transformRunner?: TransformRunner;
};
