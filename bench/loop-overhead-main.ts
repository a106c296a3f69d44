import { benchLoopOverhead } from './loop-overhead.js';

// The loop benchmark as a program of its own, so another runtime (Bun) can run it: one JSON line on stdout.
process.stdout.write(`${JSON.stringify(await benchLoopOverhead())}\n`);
process.exit(0);
