/** `import(url)` from a JavaScript module, so the URL is taken literally (see import-module.mjs). */
export function importModule(url: string): Promise<Record<string, unknown>>;
