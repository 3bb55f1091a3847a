/**
 * yaml (a bundle chunk of ~250 KB), imported by its first use: a JSON or JSON5 config, the default,
 * starts without compiling or evaluating it. Its default export, the package's `module.exports`:
 * the bundle gives the dynamic import of a CommonJS package no named exports.
 */
export async function loadYaml(): Promise<typeof import('yaml')> {
  return (await import('yaml')).default;
}
