/**
 * undici's Agent by its own module: `import('undici')` loads the whole package (110 modules: fetch,
 * WebSocket, the mock agents, the cache), where the Agent alone is 23. undici 7 declares no
 * `exports`, so its files are importable by path; the class is the one `undici` exports as `Agent`.
 */
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}
