import type { DownloadProgress } from './model-files.js';
import { currentModelCallObserver } from './model-call-observer.js';

/**
 * A download's progress as notices for the client of the turn that started it (the model
 * layer's call observer): one at the start and one per quarter (clients without a notice view show them as message text), so a first run that downloads
 * the local model is not a silent wait.
 */
export function createDownloadNoticeReporter(label: string): (progress: DownloadProgress) => void {
  let lastQuarter = -1;
  return ({ downloadedBytes, totalBytes }) => {
    const fraction = totalBytes > 0 ? Math.min(1, downloadedBytes / totalBytes) : 0;
    const quarter = Math.floor(fraction * 4);
    if (quarter <= lastQuarter) return;
    lastQuarter = quarter;
    const sizes = `${(downloadedBytes / 1_000_000).toFixed(1)}/${totalBytes > 0 ? (totalBytes / 1_000_000).toFixed(1) : '?'} MB`;
    currentModelCallObserver()?.({ level: 'info', message: `${label}: ${quarter * 25}% (${sizes})` });
  };
}
