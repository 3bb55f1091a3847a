#!/usr/bin/env node
/**
 * A small MCP server (stdio) over GitHub's REST API, for docs/tools.md's worked example: read an
 * issue, label it. Made with the official SDK; herald starts it as `tools.mcpServers.github`.
 *
 * Environment: GITHUB_TOKEN (a token that may write issues), GITHUB_API_URL (https://api.github.com,
 * or your GitHub Enterprise's /api/v3).
 * GitHub's API: https://docs.github.com/en/rest/issues/issues#get-an-issue and
 * https://docs.github.com/en/rest/issues/labels#add-labels-to-an-issue
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const api = (process.env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
const token = process.env.GITHUB_TOKEN;

async function github(method, path, body) {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: {
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': 'herald-example-github-issues',
      ...(token && { authorization: `Bearer ${token}` }),
      ...(body && { 'content-type': 'application/json' }),
    },
    body: body && JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`GitHub answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const issue = { owner: z.string().describe('The repository owner'), repo: z.string().describe('The repository name'), issue_number: z.number().int().positive() };

const server = new McpServer({ name: 'github-issues', version: '1.0.0' });

server.registerTool(
  'get_issue',
  { description: 'Reads an issue: its title, body, state and labels.', inputSchema: issue, annotations: { readOnlyHint: true } },
  async ({ owner, repo, issue_number }) => {
    const found = await github('GET', `/repos/${owner}/${repo}/issues/${issue_number}`);
    const labels = found.labels.map((l) => (typeof l === 'string' ? l : l.name));
    return { content: [{ type: 'text', text: JSON.stringify({ title: found.title, body: found.body, state: found.state, labels }) }] };
  },
);

server.registerTool(
  'add_labels',
  {
    description: 'Adds labels to an issue (labels that do not exist yet are created).',
    inputSchema: { ...issue, labels: z.array(z.string().min(1)).min(1).max(10) },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  },
  async ({ owner, repo, issue_number, labels }) => {
    const now = await github('POST', `/repos/${owner}/${repo}/issues/${issue_number}/labels`, { labels });
    return { content: [{ type: 'text', text: `labels now: ${now.map((l) => l.name).join(', ')}` }] };
  },
);

await server.connect(new StdioServerTransport());
