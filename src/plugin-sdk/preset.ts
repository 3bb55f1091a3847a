import { z } from 'zod';
import type { MappingConfig } from '../config/sections/mapping-schema.js';
import { mappingTrafficFields } from '../config/sections/traffic-schema.js';
import { mappingToolsSchema } from '../config/sections/tools-schema.js';

/**
 * The options every preset takes, in `hooks.presets` (`{ name: "stripe", secret: "${STRIPE_WEBHOOK_SECRET}", agentId: "billing" }`).
 * A preset extends it with its own (`verifyToken`, ...). The host applies the run options
 * (agentId, deliver, channel, to, sessionKey, model, thinking, allowUnsafeExternalContent) over
 * every mapping the preset gives, so a preset's `mappings` only reads `path`, `secret`, `events`
 * and its own options.
 */
export const presetCommonOptions = z
  .object({
    name: z.string().min(1).describe('The preset: "github", "stripe", ...'),
    id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'letters, digits, - and _')
      .optional()
      .describe("This entry's own id, for a preset listed more than once: its mapping ids (<id>-issue, ...), session keys (hook:<id>:...), counters, usage and console rows. Default: the preset's name for the entry on the preset's own path (or the only entry of the preset), else the entry's path."),
    path: z
      .string()
      .min(1)
      .optional()
      .describe("The hook path the sender posts to, after hooks.path (default: the preset's own, e.g. github)."),
    secret: z.string().min(1).optional().describe("The sender's signing secret (${ENV} allowed): GitHub's webhook secret, Stripe's whsec_..., Slack's signing secret, Meta's app secret, Twilio's auth token."),
    events: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Only these event types reach an agent (the sender\'s own names, e.g. ["issues", "pull_request"] for GitHub); the others are answered 204. Default: the preset\'s own list.'),
    agentId: z.string().min(1).optional().describe('The digital employee that runs these hooks.'),
    deliver: z.boolean().optional().describe('Deliver the reply to a chat channel (default true).'),
    channel: z.string().optional().describe('Delivery channel: last or a channel plugin id/alias.'),
    to: z.string().optional().describe('Recipient on the channel (templated).'),
    sessionKey: z
      .string()
      .optional()
      .describe("Session key pattern of the runs (templated over the payload), replacing the preset's own (one session per issue, customer, ...)."),
    model: z.string().optional().describe('Model override of the runs, <provider>/<model> or an alias; must be in agents.defaults.models when that is set.'),
    thinking: z.enum(['off', 'minimal', 'low', 'medium', 'high']).optional().describe('Thinking level of the runs.'),
    allowUnsafeExternalContent: z.boolean().optional().describe("Turns off the external-content safety wrapper for the preset's hooks (dangerous; trusted senders only)."),
    tools: mappingToolsSchema
      .optional()
      .describe("Narrows the agent's tools for the preset's runs (allow, deny); `grant` lets named writes run without a person's approval (a preset verifies its sender's signature, so its requests are signed)."),
    ...mappingTrafficFields,
  })
  .strict();

export type PresetCommonOptions = z.output<typeof presetCommonOptions>;

export { PRESET_RUN_OPTIONS, presetName, type PresetEntry } from './preset-entry.js';

/**
 * A mapping preset: a sender made one line of config. Its mappings go through the same engine and
 * validation as a user's, after them (a user's mapping on the same path wins), and carry the
 * preset's name as their origin.
 */
export interface PresetDefinition<O extends z.ZodType<PresetCommonOptions> = z.ZodType<PresetCommonOptions>> {
  /** the hook path the sender posts to, after hooks.path (the `path` option replaces it) */
  path: string;
  /** how a request proves it comes from the sender, for people: "X-Hub-Signature-256, HMAC-SHA256 of the body with `secret`" */
  verifies: string;
  /** one line: what the sender is and what its hooks become */
  summary: string;
  /** the sender's own documentation of its webhooks */
  docs: string;
  /** `presetCommonOptions.extend({...})`: checked at start, a fault names `hooks.presets[i].<key>` */
  options: O;
  /** options a request cannot be verified without (`secret`, `verifyToken`): missing, the start fails naming the key */
  requires?: (keyof z.output<O> & string)[];
  /**
   * options taken from the plugin's own config section, under those of `hooks.presets` (gmail's
   * `hooks.gmail.model`); called with undefined when the section is absent
   */
  optionsFromConfig?(section: unknown): Partial<z.output<O>>;
  /** the mapping set, as plain data, given the checked options (`path` filled with the preset's own when not given) */
  mappings(options: z.output<O> & { path: string }): MappingConfig[];
}

/** Declares a preset; its `mappings` and `optionsFromConfig` are typed by its own options schema. */
export function definePreset<O extends z.ZodType<PresetCommonOptions>>(definition: PresetDefinition<O>): PresetDefinition {
  return definition as unknown as PresetDefinition;
}
