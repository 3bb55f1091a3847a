import { z } from 'zod';

export const discordConfigSchema = z
  .object({
    botToken: z
      .string()
      .min(1)
      .optional()
      .describe('Bot token from the Discord developer portal (sent as `Authorization: Bot <token>`). Needed to post to a channel id; answering interactions (the discord preset) needs none.'),
    baseUrl: z.string().url().default('https://discord.com/api/v10').describe('REST API base URL (a fake in tests).'),
    allowedMentions: z
      .object({
        parse: z.array(z.enum(['roles', 'users', 'everyone'])).default([]).describe('Mention kinds Discord may parse from the text.'),
        roles: z.array(z.string()).max(100).optional().describe('Role ids that may be pinged.'),
        users: z.array(z.string()).max(100).optional().describe('User ids that may be pinged.'),
      })
      .strict()
      .default({ parse: [] })
      .describe('Discord `allowed_mentions` sent with every message. The default `{parse: []}` pings nobody: a reply quoting `@everyone`, `@here`, a role or a user stays plain text. `{parse: ["users"]}` lets user mentions ping.'),
  })
  .strict();

export type DiscordConfig = z.output<typeof discordConfigSchema>;
