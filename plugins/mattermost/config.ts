import { z } from 'zod';

export const mattermostConfigSchema = z
  .object({
    url: z.string().url().describe('Base URL of the Mattermost server, e.g. `https://chat.example.com`.'),
    token: z.string().min(1).describe('Bot access token or personal access token (sent as Bearer).'),
  })
  .strict();

export type MattermostConfig = z.output<typeof mattermostConfigSchema>;
