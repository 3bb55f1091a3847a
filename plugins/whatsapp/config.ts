import { z } from 'zod';

export const whatsappConfigSchema = z
  .object({
    accessToken: z.string().min(1).describe('WhatsApp Cloud API access token (a System User token for production).'),
    phoneNumberId: z.string().min(1).describe('The *Phone number ID* herald sends from (not the phone number itself).'),
    baseUrl: z.string().url().default('https://graph.facebook.com/v21.0').describe('Graph API base URL, with its version (a fake in tests).'),
  })
  .strict();

export type WhatsappConfig = z.output<typeof whatsappConfigSchema>;
