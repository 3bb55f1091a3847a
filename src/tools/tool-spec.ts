import type { MessageMedia } from '../models/provider.js';
import type { ToolCallOwner, ToolResultPart, ToolTaskHandle } from '../store/contracts/tool-calls-port.js';

/**
 * A tool as the model sees it and as herald calls it. Every source (an MCP server, herald's
 * built-ins, a Responses request's remote MCP server) hands its tools over in this one shape.
 */
export interface ToolSpec {
  /** the function name the model sees: `<server>__<tool>`, within OpenAI's `^[A-Za-z0-9_-]{1,64}$` */
  name: string;
  /** the server's name (`herald` for the built-ins) */
  server: string;
  /** the tool's own name at its server */
  tool: string;
  description: string;
  /** the tool's JSON Schema for its arguments (an object schema) */
  inputSchema: Record<string, unknown>;
  /** the MCP annotations say it only reads: `readOnlyHint` true and `destructiveHint` not true */
  readOnly: boolean;
  /** the MCP annotations say calling it again with the same arguments has no further effect (`idempotentHint`): a direct call may be retried */
  idempotent?: boolean;
}

/** what a call gives back to the model: the result's text, or an error the model is told of */
export interface ToolResult {
  text: string;
  isError: boolean;
  /** the call hit its time limit (recorded as `timed_out` rather than `failed`) */
  timedOut?: boolean;
  /** the images and audio passed on to a model that reads them (within tools.maxMediaBytes) */
  media?: MessageMedia[];
  /** what the result held besides text, summarized for its record (the console) */
  parts?: ToolResultPart[];
}

/** one tool call's options: its time limit and the turn's abort */
export interface ToolCallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** whose call it is: the built-ins act for the agent, and key what they write by the call's record id (a resumed call writes nothing twice) */
  context?: { agentId: string; callRecordId: string; owner?: { kind: ToolCallOwner; id: string } };
  /** the server runs the call as a task: its handle is kept, so the call can be polled again after a restart */
  onTask?: (task: ToolTaskHandle) => Promise<void>;
  /** poll this task (of a call made before a restart) for its result rather than calling the tool */
  resumeTask?: ToolTaskHandle;
}

/** where tools come from: lists them, calls them */
export interface ToolSource {
  tools(): ToolSpec[];
  call(spec: ToolSpec, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult>;
  /** until the named servers' tools are known (a source that connects in the background); undefined: known now */
  untilTried?(servers: readonly string[]): Promise<void> | undefined;
  /** why a server of this source cannot take calls now (not connected, and its error); undefined when it can, or is none of this source's */
  unavailable?(server: string): string | undefined;
  /** of `servers`, those waiting for a person to sign in (needs_authorization): their tools are not offered */
  awaitingSignIn?(servers: readonly string[]): string[];
}
