import { describe, expect, it } from 'vitest';
import { checkRemoteUrl } from '../../../src/tools/remote/remote-allowlist.js';
import { isAllowed, mayBeAllowed, needsApproval } from '../../../src/tools/remote/mcp-tool-filter.js';
import type { ToolSpec } from '../../../src/tools/tool-spec.js';

const allow = ['https://mcp.example.com/tools', 'http://127.0.0.1:8931/mcp/', 'https://api.example.org'];
const ok = (url: string) => checkRemoteUrl(url, allow).ok;

describe('tools.remoteAllowlist: where a request may send herald', () => {
  it('admits a URL under a prefix: same scheme, host and port, the path on a segment boundary', () => {
    expect(ok('https://mcp.example.com/tools')).toBe(true);
    expect(ok('https://mcp.example.com/tools/github?x=1')).toBe(true);
    expect(ok('https://MCP.Example.com:443/tools/a')).toBe(true);
    expect(ok('http://127.0.0.1:8931/mcp/')).toBe(true);
    expect(ok('http://127.0.0.1:8931/mcp/x')).toBe(true);
    expect(ok('https://api.example.org/anything')).toBe(true);
    // dot segments are resolved before the comparison, as fetch resolves them
    expect(ok('https://mcp.example.com/tools/a/../b')).toBe(true);
  });

  it('refuses everything else', () => {
    expect(ok('https://mcp.example.com/toolsx')).toBe(false);
    expect(ok('https://mcp.example.com/tools/../admin')).toBe(false);
    expect(ok('https://mcp.example.com/')).toBe(false);
    expect(ok('http://mcp.example.com/tools')).toBe(false);
    expect(ok('https://mcp.example.com:8443/tools')).toBe(false);
    expect(ok('https://mcp.example.com.evil.net/tools')).toBe(false);
    expect(ok('https://evil.net/https://mcp.example.com/tools')).toBe(false);
    expect(ok('http://127.0.0.1:8931/mcp')).toBe(false);
    expect(ok('http://127.0.0.1/mcp/')).toBe(false);
    expect(ok('http://2130706433:8931/mcp/')).toBe(true); // the same address, as fetch reads it
    expect(ok('http://localhost:8931/mcp/')).toBe(false);
    expect(ok('file:///etc/passwd')).toBe(false);
    expect(ok('not a url')).toBe(false);
  });

  it('refuses credentials and encoded separators, saying why', () => {
    expect(checkRemoteUrl('https://user:pw@mcp.example.com/tools', allow)).toEqual({ ok: false, reason: expect.stringContaining('credentials') });
    expect(checkRemoteUrl('https://mcp.example.com@evil.net/tools', allow)).toMatchObject({ ok: false });
    expect(checkRemoteUrl('https://mcp.example.com/tools/..%2Fadmin', allow)).toEqual({ ok: false, reason: expect.stringContaining('encoded') });
    expect(checkRemoteUrl('https://mcp.example.com/tools/%2e%2e/admin', allow)).toMatchObject({ ok: false });
    expect(checkRemoteUrl('https://evil.net/tools', allow)).toEqual({ ok: false, reason: 'is not under a prefix of tools.remoteAllowlist' });
    expect(checkRemoteUrl('https://mcp.example.com/tools', [])).toMatchObject({ ok: false });
  });
});

const spec = (tool: string, readOnly: boolean): ToolSpec => ({ name: `s__${tool}`, server: 's', tool, description: '', inputSchema: { type: 'object' }, readOnly });

describe("an mcp tool's allowed_tools and require_approval, as OpenAI documents them", () => {
  it('allowed_tools: names, or a filter by name and read_only', () => {
    expect(isAllowed(undefined, spec('a', false))).toBe(true);
    expect(isAllowed(['a'], spec('a', false))).toBe(true);
    expect(isAllowed(['a'], spec('b', false))).toBe(false);
    expect(isAllowed({ read_only: true }, spec('b', true))).toBe(true);
    expect(isAllowed({ read_only: true }, spec('b', false))).toBe(false);
    expect(isAllowed({ tool_names: ['a'], read_only: true }, spec('a', false))).toBe(false);
    expect(isAllowed({}, spec('a', false))).toBe(false);
  });

  it('allowed_tools for a tool of a server that is down, known by its function name only: names checked, read_only unknowable', () => {
    expect(mayBeAllowed(undefined, 'crm', 'crm__a')).toBe(true);
    expect(mayBeAllowed(['a'], 'crm', 'crm__a')).toBe(true);
    expect(mayBeAllowed(['a'], 'crm', 'crm__b')).toBe(false);
    expect(mayBeAllowed({ tool_names: ['a'], read_only: true }, 'crm', 'crm__a')).toBe(true);
    expect(mayBeAllowed({ read_only: false }, 'crm', 'crm__b')).toBe(true);
    expect(mayBeAllowed({}, 'crm', 'crm__a')).toBe(false);
  });

  it('require_approval: always by default; never; or always/never filters, always winning', () => {
    expect(needsApproval(undefined, spec('a', true))).toBe(true);
    expect(needsApproval('always', spec('a', true))).toBe(true);
    expect(needsApproval('never', spec('a', false))).toBe(false);
    expect(needsApproval({ never: { tool_names: ['a'] } }, spec('a', false))).toBe(false);
    expect(needsApproval({ never: { tool_names: ['a'] } }, spec('b', false))).toBe(true);
    expect(needsApproval({ never: { read_only: true } }, spec('b', true))).toBe(false);
    expect(needsApproval({ always: { tool_names: ['a'] }, never: { read_only: true } }, spec('a', true))).toBe(true);
  });
});
