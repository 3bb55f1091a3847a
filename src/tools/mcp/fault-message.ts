import { loadedMcpSdk } from './mcp-sdk.js';

/** a fault's message kept for health and for the model: short, since a server writes part of it (an HTTP error's body) */
const MAX_FAULT_CHARS = 500;

/** what went wrong, in one short line: the error's message (an HTTP error's status first), never more */
export function faultMessage(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  const sdk = loadedMcpSdk();
  if (sdk && error instanceof sdk.StreamableHTTPError && error.code !== undefined && error.code > 0) message = `HTTP ${error.code}: ${message}`;
  // undici's "fetch failed" says why in its cause (ECONNREFUSED, ENOTFOUND)
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  if (cause && !message.includes(cause)) message = `${message} (${cause})`;
  return message.length <= MAX_FAULT_CHARS ? message : `${message.slice(0, MAX_FAULT_CHARS - 1)}…`;
}
