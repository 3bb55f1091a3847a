import { z } from 'zod';

export const slackConfigSchema = z
  .object({
    botToken: z.string().min(1).describe('Bot User OAuth token (`xoxb-...`) with the `chat:write` scope.'),
    baseUrl: z.string().url().default('https://slack.com/api').describe('Web API base URL (a fake in tests).'),
  })
  .strict();

export type SlackConfig = z.output<typeof slackConfigSchema>;
