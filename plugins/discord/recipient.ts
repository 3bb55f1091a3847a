import type { PluginDefinition } from '../../src/plugin-sdk/sdk.js';

/**
 * An interaction the discord preset answers later: `interaction:<application id>:<interaction id>#token=<token>`
 * edits the original response (a deferred slash command), `followup:...` posts a follow-up
 * message (a deferred button or select). The token is a credential: after `#token=`, never shown.
 * `#token=…` is one no longer kept (a run's action once its reply is final, a retained payload
 * replayed): a recipient still, so the run runs, but its delivery fails without a request.
 */
const DISCORD_RECIPIENT = /^(\d{1,25}|(interaction|followup):\d{1,25}:\d{1,25}#token=([A-Za-z0-9._=-]{1,400}|…))$/;

/** a Discord channel or interaction: checked when a hook is accepted, before the plugin is loaded (plugins/listings.ts) */
export const discordRecipient: PluginDefinition['recipient'] = { pattern: DISCORD_RECIPIENT, description: 'a channel id (a snowflake: digits only), or an interaction the discord preset answers (interaction:<application id>:<interaction id>#token=<token>)' };
