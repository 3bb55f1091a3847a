import http from 'node:http';

/** what the fake refuses with, in pieces when streamed */
export const REFUSAL_PIECES = ["I'm sorry,", ' I cannot', ' help with that.'];
export const REFUSAL = REFUSAL_PIECES.join('');

/**
 * A fake OpenAI-compatible model on 127.0.0.1 that refuses every chat completion, as OpenAI's
 * models do (for instance under structured output): the message's `content` is null and its
 * `refusal` holds the explanation (https://platform.openai.com/docs/api-reference/chat/object,
 * `choices[].message.refusal`); streamed, the chunks carry `delta.refusal` pieces and no content
 * (https://platform.openai.com/docs/api-reference/chat-streaming, `choices[].delta.refusal`),
 * then the finish chunk, the usage chunk and `data: [DONE]`.
 */
export async function startRefusingUpstream() {
  const requests: any[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const json = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    requests.push(json);
    const usage = { prompt_tokens: 9, completion_tokens: 8, total_tokens: 17 };
    if (!json.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-refused',
          object: 'chat.completion',
          created: 1,
          model: json.model,
          choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: REFUSAL, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const frame = (choices: unknown[], more: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-refused', object: 'chat.completion.chunk', created: 1, model: json.model, choices, ...more })}\n\n`;
    res.write(frame([{ index: 0, delta: { role: 'assistant', content: null, refusal: '' }, logprobs: null, finish_reason: null }]));
    for (const piece of REFUSAL_PIECES) res.write(frame([{ index: 0, delta: { refusal: piece }, logprobs: null, finish_reason: null }]));
    res.write(frame([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]));
    if (json.stream_options?.include_usage) res.write(frame([], { usage }));
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
