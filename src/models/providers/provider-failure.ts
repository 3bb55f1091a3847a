import { HeraldError } from '../../errors.js';
/**
 * What a log line may say of a model provider failure: its kind, the network cause
 * (`ECONNREFUSED 127.0.0.1:11434`), the upstream's status and error code and its request id,
 * never the upstream body or the prompt. The cause is searched down the `cause` chain (the
 * OpenAI client wraps fetch's TypeError, which wraps Node's socket error).
 */
export function providerFailureFields(failure: unknown): Record<string, unknown> {
  let error = failure;
  const fields: Record<string, unknown> = {};
  // the upstream's answer is on the first error of the chain that carries an HTTP status (herald wraps the client's)
  let upstream: unknown = error;
  for (let depth = 0; depth < 4 && upstream && typeof (upstream as { status?: unknown }).status !== 'number'; depth++) upstream = (upstream as { cause?: unknown }).cause;
  if (upstream) error = upstream;
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') fields.upstreamStatus = status;
  const code = (error as { code?: unknown }).code;
  // the OpenAI client's APIError carries the upstream body's error.code / error.type (short identifiers, not text)
  if (typeof status === 'number' && typeof code === 'string') fields.upstreamCode = code;
  const type = (error as { type?: unknown }).type;
  if (typeof status === 'number' && typeof type === 'string') fields.upstreamType = type;
  const requestId = (error as { requestID?: unknown }).requestID;
  if (typeof requestId === 'string') fields.upstreamRequestId = requestId;
  const cause = networkCause(failure);
  if (cause) fields.cause = cause;
  return fields;
}

/** `ECONNREFUSED 127.0.0.1:11434`, `ENOTFOUND api.example.com`, `UND_ERR_SOCKET`: the first system error in the chain */
function networkCause(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    const e = current as { code?: unknown; address?: unknown; port?: unknown; hostname?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof e.code === 'string' && /^[A-Z_]+$/.test(e.code) && (e.address !== undefined || e.hostname !== undefined || e.code.startsWith('E') || e.code.startsWith('UND_'))) {
      const where = typeof e.address === 'string' ? `${e.address}${e.port !== undefined ? `:${String(e.port)}` : ''}` : typeof e.hostname === 'string' ? e.hostname : '';
      return where ? `${e.code} ${where}` : e.code;
    }
    // happy eyeballs: an AggregateError of one error per address tried
    if (Array.isArray(e.errors) && e.errors.length) {
      const inner = networkCause(e.errors[0]);
      if (inner) return inner;
    }
    current = e.cause;
  }
  return undefined;
}

/**
 * One model's failure in words an operator acts on, for the run's record: the client's message
 * with the network cause the message hides (`Connection error. (ECONNREFUSED 127.0.0.1:8797)`),
 * or with the upstream's status (`HTTP 401`) when the message does not start with it.
 */
export function failureCause(failure: unknown): string {
  const message = failure instanceof Error ? failure.message : String(failure);
  const fields = providerFailureFields(failure);
  const extra: string[] = [];
  if (typeof fields.cause === 'string' && !message.includes(fields.cause)) extra.push(fields.cause);
  // herald's own errors carry the status they answer with, not an upstream's
  if (!(failure instanceof HeraldError) && typeof fields.upstreamStatus === 'number' && !message.startsWith(String(fields.upstreamStatus))) extra.push(`HTTP ${fields.upstreamStatus}`);
  return extra.length ? `${message} (${extra.join(', ')})` : message;
}
