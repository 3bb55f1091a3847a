import { z } from 'zod';

export const msteamsConfigSchema = z
  .object({
    appId: z.string().min(1).describe('The bot\'s Microsoft App ID (Azure Bot resource, *Configuration*).'),
    appPassword: z.string().min(1).describe('A client secret of that app registration.'),
    serviceUrl: z
      .string()
      .url()
      .default('https://smba.trafficmanager.net/teams')
      .describe('Bot Connector service URL of your tenant\'s region (the `serviceUrl` of activities the bot receives).'),
    tokenUrl: z
      .string()
      .url()
      .default('https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token')
      .describe('OAuth token endpoint; for a single-tenant bot use `https://login.microsoftonline.com/<tenant-id>/oauth2/v2.0/token`.'),
    scope: z.string().default('https://api.botframework.com/.default').describe('Scope of the client-credentials token.'),
  })
  .strict();

export type MsteamsConfig = z.output<typeof msteamsConfigSchema>;
