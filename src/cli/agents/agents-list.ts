import { parseArgs } from 'node:util';
import { AgentDirectory } from '../../agents/agent-directory.js';
import { loadConfigFile } from '../../plugin-host/load-config.js';
import type { PluginSource } from '../../plugin-sdk/sdk.js';
import { openStore } from '../../store/open-store.js';
import type { CliIo } from '../io/cli-io.js';
import { configPathFrom } from '../io/config-path.js';

/** `herald agents list [--json]`: the digital employees of the config, their model and knowledge. */
export async function agentsListCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' }, json: { type: 'boolean' } } });
  const { config } = await loadConfigFile(configPathFrom(values.config), { builtins });
  const store = await openStore(config);
  try {
    const directory = new AgentDirectory(config);
    const counts = await store.knowledge.documentCounts();
    const rows = directory.all().map((a) => ({
      id: a.id,
      name: a.name ?? a.id,
      model: directory.modelOf(a),
      knowledge_document_count: counts.get(a.id) ?? 0,
      description: a.description ?? null,
    }));
    if (values.json) {
      io.out(JSON.stringify(rows, null, 2));
      return 0;
    }
    const width = (key: 'id' | 'name' | 'model', title: string) => Math.max(title.length, ...rows.map((r) => r[key].length));
    const [w1, w2, w3] = [width('id', 'ID'), width('name', 'NAME'), width('model', 'MODEL')];
    io.out(`${'ID'.padEnd(w1)}  ${'NAME'.padEnd(w2)}  ${'MODEL'.padEnd(w3)}  DOCUMENTS`);
    for (const r of rows) io.out(`${r.id.padEnd(w1)}  ${r.name.padEnd(w2)}  ${r.model.padEnd(w3)}  ${r.knowledge_document_count}`);
    return 0;
  } finally {
    await store.close();
  }
}
