import type { PluginDefinition } from '../src/plugin-sdk/sdk.js';
import { gmailPlugin } from './gmail/manifest.js';
import { telegramPlugin } from './telegram/manifest.js';
import { slackPlugin } from './slack/manifest.js';
import { discordPlugin } from './discord/manifest.js';
import { mattermostPlugin } from './mattermost/manifest.js';
import { signalPlugin } from './signal/manifest.js';
import { imessagePlugin } from './imessage/manifest.js';
import { msteamsPlugin } from './msteams/manifest.js';
import { whatsappPlugin } from './whatsapp/manifest.js';
import { webhookPlugin } from './webhook/manifest.js';
import { githubPlugin } from './github/manifest.js';
import { gitlabPlugin } from './gitlab/manifest.js';
import { stripePlugin } from './stripe/manifest.js';
import { linearPlugin } from './linear/manifest.js';
import { sentryPlugin } from './sentry/manifest.js';
import { pagerdutyPlugin } from './pagerduty/manifest.js';
import { alertmanagerPlugin } from './alertmanager/manifest.js';
import { metaPlugin } from './meta/manifest.js';
import { twilioPlugin } from './twilio/manifest.js';
import { shopifyPlugin } from './shopify/manifest.js';
import { jiraPlugin } from './jira/manifest.js';
import { standardWebhooksPlugin } from './standard-webhooks/manifest.js';
import { grafanaPlugin } from './grafana/manifest.js';
import { bitbucketPlugin } from './bitbucket/manifest.js';
import { msgraphPlugin } from './msgraph/manifest.js';
import { sendgridPlugin } from './sendgrid/manifest.js';
import { mailgunPlugin } from './mailgun/manifest.js';
import { netlifyPlugin } from './netlify/manifest.js';
import { datadogPlugin } from './datadog/manifest.js';
import { notionPlugin } from './notion/manifest.js';
import { zoomPlugin } from './zoom/manifest.js';
import { intercomPlugin } from './intercom/manifest.js';
import { hubspotPlugin } from './hubspot/manifest.js';
import { calendlyPlugin } from './calendly/manifest.js';
import { vercelPlugin } from './vercel/manifest.js';
import { zendeskPlugin } from './zendesk/manifest.js';
import { typeformPlugin } from './typeform/manifest.js';
import { cloudflarePlugin } from './cloudflare/manifest.js';
import { paypalPlugin } from './paypal/manifest.js';

/** The explicit list of built-in plugins. A plugin is one folder; add its manifest here. */
export const builtinPlugins: PluginDefinition[] = [
  gmailPlugin,
  telegramPlugin,
  slackPlugin,
  discordPlugin,
  mattermostPlugin,
  signalPlugin,
  imessagePlugin,
  msteamsPlugin,
  whatsappPlugin,
  webhookPlugin,
  githubPlugin,
  gitlabPlugin,
  stripePlugin,
  linearPlugin,
  sentryPlugin,
  pagerdutyPlugin,
  alertmanagerPlugin,
  metaPlugin,
  twilioPlugin,
  shopifyPlugin,
  jiraPlugin,
  standardWebhooksPlugin,
  grafanaPlugin,
  bitbucketPlugin,
  msgraphPlugin,
  sendgridPlugin,
  mailgunPlugin,
  netlifyPlugin,
  datadogPlugin,
  notionPlugin,
  zoomPlugin,
  intercomPlugin,
  hubspotPlugin,
  calendlyPlugin,
  vercelPlugin,
  zendeskPlugin,
  typeformPlugin,
  cloudflarePlugin,
  paypalPlugin,
];
