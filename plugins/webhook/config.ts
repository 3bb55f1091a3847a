import { z } from 'zod';

export const webhookConfigSchema = z
  .object({
    url: z.string().url().describe('Where each reply is POSTed as JSON.'),
    secret: z
      .string()
      .regex(/^(whsec_)?[A-Za-z0-9+/]+={0,2}$/, 'a Standard Webhooks secret: whsec_ followed by base64')
      .optional()
      .describe('Standard Webhooks signing secret (`whsec_` + base64 of 24 to 64 random bytes); when set, every request is signed.'),
  })
  .strict();

export type WebhookConfig = z.output<typeof webhookConfigSchema>;
