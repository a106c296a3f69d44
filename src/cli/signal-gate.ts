/** The signals the launcher passes on to the agent it started (reexec-without-secrets.ts). */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];

/**
 * One press, one signal, in an agent its launcher started. A signal sent to the process group
 * (Ctrl-C, GNU `timeout`, systemd's default stop, a CI runner's cancel) reaches the agent twice:
 * from the kernel, and again from the launcher, which must pass on what is sent to it alone
 * (`docker stop`, `kill <launcher>`). Counted as two, the second took "a second signal ends at
 * once": a replica skipped its drain, a `-p` lost its answer. So the launcher passes signals on
 * over its lifeline pipe, and each signal counts as many times as the larger of the two counts:
 * a group's press is one, two presses are two, a press on either process alone is one.
 * Installed in the agent only; `process.emit` is where Node hands a signal to its listeners.
 */
export function gateForwardedSignals(): (signal: string) => void {
  const direct = new Map<string, number>();
  const forwarded = new Map<string, number>();
  const dispatched = new Map<string, number>();
  const admit = (counts: Map<string, number>, signal: string): boolean => {
    counts.set(signal, (counts.get(signal) ?? 0) + 1);
    const presses = Math.max(direct.get(signal) ?? 0, forwarded.get(signal) ?? 0);
    if (presses <= (dispatched.get(signal) ?? 0)) return false;
    dispatched.set(signal, presses);
    return true;
  };
  const emit = process.emit.bind(process) as (event: string, ...args: unknown[]) => boolean;
  const gated = new Set<string>(FORWARDED_SIGNALS);
  (process as { emit: (event: string, ...args: unknown[]) => boolean }).emit = (event: string, ...args: unknown[]) => {
    if (gated.has(event) && !admit(direct, event)) return false;
    return emit(event, ...args);
  };
  return (signal) => {
    if (!gated.has(signal) || !admit(forwarded, signal)) return;
    // No listener: the signal's default action (the process ends), as a kill from the launcher had.
    if (process.listenerCount(signal) === 0) {
      process.emit = emit as typeof process.emit;
      process.kill(process.pid, signal as NodeJS.Signals);
      return;
    }
    emit(signal, signal);
  };
}
