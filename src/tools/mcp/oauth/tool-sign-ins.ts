/** what the HTTP layer asks of the tool servers' sign-ins (mcp-servers.ts implements it) */
export interface ToolSignIns {
  /** a person's sign-in to a server: the URL to open in a browser */
  authorize(server: string): Promise<{ authorizationUrl: string }>;
  /** the browser's return: trades the code, connects the server; the server's name */
  finishSignIn(state: string, code: string): Promise<string>;
  /** herald's OAuth client metadata document */
  clientMetadataDocument(): Record<string, unknown>;
}
