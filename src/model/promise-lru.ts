/**
 * A least-recently-used map of promises. Storing the promise (not the value) is what gives
 * in-flight de-duplication: a second caller for the same key awaits the first computation.
 * Callers evict failed entries with deleteIf so errors are never cached.
 */
export class PromiseLru<V> {
  private readonly map = new Map<string, Promise<V>>();

  constructor(private readonly maxEntries: number) {}

  get(key: string): Promise<V> | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      // Re-insert to mark it most recently used (Map keeps insertion order).
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: Promise<V>): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next().value;
      if (oldest === undefined) break;
      this.map.delete(oldest);
    }
  }

  /** Deletes the entry only if it is still this promise (a newer computation may have replaced it). */
  deleteIf(key: string, value: Promise<V>): void {
    if (this.map.get(key) === value) this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
