import type { PluginListing } from '../src/plugin-sdk/sdk.js';
import { discordRecipient } from './discord/recipient.js';
import { msteamsRecipient } from './msteams/recipient.js';
import { telegramRecipient } from './telegram/recipient.js';
import { whatsappRecipient } from './whatsapp/recipient.js';

/**
 * The explicit list of built-in plugins, each as the host knows it before loading it (id, roles,
 * aliases, config key, recipient) and its manifest imported on first use: a start loads only the
 * plugins its config uses. A plugin is one folder; list its manifest here (test/plugins/listings.test.ts
 * checks that each entry says what its manifest says).
 */
export const builtinListings: PluginListing[] = [
  { id: 'gmail', roles: ['preset', 'service'], configKey: 'hooks.gmail', load: async () => (await import('./gmail/manifest.js')).gmailPlugin },
  { id: 'telegram', roles: ['channel'], recipient: telegramRecipient, load: async () => (await import('./telegram/manifest.js')).telegramPlugin },
  { id: 'slack', roles: ['channel', 'preset'], load: async () => (await import('./slack/manifest.js')).slackPlugin },
  { id: 'discord', roles: ['channel', 'preset'], recipient: discordRecipient, load: async () => (await import('./discord/manifest.js')).discordPlugin },
  { id: 'mattermost', roles: ['channel'], load: async () => (await import('./mattermost/manifest.js')).mattermostPlugin },
  { id: 'signal', roles: ['channel'], load: async () => (await import('./signal/manifest.js')).signalPlugin },
  { id: 'imessage', roles: ['channel'], aliases: ['imsg'], load: async () => (await import('./imessage/manifest.js')).imessagePlugin },
  { id: 'msteams', roles: ['channel'], aliases: ['teams'], recipient: msteamsRecipient, load: async () => (await import('./msteams/manifest.js')).msteamsPlugin },
  { id: 'whatsapp', roles: ['channel'], recipient: whatsappRecipient, load: async () => (await import('./whatsapp/manifest.js')).whatsappPlugin },
  { id: 'webhook', roles: ['channel'], load: async () => (await import('./webhook/manifest.js')).webhookPlugin },
  { id: 'github', roles: ['preset'], load: async () => (await import('./github/manifest.js')).githubPlugin },
  { id: 'gitlab', roles: ['preset'], load: async () => (await import('./gitlab/manifest.js')).gitlabPlugin },
  { id: 'stripe', roles: ['preset'], load: async () => (await import('./stripe/manifest.js')).stripePlugin },
  { id: 'linear', roles: ['preset'], load: async () => (await import('./linear/manifest.js')).linearPlugin },
  { id: 'sentry', roles: ['preset'], load: async () => (await import('./sentry/manifest.js')).sentryPlugin },
  { id: 'pagerduty', roles: ['preset'], load: async () => (await import('./pagerduty/manifest.js')).pagerdutyPlugin },
  { id: 'alertmanager', roles: ['preset'], load: async () => (await import('./alertmanager/manifest.js')).alertmanagerPlugin },
  { id: 'meta', roles: ['preset'], load: async () => (await import('./meta/manifest.js')).metaPlugin },
  { id: 'twilio', roles: ['preset'], load: async () => (await import('./twilio/manifest.js')).twilioPlugin },
  { id: 'shopify', roles: ['preset'], load: async () => (await import('./shopify/manifest.js')).shopifyPlugin },
  { id: 'jira', roles: ['preset'], load: async () => (await import('./jira/manifest.js')).jiraPlugin },
  { id: 'standard-webhooks', roles: ['preset'], load: async () => (await import('./standard-webhooks/manifest.js')).standardWebhooksPlugin },
  { id: 'grafana', roles: ['preset'], load: async () => (await import('./grafana/manifest.js')).grafanaPlugin },
  { id: 'bitbucket', roles: ['preset'], load: async () => (await import('./bitbucket/manifest.js')).bitbucketPlugin },
  { id: 'msgraph', roles: ['preset'], load: async () => (await import('./msgraph/manifest.js')).msgraphPlugin },
  { id: 'sendgrid', roles: ['preset'], load: async () => (await import('./sendgrid/manifest.js')).sendgridPlugin },
  { id: 'mailgun', roles: ['preset'], load: async () => (await import('./mailgun/manifest.js')).mailgunPlugin },
  { id: 'netlify', roles: ['preset'], load: async () => (await import('./netlify/manifest.js')).netlifyPlugin },
  { id: 'datadog', roles: ['preset'], load: async () => (await import('./datadog/manifest.js')).datadogPlugin },
  { id: 'notion', roles: ['preset'], load: async () => (await import('./notion/manifest.js')).notionPlugin },
  { id: 'zoom', roles: ['preset'], load: async () => (await import('./zoom/manifest.js')).zoomPlugin },
  { id: 'intercom', roles: ['preset'], load: async () => (await import('./intercom/manifest.js')).intercomPlugin },
  { id: 'hubspot', roles: ['preset'], load: async () => (await import('./hubspot/manifest.js')).hubspotPlugin },
  { id: 'calendly', roles: ['preset'], load: async () => (await import('./calendly/manifest.js')).calendlyPlugin },
  { id: 'vercel', roles: ['preset'], load: async () => (await import('./vercel/manifest.js')).vercelPlugin },
  { id: 'zendesk', roles: ['preset'], load: async () => (await import('./zendesk/manifest.js')).zendeskPlugin },
  { id: 'typeform', roles: ['preset'], load: async () => (await import('./typeform/manifest.js')).typeformPlugin },
  { id: 'cloudflare', roles: ['preset'], load: async () => (await import('./cloudflare/manifest.js')).cloudflarePlugin },
  { id: 'paypal', roles: ['preset'], load: async () => (await import('./paypal/manifest.js')).paypalPlugin },
];
