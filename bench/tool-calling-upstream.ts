/**
 * The tools benchmark's model: an OpenAI-compatible upstream in its own process that calls tools.
 * The model name says what it does, `calls-<n>-<tool>`: asked a question, it answers with n calls
 * of `<tool>` at once (each `{"message":"call <i>"}`); asked again with the tool results, it gives
 * its final answer. `calls-0-<tool>` answers at once: the same turn without tool calls. Answers
 * are shaped as OpenAI's chat completion object shows a tool call (`content: null`,
 * `tool_calls: [{ id, type: "function", function: { name, arguments } }]`, the arguments a JSON
 * string, `finish_reason: "tool_calls"`): https://platform.openai.com/docs/api-reference/chat/object
 * Usage: `node --import tsx bench/tool-calling-upstream.ts`; prints `listening on <url>`.
 */
import http from 'node:http';

const usage = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 };
const final = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: 'bench',
  choices: [{ index: 0, message: { role: 'assistant', content: 'done', refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage,
});

let ids = 0;
function calling(tool: string, n: number): string {
  const toolCalls = Array.from({ length: n }, (_, i) => ({ id: `call_${++ids}`, type: 'function', function: { name: tool, arguments: JSON.stringify({ message: `call ${i}` }) } }));
  return JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1,
    model: 'bench',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, tool_calls: toolCalls }, finish_reason: 'tool_calls', logprobs: null }],
    usage,
  });
}

const MODEL = /"model":"calls-(\d+)-([^"]+)"/;

const server = http.createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    const body = Buffer.concat(parts).toString('utf8');
    // a cheap look instead of a parse: this process stands in for a model, its cost is not measured
    const asked = MODEL.exec(body);
    const n = asked ? Number(asked[1]) : 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(n === 0 || body.includes('"role":"tool"') ? final : calling(asked![2]!, n));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
