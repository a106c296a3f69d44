// The `plaited-agent trust` command of the built CLI (dist/), run in a worker thread of the test
// process: trust-config.ts hands it one request at a time and waits for the answer synchronously,
// so a test trusts a config the way its user would without starting a second CLI process for it.
import { workerData } from 'node:worker_threads';

const { runTrustCommand } = await import(workerData.trustCommandUrl);
const { port, signal } = workerData;

port.on('message', async ({ args, cwd, env }) => {
  let stdout = '';
  let stderr = '';
  const streams = {
    stdout: { write: (text) => ((stdout += text), true) },
    stderr: { write: (text) => ((stderr += text), true) },
  };
  let status;
  try {
    status = await runTrustCommand(args, cwd, streams, env);
  } catch (error) {
    status = 1;
    stderr += String(error?.stack ?? error);
  }
  port.postMessage({ status, stdout, stderr });
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
