/**
 * Every tool call on the record: stored with its turn before it executes and again after, so an
 * operator sees what an agent did, and a call in flight when the process died is known as such.
 */

/**
 * `waiting_approval`: held for a person; `running`: executing (or was, when its process died);
 * `interrupted`: was running when its process died, not executed again; `denied`: a person (or
 * the approval timeout) refused it; `refused`: policy refused it (not granted, unknown, over
 * maxToolCalls) without executing.
 */
export type ToolCallStatus = 'waiting_approval' | 'running' | 'succeeded' | 'failed' | 'timed_out' | 'interrupted' | 'denied' | 'refused';

/** `mcp`: a call an MCP client made through /mcp with an API key's grant (the owner id is its MCP session) */
export type ToolCallOwner = 'run' | 'chat' | 'response' | 'heartbeat' | 'mcp';

export interface ToolApproval {
  /** `expired`: approvalTimeout passed */
  decision: 'approved' | 'denied' | 'expired';
  /** who decided: the admin token's or console user's name, or `timeout` */
  by: string;
  at: number;
  reason?: string;
}

/**
 * What a result held besides its text, as the console shows it: each item's kind and size, an
 * image's data only when small (a thumbnail), never megabytes. Text items are in `result`.
 */
export type ToolResultPart =
  | { kind: 'image'; mimeType: string; bytes: number; /** base64, only for an image of at most RESULT_THUMBNAIL_BYTES */ data?: string }
  | { kind: 'audio'; mimeType: string; bytes: number }
  | { kind: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string }
  | { kind: 'resource'; uri: string; mimeType?: string; /** characters of a text resource, bytes of a blob */ size: number; text?: boolean }
  | { kind: 'structured'; /** the structured content as JSON text, cut */ json: string };

/** a call that became a task at its server (MCP tasks, 2025-11-25): what is needed to poll it again after a restart */
export interface ToolTaskHandle {
  server: string;
  taskId: string;
  /** the server's suggested poll interval (ms) */
  pollInterval?: number;
}

export interface ToolCallRecord {
  /** herald's id of the call (tc_…) */
  id: string;
  /** the model's id of the call (its `tool_calls[].id`) */
  callId: string;
  ownerKind: ToolCallOwner;
  /** the run id, the response id, the chat's completion id, the heartbeat turn's id */
  ownerId: string;
  agentId: string;
  mappingId?: string | null;
  /** the API key whose turn it was (chat, responses) */
  keyName?: string | null;
  /** which model turn of the run asked for it, from 0 */
  turn: number;
  server: string;
  tool: string;
  /** the arguments as the model wrote them (JSON text) */
  arguments: string;
  readOnly: boolean;
  status: ToolCallStatus;
  /** the result's text given to the model (cut to tools.maxResultChars), or the error */
  result?: string | null;
  error?: string | null;
  createdAt: number;
  startedAt?: number | null;
  finishedAt?: number | null;
  durationMs?: number | null;
  /** the call waits for (or waited for) a person */
  approvalRequired: boolean;
  /** when an unanswered approval expires (epoch ms) */
  approvalExpiresAt?: number | null;
  approval?: ToolApproval | null;
  /** the result's other content (images, audio, resources, structured content), summarized */
  content?: ToolResultPart[] | null;
  /** the server runs the call as a task: its handle, so a restarted herald polls it rather than calling again */
  task?: ToolTaskHandle | null;
  /**
   * A call with no run to resume it (an MCP client's through /mcp): the process executing it and
   * until when that process is presumed alive. Written with the record (insert, start) and renewed
   * (renewLeases); a running call whose lease ran out is recorded `interrupted` (interruptLapsed).
   * Never read back into a record.
   */
  lease?: ToolCallLease | null;
}

/** the process executing a call, and until when (epoch ms) it is presumed alive */
export interface ToolCallLease {
  owner: string;
  until: number;
}

export interface ToolCallsRepo {
  /** stores calls about to execute or wait, in one transaction (before anything is executed) */
  insert(calls: ToolCallRecord[]): Promise<void>;
  /** records a call's end (status, result or error, times); never overwrites a final status; false when the call was final already (or unknown) */
  finish(id: string, end: Pick<ToolCallRecord, 'status' | 'result' | 'error' | 'finishedAt' | 'durationMs' | 'content'> & { startedAt?: number | null }): Promise<boolean>;
  /** keeps the task a running call became at its server (nothing when the call is no longer running) */
  setTask(id: string, task: ToolTaskHandle): Promise<void>;
  /** marks a call `running` as it starts (after an approval, or a resume), with its lease when it has one */
  start(id: string, at: number, lease?: ToolCallLease): Promise<void>;
  /** pushes `owner`'s leases on its running calls to `until` (one statement, however many) */
  renewLeases(owner: string, until: number): Promise<void>;
  /**
   * The running calls with a lease that ran out by `now` (every leased running call when `all`:
   * the process serves its database alone, so their owner is gone) recorded `interrupted` with
   * `error`, in one statement: of two replicas sweeping together, each call goes to one. How many.
   */
  interruptLapsed(now: number, error: string, all?: boolean): Promise<number>;
  get(id: string): Promise<ToolCallRecord | undefined>;
  /** the calls of one run, response or chat turn, in the order they were made */
  ofOwner(ownerKind: ToolCallOwner, ownerId: string): Promise<ToolCallRecord[]>;
  /** the newest calls of one owner kind, newest first (the console's calls from MCP clients) */
  recentOf(ownerKind: ToolCallOwner, limit: number): Promise<ToolCallRecord[]>;
  /** how many calls each owner made, by status (one query for a page of runs); owners without calls are absent */
  statusCounts(ownerKind: ToolCallOwner, ownerIds: readonly string[]): Promise<Map<string, Partial<Record<ToolCallStatus, number>>>>;
  /** the calls waiting for a person, oldest first */
  pendingApprovals(limit: number): Promise<ToolCallRecord[]>;
  /**
   * A person's (or the timeout's) decision on a call waiting for approval, atomically: the call
   * gets its decision (approved stays `waiting_approval` until executed; denied and expired become
   * `denied`), and when it was its run's last undecided call, the run (`waiting_approval`) is
   * queued again in the same transaction, so any replica resumes it. Undefined when the call does
   * not wait (already decided, or unknown): of two decisions racing, exactly one wins.
   */
  decide(id: string, approval: ToolApproval): Promise<ToolCallRecord | undefined>;
  /** the calls whose approval expired by `now` (for the timeout sweep; decided with `decide`) */
  expiredApprovals(now: number, limit: number): Promise<ToolCallRecord[]>;
}
