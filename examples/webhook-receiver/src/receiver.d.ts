import type { Server } from 'node:http';
import type { WebhookEvent } from '@portico/webhooks';

export interface ReceiverOptions {
  /** The installation's signing secret (or several during a rotation). */
  secret: string | string[];
  /** The work to do with each new event, after the answer has gone out. */
  work: (event: WebhookEvent) => void | Promise<void>;
}

export function createReceiverServer(options: ReceiverOptions): Server;
