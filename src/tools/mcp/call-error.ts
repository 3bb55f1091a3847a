import type { ToolResult } from '../tool-spec.js';
import { capText } from '../result-cap.js';
import { faultMessage } from './fault-message.js';
import { loadedMcpSdk } from './mcp-sdk.js';

/** a failed call as the model is told of it: what happened, in words, never a throw */
export interface CallFailure extends ToolResult {
  isError: true;
  /** the call hit its time limit (the record's `timed_out`) */
  timedOut?: true;
  /** the failure was the connection's, not the tool's: the connection is made again */
  lostConnection?: boolean;
}

/** the SDK's words for a call past its total limit (protocol.js `_resetTimeout`), and herald's own abort's */
export const TOTAL_EXCEEDED = 'Maximum total timeout exceeded';

const seconds = (ms: number) => `${Math.round(ms / 100) / 10}s`;

/**
 * What a call that threw means: the time limit, the turn's abort, the server gone mid-call, an
 * MCP error it answered, or anything else (garbage, a refused HTTP request), each named with
 * the server so the model (and the run's record) can tell them apart.
 */
export function callFailure(
  error: unknown,
  context: { server: string; stdio: boolean; timeoutMs: number; totalMs?: number; aborted: boolean; maxChars: number; transportFault?: string },
): CallFailure {
  const { server } = context;
  const failure = (text: string, extra: Partial<CallFailure> = {}): CallFailure => ({ text: capText(text, context.maxChars), isError: true, ...extra });
  if (context.aborted) return failure(`the call to the server ${server} was cancelled`);
  // an SDK error is only possible once a connection loaded the SDK
  const sdk = loadedMcpSdk();
  if (sdk && error instanceof sdk.McpError) {
    const { ErrorCode } = sdk;
    if (error.code === ErrorCode.RequestTimeout && error.message.includes(TOTAL_EXCEEDED) && context.totalMs !== undefined) {
      return failure(`the server ${server} did not finish within ${seconds(context.totalMs)} (its progress kept the call alive until its total limit)`, { timedOut: true });
    }
    if (error.code === ErrorCode.RequestTimeout) return failure(`the server ${server} did not answer within ${seconds(context.timeoutMs)}`, { timedOut: true });
    if (error.code === ErrorCode.ConnectionClosed) {
      // closed by herald for what its transport saw (an answer past the size limit)
      if (context.transportFault) return failure(`the call to the server ${server} failed: ${context.transportFault}`, { lostConnection: true });
      return failure(context.stdio ? `the server ${server} exited during the call` : `the connection to the server ${server} closed during the call`, { lostConnection: true });
    }
    return failure(`the server ${server} answered with an error: ${faultMessage(error)}`);
  }
  if (error instanceof Error && error.name === 'ZodError') return failure(`the server ${server} answered with something that is not a tool result`);
  // its transport failed: refused, reset, an HTTP error status, an answer too large
  const transport = (sdk !== undefined && error instanceof sdk.StreamableHTTPError) || error instanceof TypeError;
  return failure(`the call to the server ${server} failed: ${faultMessage(error)}`, { lostConnection: transport });
}
