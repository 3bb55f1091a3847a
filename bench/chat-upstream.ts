/**
 * The platform benchmark's model: a minimal OpenAI-compatible upstream in its own process, so
 * its CPU is not herald's. It answers at once: a chat completion as JSON, or with `stream: true`
 * the SSE chunks OpenAI sends (a role chunk, three content deltas, the finish chunk, the usage
 * chunk when asked for, `data: [DONE]`), each its own write.
 * https://platform.openai.com/docs/api-reference/chat-streaming
 */
import http from 'node:http';

const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: 'bench',
  choices: [{ index: 0, message: { role: 'assistant', content: 'fine, thanks' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
});

const chunk = (choices: unknown[], usage?: unknown) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench', choices, ...(usage !== undefined && { usage }) })}\n\n`;
const role = chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
const deltas = ['fine', ',', ' thanks'].map((text) => chunk([{ index: 0, delta: { content: text }, finish_reason: null }]));
const finish = chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]);
const usage = chunk([], { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });

const server = http.createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    const body = Buffer.concat(parts).toString('utf8');
    // a cheap look instead of a parse: this process stands in for a model, its cost is not measured
    if (!body.includes('"stream":true')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(completion);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(role);
    for (const delta of deltas) res.write(delta);
    res.write(finish);
    if (body.includes('"include_usage":true')) res.write(usage);
    res.end('data: [DONE]\n\n');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
