import { z } from 'zod';

export const telegramConfigSchema = z
  .object({
    botToken: z.string().min(1).describe('Bot token from @BotFather, like `123456:ABC-DEF...`.'),
    baseUrl: z.string().url().default('https://api.telegram.org').describe('Bot API base URL (a self-hosted Bot API server, or a fake in tests).'),
  })
  .strict();

export type TelegramConfig = z.output<typeof telegramConfigSchema>;
