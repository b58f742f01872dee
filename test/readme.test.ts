/**
 * README.md tells the truth about what exists: the newcomer's two commands, every command the CLI lists
 * in its help (plugin commands and the rollout subcommands included), every environment variable the
 * gateway reads, and links that lead somewhere.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PLUGINS } from '../app/builtin-plugins.ts';
import { coreConfigSchema } from '../gateway/src/config/core-config.ts';
import { gateConfigSchema } from '../gateway/src/gate/config.ts';
import { endsWithTest, REPO_ROOT, spawnGateway } from './support/process.ts';

const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
/** `npm run gatehouse -- kyc key create` and `gatehouse kyc key create` name the same command. */
const MENTIONS = README.replaceAll('npm run gatehouse -- ', 'gatehouse ');

async function help(args: string[]): Promise<string> {
  const child = endsWithTest(spawnGateway({ args, env: {} }));
  expect(await child.exited).toBe(0);
  return child.stdout();
}

/** The command words of each line of a help text's "Commands:" block: lower-case words up to the first other. */
function commands(text: string): string[][] {
  const block = /\nCommands:\n([\s\S]*?)\n\n/.exec(text)?.[1] ?? '';
  return block
    .split('\n')
    .filter((line) => /^ {2}[a-z]/.test(line))
    .map((line) => {
      const words: string[] = [];
      for (const word of line.trim().split(' ')) {
        if (!/^[a-z][a-z-]*$/.test(word)) break;
        words.push(word);
      }
      return words;
    });
}

describe('README.md', () => {
  it("keeps the newcomer's two commands exactly", () => {
    expect(README).toContain('\nnpm ci && npm start\n');
    expect(README).toContain('\nnpm ci && npm test\n');
  });

  it('names every command of `gatehouse --help`, with the plugin commands and the rollout subcommands', async () => {
    const top = commands(await help(['--help']));
    const rollout = commands(await help(['rollout', '--help'])).map((words) => ['rollout', ...words]);
    // Sanity: the parser sees the built-in, plugin and rollout commands.
    expect(top).toContainEqual(['serve']);
    expect(top).toContainEqual(['admin', 'create']);
    expect(rollout).toContainEqual(['rollout', 'promote']);
    const missing = [...top, ...rollout]
      .map((words) => `gatehouse ${words.join(' ')}`)
      .filter((command) => !MENTIONS.includes(command));
    expect(missing).toEqual([]);
  });

  it('names every environment variable the core, the gate and each built-in plugin read', () => {
    const variables = new Set([
      ...Object.keys(coreConfigSchema.shape),
      ...Object.keys(gateConfigSchema.shape),
      ...BUILTIN_PLUGINS.flatMap((plugin) => Object.keys(plugin.config.shape)),
    ]);
    const missing = [...variables].filter((name) => !README.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });

  it('links only to files that exist', () => {
    const targets = [...README.matchAll(/\]\(([^)\s]+)\)|^\[[^\]]+\]: (\S+)$/gm)]
      .map((match) => match[1] ?? match[2] ?? '')
      .filter((target) => !/^(https?:|mailto:|#)/.test(target))
      .map((target) => target.split('#')[0] ?? '');
    expect(targets.length).toBeGreaterThan(10);
    expect(targets.filter((target) => !existsSync(path.join(REPO_ROOT, target)))).toEqual([]);
  });
});
