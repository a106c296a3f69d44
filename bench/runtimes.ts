import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchColdStart } from './cold-start.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

/**
 * Node against Bun on the same built CLI: cold start to `initialize` answered, and the agent
 * loop's overhead per turn, each runtime in a process of its own. Bun is the binary of the dev
 * dependency `@oven/bun-linux-x64`.
 */
export async function benchRuntimes(): Promise<Record<string, number>> {
  const bun = join(root, 'node_modules/@oven/bun-linux-x64/bin/bun');
  if (!existsSync(bun)) throw new Error(`Bun is missing at ${bun}: run npm install`);
  const result: Record<string, number> = {};
  for (const [name, runtime] of [['node', process.execPath], ['bun', bun]] as const) {
    const cold = await benchColdStart(10, runtime);
    result[`${name}ColdStartMedianMs`] = cold.coldStartMedianMs!;
    result[`${name}RssAtInitializeMb`] = cold.rssAtInitializeMb!;
    const loop = JSON.parse(execFileSync(runtime, [join(here, 'loop-overhead-main.js')], { encoding: 'utf8', maxBuffer: 1 << 20 })) as Record<string, number>;
    result[`${name}LoopTurnMedianMs`] = loop.loopTurnWithOneToolMedianMs!;
    result[`${name}LoopTurnP99Ms`] = loop.loopTurnWithOneToolP99Ms!;
  }
  return result;
}
