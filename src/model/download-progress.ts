import type { DownloadProgress } from './model-files.js';

/**
 * A download progress bar for a CLI's stderr: redrawn in place on a terminal, a line per 10%
 * otherwise (so logs stay readable). Adapters and the CLI pass it as `onDownloadProgress`.
 */
export function createDownloadProgressReporter(stream: NodeJS.WritableStream & { isTTY?: boolean }, label: string): (progress: DownloadProgress) => void {
  let lastDecile = -1;
  let finished = false;
  return ({ downloadedBytes, totalBytes }) => {
    if (finished) return;
    const fraction = totalBytes > 0 ? Math.min(1, downloadedBytes / totalBytes) : 0;
    const sizes = `${megabytes(downloadedBytes)}/${totalBytes > 0 ? megabytes(totalBytes) : '?'} MB`;
    if (stream.isTTY) {
      const width = 30;
      const filled = Math.round(fraction * width);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(fraction * 100)}% ${sizes}`);
      if (fraction >= 1) stream.write('\n');
    } else {
      const decile = Math.floor(fraction * 10);
      if (decile > lastDecile) {
        lastDecile = decile;
        stream.write(`${label} ${decile * 10}% ${sizes}\n`);
      }
    }
    if (fraction >= 1) finished = true;
  };
}

function megabytes(bytes: number): string {
  return (bytes / 1_000_000).toFixed(1);
}
