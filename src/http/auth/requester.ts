import type { Context } from 'hono';
import { clientAddress } from '../request/client-address.js';

/** who sent a request, as authentication counts and logs it: its address and its request id */
export interface Requester {
  readonly clientAddress: string;
  readonly requestId: string | undefined;
}

export function requesterOf(c: Context): Requester {
  return { clientAddress: clientAddress(c), requestId: c.get('requestId') };
}
