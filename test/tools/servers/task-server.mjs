// A Streamable HTTP MCP server made with the SDK's McpServer, run as a task server (MCP 2025-11-25,
// tasks): its tool `long_job` (taskSupport "required") creates a task and answers at once with it;
// the task completes when POST /finish is sent. Run in its own process so a kill -9 of herald does
// not end it; stateless (no session), so a herald started again can poll a task an earlier one made,
// as the spec binds tasks to the authorization context, not to a session.
// Prints "task server on <url>"; GET /calls answers how many times the tool was called.
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { z } from 'zod';

const taskStore = new InMemoryTaskStore();
const pending = [];
let calls = 0;

function mcpServer() {
  const server = new McpServer({ name: 'tasks', version: '1.0.0' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore });
  server.experimental.tasks.registerToolTask(
    'long_job',
    { description: 'a job that runs as a task', inputSchema: { job: z.string() }, execution: { taskSupport: 'required' } },
    {
      async createTask({ job }, extra) {
        calls++;
        const task = await extra.taskStore.createTask({ ttl: 600_000, pollInterval: 200 });
        pending.push({ taskId: task.taskId, job });
        return { task };
      },
      getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: (_args, extra) => extra.taskStore.getTaskResult(extra.taskId),
    },
  );
  return server;
}

const server = http.createServer(async (req, res) => {
  if (req.url === '/calls') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ calls }));
  if (req.url === '/finish') {
    for (const { taskId, job } of pending.splice(0)) await taskStore.storeTaskResult(taskId, 'completed', { content: [{ type: 'text', text: `job ${job} finished` }] });
    return res.writeHead(200).end('{}');
  }
  const mcp = mcpServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`task server on http://127.0.0.1:${server.address().port}/mcp\n`));
