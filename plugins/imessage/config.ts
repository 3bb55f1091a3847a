import { z } from 'zod';

export const imessageConfigSchema = z
  .object({
    url: z.string().url().describe('Base URL of the BlueBubbles server running on a Mac signed in to iMessage, e.g. `http://mac.local:1234`.'),
    password: z.string().min(1).describe('The BlueBubbles server password (sent as `?password=`, as its API requires).'),
    method: z
      .enum(['apple-script', 'private-api'])
      .default('apple-script')
      .describe('How BlueBubbles sends: `apple-script` works everywhere, `private-api` needs its helper bundle.'),
  })
  .strict();

export type ImessageConfig = z.output<typeof imessageConfigSchema>;
