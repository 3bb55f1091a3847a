import { endedWhenSettled, startSpan, withSpan, type TraceSpan } from '../tracing/tracing.js';
import type { ResolvedModel } from './model-refs.js';
import type { ModelProvider, ModelRequest, ModelResponse, ModelStreamEvent, ModelUsage } from './provider.js';

/**
 * Each model call as a span of OpenTelemetry's GenAI conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/): the operation, the provider,
 * the model asked for, the tokens and the finish reason. Never the messages or the answer. The
 * provider's HTTP request, made inside the span, carries its traceparent (openai-compatible-client.ts).
 */
export function tracedProvider(provider: ModelProvider, resolved: ResolvedModel): ModelProvider {
  const open = (request: ModelRequest): TraceSpan =>
    startSpan(`chat ${request.model}`, {
      kind: 'client',
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': resolved.provider,
        // the name of the earlier conventions, which most tracing UIs still read
        'gen_ai.system': resolved.provider,
        'gen_ai.request.model': request.model,
        'herald.model.ref': resolved.ref,
        'herald.model.purpose': request.purpose,
      },
    });
  const traced: ModelProvider = {
    clientTools: provider.clientTools,
    complete(request) {
      const span = open(request);
      return endedWhenSettled(span, withSpan(span, () => provider.complete(request)).then((response) => {
        answered(span, response.usage, response.finishReason);
        return response;
      }));
    },
    async *stream(request) {
      const span = open(request);
      const seen = watcher(span);
      const iterator = provider.stream(request)[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = await withSpan(span, () => iterator.next());
          if (next.done) break;
          seen(next.value);
          yield next.value;
        }
      } catch (error) {
        span.fail(error);
        throw error;
      } finally {
        await iterator.return?.();
        span.end();
      }
    },
  };
  if (provider.completeNow) {
    const completeNow = provider.completeNow.bind(provider);
    traced.completeNow = (request) => {
      const span = open(request);
      try {
        const response = withSpan(span, () => completeNow(request));
        answered(span, response.usage, response.finishReason);
        return response;
      } catch (error) {
        span.fail(error);
        throw error;
      } finally {
        span.end();
      }
    };
  }
  if (provider.streamEach) {
    const streamEach = provider.streamEach.bind(provider);
    traced.streamEach = (request, onEvent) => {
      const span = open(request);
      const seen = watcher(span);
      return endedWhenSettled(span, withSpan(span, () => streamEach(request, (event) => {
        seen(event);
        onEvent(event);
      })));
    };
  }
  return traced;
}

function answered(span: TraceSpan, usage: ModelUsage | undefined, finishReason: string | undefined): void {
  span.set({
    'gen_ai.usage.input_tokens': usage?.prompt_tokens,
    'gen_ai.usage.output_tokens': usage?.completion_tokens,
    'gen_ai.response.finish_reasons': finishReason === undefined ? undefined : [finishReason],
  });
}

/** a stream's usage and finish reason, as they pass */
function watcher(span: TraceSpan): (event: ModelStreamEvent) => void {
  return (event) => {
    if (event.type === 'usage') answered(span, event.usage, undefined);
    else if (event.type === 'finish') span.set({ 'gen_ai.response.finish_reasons': [event.reason] });
  };
}
