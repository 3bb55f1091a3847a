import type { CommandSpec, OptionSpec } from './command-spec.js';

function optionLabel(name: string, option: OptionSpec): string {
  const long = `--${name}${option.type === 'string' ? ` ${option.arg ?? 'VALUE'}` : ''}`;
  return option.short ? `-${option.short}, ${long}` : `    ${long}`;
}

/** `herald <words> --help` */
export function commandHelp(words: string, spec: CommandSpec): string {
  const lines = [`usage: herald ${words}${spec.usage ? ` ${spec.usage}` : ''}${Object.keys(spec.options).length ? ' [options]' : ''}`, '', spec.summary];
  const described = Object.entries(spec.options).filter(([, o]) => o.help);
  // a plugin may describe its options in `details` instead (its own usage text)
  if (described.length || !spec.details) {
    const options: [string, string][] = [...described.map(([name, o]) => [optionLabel(name, o), o.help] as [string, string]), ['-h, --help', 'show this help']];
    const width = Math.max(...options.map(([label]) => label.length)) + 2;
    lines.push('', 'options:', ...options.map(([label, help]) => `  ${label.padEnd(width)}${help}`));
  }
  if (spec.details) lines.push('', spec.details);
  return lines.join('\n');
}

/** `herald --help`: every command with its summary */
export function overallHelp(table: Record<string, CommandSpec>, version: string): string {
  const width = Math.max(...Object.keys(table).map((w) => w.length)) + 2;
  return [
    `herald ${version}: a gateway for digital employees`,
    '',
    'usage: herald <command> [options]',
    '',
    'commands:',
    ...Object.entries(table).map(([words, spec]) => `  ${words.padEnd(width)}${spec.summary}`),
    '',
    'herald <command> --help shows a command\'s options; herald --version prints the version.',
  ].join('\n');
}
