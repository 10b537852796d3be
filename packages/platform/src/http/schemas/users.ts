/** Users and their sign-in links. */
import { z } from '@hono/zod-openapi';
import { Id } from './common.js';

export const UserInput = z.strictObject({ id: Id, name: z.string().min(1) }).openapi('UserInput');

export const UserCreated = z.object({ id: z.string(), name: z.string(), token: z.string() }).openapi('UserCreated');

export const SignInLinkInput = z
  .strictObject({
    path: z.string().optional().openapi({
      description: 'The dashboard page the link opens, such as /installations/inst_… (default: the overview)',
    }),
  })
  .openapi('SignInLinkInput');

export const SignInLink = z
  .object({
    url: z
      .string()
      .openapi({ description: 'Open it once, before expiresAt: it signs the user in (the code is in the fragment)' }),
    expiresAt: z.string(),
  })
  .openapi('SignInLink');

export const UserEntry = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: z.string(),
    memberships: z
      .array(z.object({ organization: z.string(), role: z.enum(['admin', 'member']) }))
      .openapi({ description: 'The organizations the user belongs to, with their role in each' }),
  })
  .openapi('UserEntry');
