/**
 * The one error catalog. Every error herald answers with over HTTP has a stable code here,
 * a status and a default message; `http/error-handler.ts` is the only place that turns them
 * into responses (the webhook shape `{ok:false,error}` or OpenAI's `{error:{...}}`).
 * A test keeps this table and the error table of docs/errors.md in step.
 */
export const errorCatalog = {
  HERALD_BAD_REQUEST: { status: 400, message: 'invalid request', openai: 'invalid_request_error' },
  HERALD_INVALID_JSON: { status: 400, message: 'invalid JSON body', openai: 'invalid_request_error' },
  HERALD_INVALID_FIELD: { status: 400, message: 'invalid field', openai: 'invalid_request_error' },
  HERALD_MODEL_NOT_ALLOWED: { status: 400, message: 'model not allowed', openai: 'invalid_request_error' },
  HERALD_MCP_SERVER_NOT_ALLOWED: { status: 400, message: 'the MCP server is not one the operator allows (tools.mcpServers, tools.remoteAllowlist)', openai: 'invalid_request_error' },
  HERALD_MODEL_CANNOT_USE_TOOLS: { status: 400, message: "the agent's model takes no client tools or structured output", openai: 'unsupported_parameter' },
  HERALD_SCHEMA_MISMATCH: { status: 400, message: 'payload does not match the mapping schema', openai: 'invalid_request_error' },
  HERALD_UNAUTHORIZED: { status: 401, message: 'unauthorized', openai: 'invalid_api_key' },
  HERALD_FORBIDDEN: { status: 403, message: 'forbidden', openai: 'permission_denied' },
  HERALD_CSRF: { status: 403, message: 'missing or invalid CSRF token', openai: 'permission_denied' },
  HERALD_NOT_FOUND: { status: 404, message: 'not found', openai: 'not_found' },
  HERALD_MAPPING_NOT_FOUND: { status: 404, message: 'no hook mapping for this path', openai: 'not_found' },
  HERALD_AGENT_NOT_FOUND: { status: 404, message: 'agent not found', openai: 'agent_not_found' },
  HERALD_CONVERSATION_NOT_FOUND: { status: 404, message: 'conversation not found', openai: 'conversation_not_found' },
  HERALD_RESPONSE_NOT_FOUND: { status: 404, message: 'response not found', openai: 'response_not_found' },
  HERALD_DOCUMENT_NOT_FOUND: { status: 404, message: 'knowledge document not found', openai: 'document_not_found' },
  HERALD_FILE_NOT_FOUND: { status: 404, message: 'file not found', openai: 'file_not_found' },
  HERALD_VECTOR_STORE_NOT_FOUND: { status: 404, message: 'vector store not found', openai: 'vector_store_not_found' },
  HERALD_TOOL_SERVER_NOT_FOUND: { status: 404, message: 'no such tool server in tools.mcpServers', openai: 'not_found' },
  HERALD_SIGN_IN_STATE: { status: 400, message: 'this sign-in is unknown, used already or expired (older than 10 minutes): start it again', openai: 'invalid_request_error' },
  HERALD_OAUTH_INVALID_GRANT: { status: 400, message: 'the authorization code or refresh token is unknown, used, revoked or expired', openai: 'invalid_request_error' },
  HERALD_SIGN_IN_NOT_POSSIBLE: { status: 409, message: 'this tool server takes no sign-in by a person', openai: 'invalid_request_error' },
  HERALD_SIGN_IN_FAILED: { status: 502, message: "the server's authorization server refused or could not be reached", openai: 'server_error' },
  HERALD_METHOD_NOT_ALLOWED: { status: 405, message: 'method not allowed', openai: 'invalid_request_error' },
  HERALD_BODY_TIMEOUT: { status: 408, message: 'request body timeout', openai: 'invalid_request_error' },
  HERALD_DELIVERY_NOT_RETRYABLE: { status: 409, message: 'only a failed delivery with a target can be retried', openai: 'invalid_request_error' },
  HERALD_DELIVERY_NOT_ABANDONABLE: { status: 409, message: 'only a pending or failed delivery can be abandoned', openai: 'invalid_request_error' },
  HERALD_RUN_NOT_CANCELLABLE: { status: 409, message: 'only a queued run, or one waiting for approval, can be cancelled', openai: 'invalid_request_error' },
  HERALD_APPROVAL_NOT_PENDING: { status: 409, message: 'this tool call does not wait for approval (decided already, or never needed one)', openai: 'invalid_request_error' },
  HERALD_QUESTION_NOT_PENDING: { status: 409, message: "this server's question is no longer waiting for an answer (answered, timed out, or its call ended)", openai: 'invalid_request_error' },
  HERALD_DOCUMENT_EXISTS: { status: 409, message: 'this file is already in the knowledge base with other chunking', openai: 'document_exists' },
  HERALD_VECTOR_STORE_OF_AGENT: { status: 409, message: "an agent's own vector store is its knowledge: delete its files instead", openai: 'vector_store_of_agent' },
  HERALD_SCHEDULE_EXISTS: { status: 409, message: 'a schedule of this id exists', openai: 'invalid_request_error' },
  HERALD_SCHEDULE_OF_CONFIG: { status: 409, message: "this schedule is the config's: change it in the config file", openai: 'invalid_request_error' },
  HERALD_KEY_NAME_TAKEN: { status: 409, message: 'an API key of this name exists', openai: 'invalid_request_error' },
  HERALD_PAYLOAD_NOT_RETAINED: { status: 409, message: "this request's payload is not retained", openai: 'invalid_request_error' },
  HERALD_IDEMPOTENCY_IN_PROGRESS: { status: 409, message: 'a request with this Idempotency-Key is still being processed', openai: 'idempotency_in_progress' },
  HERALD_PAYLOAD_TOO_LARGE: { status: 413, message: 'payload too large', openai: 'file_too_large' },
  HERALD_DOCUMENT_TOO_LARGE: { status: 413, message: 'the document exceeds a knowledge limit', openai: 'document_too_large' },
  HERALD_UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'unsupported media type', openai: 'unsupported_file_type' },
  HERALD_IDEMPOTENCY_MISMATCH: { status: 422, message: 'this Idempotency-Key was used for a different request', openai: 'idempotency_mismatch' },
  HERALD_DOCUMENT_UNPROCESSABLE: { status: 422, message: 'the document could not be read within the knowledge limits', openai: 'document_unprocessable' },
  HERALD_CLIENT_CLOSED: { status: 499, message: 'client closed the request', openai: 'client_closed_request' },
  HERALD_RATE_LIMITED: { status: 429, message: 'too many requests', openai: 'rate_limit_exceeded' },
  HERALD_BUDGET_EXCEEDED: { status: 429, message: 'a budget is spent until it resets', openai: 'insufficient_quota' },
  HERALD_MAPPING_FAILED: { status: 500, message: 'hook mapping failed', openai: 'server_error' },
  HERALD_INTERNAL: { status: 500, message: 'internal error', openai: 'server_error' },
  HERALD_MODEL_FAILED: { status: 502, message: 'the model provider failed', openai: 'upstream_error' },
  HERALD_EMBEDDINGS_FAILED: { status: 502, message: 'the embeddings provider failed; the document was not stored', openai: 'upstream_error' },
  HERALD_CONFIG_REFUSED: { status: 422, message: 'the config file has faults; the running config stays', openai: 'invalid_request_error' },
  HERALD_UNAVAILABLE: { status: 503, message: 'service unavailable', openai: 'server_error' },
  HERALD_STORE_UNAVAILABLE: { status: 503, message: 'the store is unavailable; retry later', openai: 'store_unavailable' },
} as const satisfies Record<string, { status: number; message: string; openai: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export interface HeraldErrorOptions {
  /** the request field at fault (OpenAI's `param`) */
  param?: string;
  /** extra response headers, e.g. Retry-After */
  headers?: Record<string, string>;
  /** structured details safe to show the caller (never a body or a secret) */
  details?: unknown;
  /** overrides the OpenAI `code` of the catalog entry */
  openaiCode?: string;
  cause?: unknown;
}

export class HeraldError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param?: string;
  readonly headers?: Record<string, string>;
  readonly details?: unknown;
  readonly openaiCode?: string;

  constructor(code: ErrorCode, message?: string, options: HeraldErrorOptions = {}) {
    super(message ?? errorCatalog[code].message, { cause: options.cause });
    this.name = 'HeraldError';
    this.code = code;
    this.status = errorCatalog[code].status;
    this.param = options.param;
    this.headers = options.headers;
    this.details = options.details;
    this.openaiCode = options.openaiCode;
  }
}

/** how long a caller is asked to wait when the store is away: a reconnect usually takes seconds */
const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * The database does not answer (connection refused or lost, server shutting down). Nothing of
 * the request was stored (each write is one transaction), so the caller may safely retry.
 */
export class StoreUnavailableError extends HeraldError {
  constructor(cause?: unknown) {
    super('HERALD_STORE_UNAVAILABLE', undefined, { headers: { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) }, cause });
    this.name = 'StoreUnavailableError';
  }
}

/** A fault in the configuration: never an HTTP answer, always a refused start naming the key. */
export class ConfigError extends Error {
  constructor(readonly faults: string[]) {
    super(faults.join('\n'));
    this.name = 'ConfigError';
  }
}
