import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolTaskHandle } from '../../store/contracts/tool-calls-port.js';
import { loadedMcpSdk } from './mcp-sdk.js';

/** what a call tells as it goes: the task it became, each status the server reported */
export interface TaskHooks {
  onTask(task: Omit<ToolTaskHandle, 'server'>): Promise<void> | void;
  onStatus(): void;
}

/** a task's states past which it changes no more (MCP 2025-11-25, tasks: `completed`, `failed`, `cancelled`) */
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** how often a task is polled when its server suggests nothing (the SDK's own default) */
const DEFAULT_POLL_MS = 1000;

/**
 * Whether a tool is called as a task: its server declares `tasks.requests.tools.call` and herald's
 * own listing of it saw `execution.taskSupport` "optional" or "required" (tool-listing.ts), as
 * MCP 2025-11-25's tasks section has a requestor decide.
 */
export function callsAsTask(client: Client, tool: string, taskTools: ReadonlySet<string>): boolean {
  return client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined && taskTools.has(tool);
}

/**
 * Calls a tool through the SDK's task-aware call when `asTask` (callsAsTask): it is created as
 * a task, told to `onTask` before it is polled, and polled until its result; any other tool is
 * an ordinary call. Either way the SDK checks structured content against the tool's outputSchema.
 */
export function callToolTasked(client: Client, name: string, args: Record<string, unknown>, options: RequestOptions, hooks: TaskHooks, asTask: boolean): Promise<CallToolResult> {
  // the SDK's stream hands back any failure as an McpError of its text (protocol.js requestStream),
  // which would pass a refused connection off as the server's answer (and a call that never reached
  // its server could not be retried): a tool that is no task is called as an ordinary call
  if (!asTask) return client.callTool({ name, arguments: args }, undefined, options) as Promise<CallToolResult>;
  return streamedTask(client, name, args, options, hooks);
}

async function streamedTask(client: Client, name: string, args: Record<string, unknown>, options: RequestOptions, hooks: TaskHooks): Promise<CallToolResult> {
  for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args }, undefined, options)) {
    if (message.type === 'taskCreated') await hooks.onTask({ taskId: message.task.taskId, ...(message.task.pollInterval != null && { pollInterval: message.task.pollInterval }) });
    else if (message.type === 'taskStatus') hooks.onStatus();
    else if (message.type === 'result') return message.result as CallToolResult;
    else throw message.error;
  }
  throw new Error('the server gave no result');
}

/**
 * The result of a task a call became before a restart: polled (tasks/get) until it ends, then
 * read (tasks/result), as the SDK does for a call it made itself; the tool is not called again.
 */
export async function taskResult(client: Client, task: ToolTaskHandle, options: RequestOptions, hooks: Pick<TaskHooks, 'onStatus'>): Promise<CallToolResult> {
  const { McpError, ErrorCode, CallToolResultSchema } = loadedMcpSdk()!;
  for (;;) {
    const state = await client.experimental.tasks.getTask(task.taskId, options);
    hooks.onStatus();
    if (state.status === 'failed' || state.status === 'cancelled') throw new McpError(ErrorCode.InternalError, `Task ${task.taskId} ${state.status}${state.statusMessage ? `: ${state.statusMessage}` : ''}`);
    // input_required: tasks/result delivers the server's questions and waits for the end
    if (TERMINAL.has(state.status) || state.status === 'input_required') return (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, options)) as CallToolResult;
    await pause(state.pollInterval ?? task.pollInterval ?? DEFAULT_POLL_MS, options.signal);
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', abort, { once: true });
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
  });
}
